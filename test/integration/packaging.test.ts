/**
 * `npm run package` as a user runs it: in a fresh copy of the sources (no dist/, no out/, the
 * same node_modules), so the production build and `vsce package` with the script's own flags
 * must work from scratch, and the working tree's dist/ and out/ (which these tests run from)
 * stay untouched. Then the .vsix itself: only allowed entries (.vscodeignore is an allow-list:
 * no sources, tests, node_modules or run data), every file package.json points at is inside,
 * and it stays small.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { REPO, tempDir } from '../fixtures/paths';

/** Generous for the shipped bundles (~1.7 MB today) plus webview assets still to come. */
const MAX_VSIX_BYTES = 4 * 1024 * 1024;

/** What may be in the package, under `extension/` (vsce adds its manifest files at the top). */
const ALLOWED = [
  /^extension\.vsixmanifest$/,
  /^\[Content_Types\]\.xml$/,
  /^extension\/package\.json$/,
  /^extension\/readme\.md$/,
  /^extension\/changelog\.md$/,
  /^extension\/LICENSE\.txt$/,
  /^extension\/media\/[\w./-]+\.(png|svg|md|css|js)$/,
  /^extension\/dist\/(extension|daemon|cli)\.js$/,
  // The code of the CLI and the daemon: their ES-module entries and shared chunks.
  /^extension\/dist\/esm\/[\w-]+\.mjs$/,
  /^extension\/dist\/schemas\/[\w.-]+\.schema\.json$/,
  /^extension\/harness\/README\.md$/,
  /^extension\/harness\/js\/(generated\/)?[\w-]+\.m?js$/,
  /^extension\/harness\/python\/peagen_harness\/(report_hook\/)?\w+\.py$/,
  // The adapter for OpenEvolve-layout examples and its openevolve stand-in (docs/openevolve.md).
  /^extension\/harness\/python\/peagen_openevolve\/(compat\/openevolve\/)?\w+\.py$/,
  /^extension\/examples\/bad_sort\/(bad_sort\.py|evaluate\.py|reference_bad_sort\.py|peagen\.example\.json)$/,
  /^extension\/daemon\/evolution\/prompts\/templates\/\w+\.njk$/,
];
/** Never, whatever the allow-list says. */
const FORBIDDEN = [/\.ts$/, /\.map$/, /(^|\/)test(_candidates)?\//, /node_modules\//, /\.peagen\//, /__pycache__/, /\.vsix$/, /(^|\/)out\//];

/** Top-level entries a user's checkout has that the copy leaves out (built or machine-local). */
const NOT_COPIED = new Set(['node_modules', '.git', 'dist', 'out', 'test-artifacts', '.peagen']);

function run(command: string, args: string[], cwd: string): { status: number | null; output: string } {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', timeout: 240_000, env: { ...process.env, npm_config_yes: 'true' } });
  return { status: result.status, output: `${result.stdout ?? ''}${result.stderr ?? ''}${result.error ? String(result.error) : ''}` };
}

describe('npm run package (the .vsix users install)', function () {
  this.timeout(300_000);
  const checkout = tempDir('package');
  let entries: string[] = [];
  let vsix = '';

  before(function () {
    for (const entry of fs.readdirSync(REPO)) {
      if (!NOT_COPIED.has(entry)) fs.cpSync(path.join(REPO, entry), path.join(checkout, entry), { recursive: true });
    }
    fs.symlinkSync(path.join(REPO, 'node_modules'), path.join(checkout, 'node_modules'), 'dir');
  });

  after(() => fs.rmSync(checkout, { recursive: true, force: true }));

  it('builds and packages from a fresh checkout', () => {
    const packaged = run('npm', ['run', 'package'], checkout);
    assert.equal(packaged.status, 0, `npm run package failed:\n${packaged.output.slice(-3000)}`);
    const script = (JSON.parse(fs.readFileSync(path.join(checkout, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.package;
    const out = /--out\s+(\S+)/.exec(script ?? '')?.[1];
    assert.ok(out, `the package script names no --out: ${script}`);
    vsix = path.join(checkout, out);
    assert.ok(fs.existsSync(vsix), `${vsix} was not written:\n${packaged.output.slice(-2000)}`);
    const listing = run('unzip', ['-Z1', vsix], checkout);
    assert.equal(listing.status, 0, listing.output);
    entries = listing.output.split('\n').filter((line) => line && !line.endsWith('/'));
    console.log(`      ${path.basename(vsix)}: ${fs.statSync(vsix).size} bytes, ${entries.length} entries`);
    // npm test's end-to-end suite installs this very package instead of packaging another
    // (test/run.mjs names the path; the package is built once per run).
    if (process.env.PEAGEN_TEST_VSIX) fs.copyFileSync(vsix, process.env.PEAGEN_TEST_VSIX);
  });

  it('holds only allowed entries', () => {
    assert.ok(entries.length > 0, 'no entries: packaging failed above');
    const unexpected = entries.filter((entry) => FORBIDDEN.some((pattern) => pattern.test(entry)) || !ALLOWED.some((pattern) => pattern.test(entry)));
    assert.deepEqual(unexpected, [], 'entries outside the allow-list (fix .vscodeignore)');
  });

  it('holds every file package.json points at', () => {
    assert.ok(entries.length > 0, 'no entries: packaging failed above');
    const manifest = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')) as {
      main: string;
      icon: string;
      contributes: {
        jsonValidation: { url: string }[];
        walkthroughs: { steps: { media: { markdown?: string; image?: string } }[] }[];
        viewsContainers: { activitybar: { icon: string }[] };
      };
    };
    const referenced = [
      manifest.main,
      manifest.icon,
      // The daemon the extension spawns and the CLI next to it.
      'dist/daemon.js',
      'dist/cli.js',
      ...manifest.contributes.jsonValidation.map((entry) => entry.url),
      ...manifest.contributes.walkthroughs.flatMap((walkthrough) => walkthrough.steps.map((step) => step.media.markdown ?? step.media.image ?? '')),
      ...manifest.contributes.viewsContainers.activitybar.map((container) => container.icon),
      // Peagen: Open the Sample copies these.
      ...['bad_sort.py', 'evaluate.py', 'reference_bad_sort.py', 'peagen.example.json'].map((file) => `examples/bad_sort/${file}`),
      'harness/python/peagen_harness/__init__.py',
      'harness/python/peagen_openevolve/__main__.py',
      'harness/python/peagen_openevolve/compat/openevolve/evaluation_result.py',
      'harness/js/peagen-harness.js',
      'harness/js/generated/peagen-realm-buffer.js', // the realm's Buffer, made by the build
      // The process boundary of objective tests and the runners' structured reports.
      'harness/python/peagen_harness/boundary.py',
      'harness/python/peagen_harness/report_hook/sitecustomize.py',
      'harness/js/peagen-standin.js',
      'harness/js/peagen-standin-worker.js',
      'harness/js/peagen-test-report.mjs',
      'harness/js/peagen-cli-reporters.js',
      'harness/js/peagen-jest-report.js',
      'harness/js/peagen-tape-report.js',
      'harness/js/peagen-vitest-report.mjs',
    ].map((file) => `extension/${path.posix.normalize(file)}`);
    const missing = referenced.filter((file) => !entries.includes(file));
    assert.deepEqual(missing, [], `missing from the .vsix; entries: ${entries.join(', ')}`);
  });

  it(`stays under ${MAX_VSIX_BYTES / 1024 / 1024} MB`, () => {
    assert.ok(vsix && fs.existsSync(vsix), 'no .vsix: packaging failed above');
    const size = fs.statSync(vsix).size;
    console.log(`      .vsix size: ${(size / 1024 / 1024).toFixed(2)} MB (bound ${MAX_VSIX_BYTES / 1024 / 1024} MB)`);
    assert.ok(size < MAX_VSIX_BYTES, `the .vsix is ${size} bytes`);
  });
});
