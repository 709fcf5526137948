/**
 * The plugin walk-through of docs/plugins.md, as a user follows it: the commands are read from
 * the guide's fenced `sh` blocks and run in order in a fresh temporary plugin directory (a copy
 * of examples/plugins/hello-mutator) and a fresh project beside it, with Peagen installed in the
 * project from this checkout. The registry is not reachable here, so the two packages the guide
 * installs from it (`peagen`, `mocha`) come from this checkout, and npm runs --offline. Each
 * step is timed and printed; the brief's bound (under 10 minutes) is asserted only as a bound.
 */
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { REPO, tempDir } from '../fixtures/paths';

const GUIDE = path.join(REPO, 'docs', 'plugins.md');
const EXAMPLE = path.join(REPO, 'examples', 'plugins', 'hello-mutator');
const TEN_MINUTES_MS = 10 * 60_000;
const STEP_BOUND_MS = 5 * 60_000;

/** The guide's fenced blocks of one language, in order. */
function fencedBlocks(markdown: string, language: string): string[] {
  return [...markdown.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].filter((match) => match[1] === language).map((match) => match[2]!.trim());
}

/** Registry package names the guide installs, and where this checkout has them. */
// '/path/to/peagen' is the guide's placeholder for the reader's checkout: this one.
const LOCAL_PACKAGES: Record<string, string> = { peagen: REPO, '/path/to/peagen': REPO, mocha: path.join(REPO, 'node_modules', 'mocha') };

/** The command as run here: registry packages from the checkout, npm offline and quiet. */
function localised(argv: string[]): string[] {
  if (argv[0] !== 'npm' || argv[1] !== 'install') return argv;
  return [...argv.map((arg) => LOCAL_PACKAGES[arg] ?? arg), '--offline', '--no-audit', '--no-fund'];
}

interface Step {
  what: string;
  ms: number;
}

describe('docs/plugins.md walk-through: a third-party mutator packed, installed beside Peagen and used by evolve step', function () {
  this.timeout(TEN_MINUTES_MS + 60_000);
  const root = tempDir('plugin-walk');
  const pluginDir = path.join(root, 'hello-mutator');
  const projectDir = path.join(root, 'project');
  const steps: Step[] = [];
  const env: NodeJS.ProcessEnv = { ...process.env, PEAGEN_HOME: path.join(root, 'home'), npm_config_cache: path.join(root, 'npm-cache'), npm_config_update_notifier: 'false' };
  for (const key of Object.keys(env)) if (/^(OPENAI|ANTHROPIC)_/.test(key) || key === 'WORKER_PLUGINS') delete env[key];

  /** Runs one step in a process group of its own, killed whole if it outlives its bound (npx forks the CLI). */
  async function run(argv: string[], cwd: string): Promise<{ stdout: string; stderr: string }> {
    const started = Date.now();
    const child = spawn(argv[0]!, argv.slice(1), { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-20_000)));
    const killGroup = (): void => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {}
    };
    const timer = setTimeout(killGroup, STEP_BOUND_MS);
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    clearTimeout(timer);
    killGroup();
    steps.push({ what: `${argv.join(' ')}  (in ${path.basename(cwd)})`, ms: Date.now() - started });
    assert.equal(code, 0, `\`${argv.join(' ')}\` in ${cwd} exited ${code}:\n${stdout.slice(-5_000)}\n${stderr}`);
    return { stdout, stderr };
  }

  after(() => {
    const total = steps.reduce((sum, step) => sum + step.ms, 0);
    console.log('      plugin walk-through, step by step:');
    for (const step of steps) console.log(`        ${(step.ms / 1000).toFixed(2).padStart(7)} s  ${step.what}`);
    console.log(`        ${(total / 1000).toFixed(2).padStart(7)} s  total (bound: ${TEN_MINUTES_MS / 60_000} minutes)`);
    fs.rmSync(root, { recursive: true, force: true, maxRetries: 5 });
  });

  it('follows the guide and evolves bad_sort with the plugin mutator', async () => {
    const guide = fs.readFileSync(GUIDE, 'utf8');
    const commands = fencedBlocks(guide, 'sh').flatMap((block) => block.split('\n').filter((line) => line.trim() && !line.trim().startsWith('#')));
    assert.deepEqual(
      commands.map((command) => command.split(/\s+/).slice(0, 3).join(' ')),
      ['npm install --save-dev', 'npm test', 'npm pack', 'npm install ../hello-mutator/hello-mutator-0.1.0.tgz', 'npx peagen plugins', 'npx peagen evolve'],
      'the guide\'s commands changed: update this test with them',
    );
    // The package.json the guide shows declares what the example's does.
    const shown = fencedBlocks(guide, 'json').map((block) => JSON.parse(block) as Record<string, unknown>);
    const examplePackage = JSON.parse(fs.readFileSync(path.join(EXAMPLE, 'package.json'), 'utf8')) as Record<string, unknown>;
    assert.deepEqual(shown.find((block) => block.peagen)?.peagen, examplePackage.peagen);
    const peagenJson = shown.find((block) => block.plugins);
    assert.ok(peagenJson, 'the guide shows no peagen.json with "plugins"');

    // The author's plugin directory and the user's project, beside each other.
    fs.cpSync(EXAMPLE, pluginDir, { recursive: true });
    fs.mkdirSync(projectDir);
    fs.writeFileSync(path.join(projectDir, 'package.json'), JSON.stringify({ name: 'project', version: '1.0.0', private: true }));
    let setup = Date.now();
    await run(localised(['npm', 'install', 'peagen']), projectDir);
    fs.cpSync(path.join(REPO, 'examples', 'bad_sort'), path.join(projectDir, 'bad_sort'), { recursive: true, filter: (source) => !source.includes('test_candidates') });
    setup = Date.now() - setup;

    let cwd = pluginDir;
    const outputs: { command: string; stdout: string }[] = [];
    for (const command of commands) {
      if (command.includes('../hello-mutator/')) {
        cwd = projectDir;
        fs.writeFileSync(path.join(projectDir, 'peagen.json'), JSON.stringify(peagenJson));
      }
      outputs.push({ command, stdout: (await run(localised(command.split(/\s+/)), cwd)).stdout });
    }

    const npmTest = outputs.find((output) => output.command === 'npm test')!.stdout;
    assert.match(npmTest, /Mutator conformance: hello-mutator/);
    assert.match(npmTest, /\d+ passing/);
    assert.doesNotMatch(npmTest, /failing/);
    assert.match(outputs.find((output) => output.command === 'npx peagen plugins')!.stdout, /hello-mutator 0\.1\.0 .*loaded \(mutators: hello-mutator\)/);

    const report = JSON.parse(outputs.at(-1)!.stdout) as { mutator: string; runDir: string; progress: { evaluations: number } };
    assert.equal(report.mutator, 'hello-mutator');
    // The children came from the plugin: its proposals in the journal, each the parent minus one line.
    const seed = fs.readFileSync(path.join(projectDir, 'bad_sort', 'bad_sort.py'), 'utf8').split('\n');
    const proposals = fs
      .readFileSync(path.join(report.runDir, 'journal.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { type: string; mutator?: string; ok?: boolean; code?: string })
      .filter((event) => event.type === 'proposal');
    assert.ok(proposals.length > 0, 'no proposals in the journal');
    for (const proposal of proposals) {
      assert.equal(proposal.mutator, 'hello-mutator');
      assert.equal(proposal.ok, true);
      const child = proposal.code!.split('\n');
      assert.equal(child.length, seed.length - 1, 'hello-mutator deletes exactly one line');
      assert.ok(child.every((line) => seed.includes(line)));
    }
    assert.ok(report.progress.evaluations >= 1);

    const total = setup + steps.slice(1).reduce((sum, step) => sum + step.ms, 0);
    assert.ok(total < TEN_MINUTES_MS, `the walk-through took ${total} ms`);
  });
});
