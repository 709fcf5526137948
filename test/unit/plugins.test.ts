import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ConfigSchema, loadConfig } from '../../daemon/config';
import { createSelector } from '../../daemon/evolution/selection/createSelector';
import { createRegistry } from '../../daemon/handlers';
import { activePlugins, allowListOf, BUILT_IN_NAMES } from '../../daemon/plugins/activePlugins';
import { discoverPlugins } from '../../daemon/plugins/discoverPlugins';
import { loadPlugins, skippedLine } from '../../daemon/plugins/loadPlugins';
import { guardedPluginMutator } from '../../daemon/plugins/pluginGuards';
import { listPlugins } from '../../daemon/cli/commands/plugins';
import { BROKEN_PLUGINS, writePluginPackages } from '../fixtures/brokenPlugins';
import { TEST_PLUGIN, tempDir } from '../fixtures/paths';
import { FakeArchive, makeProgram } from '../conformance/parentSelector';
import { Rng } from '../../daemon/evolution/rng';

describe('plugins: discovery, allow-list, report-and-skip loading', () => {
  const project = tempDir('plugins-unit');
  const marker = path.join(project, 'good-plugin-loaded');
  before(() => writePluginPackages(project, marker));
  after(() => fs.rmSync(project, { recursive: true, force: true }));
  const load = (allowList: string[]) => loadPlugins(allowList, { projectDir: project, reserved: BUILT_IN_NAMES });

  it('discovers the installed packages with a peagen field, and loads none of them by itself', () => {
    const found = discoverPlugins(project).filter((pkg) => pkg.dir.startsWith(project));
    assert.deepEqual(found.map((pkg) => pkg.name), ['bad-manifest', 'good-plugin', 'missing-file', 'takes-builtin', 'throws-on-load', 'wrong-shape']);
    assert.deepEqual(found.find((pkg) => pkg.name === 'good-plugin')?.declares, ['mutators', 'selectors']);
    assert.equal(found.find((pkg) => pkg.name === 'bad-manifest')?.manifest.ok, false);
    assert.equal(fs.existsSync(marker), false, 'discovery loaded a plugin module');
  });

  it('loads only what the allow-list names', () => {
    const set = load(['good-plugin']);
    assert.deepEqual(set.mutators.map((mutator) => mutator.name), ['good-mutator']);
    assert.deepEqual(set.selectors.map((selector) => selector.name), ['first-elite']);
    assert.deepEqual(set.reports, [
      { name: 'good-plugin', location: path.join(project, 'node_modules', 'good-plugin'), version: '1.2.3', declares: ['mutators', 'selectors'], loaded: true, provided: { mutators: ['good-mutator'], selectors: ['first-elite'] } },
    ]);
    assert.equal(fs.existsSync(marker), true);
  });

  it('reports and skips every broken plugin, and still loads the others around them', () => {
    const broken = Object.keys(BROKEN_PLUGINS);
    const set = load([...broken.slice(0, 3), 'good-plugin', ...broken.slice(3), 'not-installed', './no/such/file.js', TEST_PLUGIN]);
    assert.deepEqual(set.mutators.map((mutator) => mutator.name), ['good-mutator']);
    assert.ok(set.handlers.some((handler) => handler.kind === 'whoami'), 'the module-path plugin (the original handler form) loads too');
    const errors = Object.fromEntries(set.reports.filter((report) => !report.loaded).map((report) => [report.name, report.error ?? '']));
    assert.deepEqual(Object.keys(errors).sort(), [...broken, './no/such/file.js', 'not-installed'].sort());
    assert.match(errors['throws-on-load']!, /loading \.\/index\.js threw: boom at load/);
    assert.match(errors['wrong-shape']!, /mutators\[0\]\.propose: must be a function/);
    assert.match(errors['missing-file']!, /loading \.\/dist\/index\.js threw: Cannot find module/);
    assert.match(errors['bad-manifest']!, /"peagen" field .*mutator/);
    assert.match(errors['takes-builtin']!, /mutator "offline" is already provided by Peagen \(built in\)/);
    assert.match(errors['not-installed']!, /is not installed .*npm install not-installed/);
    assert.match(errors['./no/such/file.js']!, /does not exist/);
    const line = skippedLine(set.reports.find((report) => report.name === 'wrong-shape')!);
    assert.match(line, /^plugin "wrong-shape": .+ — skipped$/);
  });

  it('skips the second plugin that takes a name the first one has', () => {
    const twin = path.join(project, 'twin');
    fs.mkdirSync(twin, { recursive: true });
    fs.writeFileSync(path.join(twin, 'package.json'), JSON.stringify({ name: 'twin', version: '1.0.0', peagen: { mutators: './index.js' } }));
    fs.copyFileSync(path.join(project, 'node_modules', 'good-plugin', 'index.js'), path.join(twin, 'index.js'));
    const set = load(['good-plugin', './twin']);
    assert.equal(set.mutators.length, 1);
    assert.match(set.reports[1]?.error ?? '', /mutator "good-mutator" is already provided by plugin "good-plugin"/);
  });

  it('loads a plugin named twice, by an absolute and a relative path, once', () => {
    // As peagen.json (made absolute) and WORKER_PLUGINS (relative) may name it.
    const set = load([path.join(project, 'node_modules', 'good-plugin'), './node_modules/good-plugin']);
    assert.deepEqual(set.reports.map((report) => [report.location, report.loaded, report.error]), [[path.join(project, 'node_modules', 'good-plugin'), true, undefined]]);
    assert.deepEqual(set.mutators.map((mutator) => mutator.name), ['good-mutator']);
  });

  it('a worker registry with broken plugins allowed still builds, with the good plugins\' handlers', () => {
    const lines: string[] = [];
    const registry = createRegistry(['throws-on-load', TEST_PLUGIN, 'wrong-shape'].map((entry) => (entry.startsWith('/') ? entry : path.join(project, 'node_modules', entry))), undefined, {
      llm: ConfigSchema.parse({}).llm,
      env: {},
      log: (line) => lines.push(line),
    });
    assert.ok(registry.get('whoami'));
    assert.ok(registry.get('mutate'));
    assert.equal(lines.filter((line) => / — skipped$/.test(line)).length, 2, lines.join('\n'));
  });

  it('`peagen plugins` lists the allowed ones with their state and the discovered ones as not allowed', () => {
    const listing = listPlugins(['good-plugin', 'wrong-shape'], project);
    const byName = Object.fromEntries(listing.plugins.map((entry) => [entry.name, entry]));
    assert.equal(byName['good-plugin']?.loaded, true);
    assert.equal(byName['wrong-shape']?.loaded, false);
    assert.equal(byName['wrong-shape']?.allowed, true);
    assert.equal(byName['throws-on-load']?.allowed, false);
    assert.equal(byName['throws-on-load']?.loaded, false);
    assert.equal(byName['plain-package'], undefined);
  });

  it('reads the allow-list from peagen.json "plugins" and worker.plugins; a relative path is from the file', () => {
    const file = path.join(project, 'conf', 'peagen.json');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, JSON.stringify({ plugins: ['good-plugin', '@scope/some-plugin', '../plugins/y'], worker: { plugins: ['./x.js'] } }));
    assert.deepEqual(allowListOf(loadConfig(file, {})), ['good-plugin', '@scope/some-plugin', path.join(project, 'plugins', 'y'), path.join(project, 'conf', 'x.js')]);
    // The variable's entries are kept as given: loading resolves them from the project directory.
    assert.deepEqual(allowListOf(loadConfig(file, { WORKER_PLUGINS: 'a,./b' })), ['good-plugin', '@scope/some-plugin', path.join(project, 'plugins', 'y'), 'a', './b']);
  });

  it("makes an allowed plugin's selector available by name", () => {
    const { selectors } = activePlugins({ worker: { plugins: [] }, plugins: ['good-plugin'] }, () => {}, project);
    const selector = createSelector('first-elite', {}, selectors);
    const archive = new FakeArchive().add(makeProgram({ tag: 'a', objective: 3 }), makeProgram({ tag: 'b', objective: 5 }));
    assert.equal(selector.select(archive, new Rng(1)).arm, 'first');
    assert.throws(() => createSelector('nobody-has-this', {}, selectors), /unknown parent selector "nobody-has-this": use one of .*first-elite/);
  });
});

describe('plugin mutators at run time', () => {
  const request = { parent: { id: 'p', code: 'x = 1\n', objective: 1 }, inspirations: [], seed: 1, task: { name: 't', objectiveName: 's', direction: 'maximize' as const } };

  it('a mutator that throws gives a failed proposal, not a crash', async () => {
    const guarded = guardedPluginMutator({ name: 'thrower', usesLlm: false, propose: () => Promise.reject(new Error('bug in plugin')) });
    const proposal = await guarded.propose(request);
    assert.equal(proposal.ok, false);
    assert.ok(!proposal.ok && proposal.reason === 'plugin_error' && /bug in plugin/.test(proposal.message));
  });

  it('a malformed or unchanged answer is a failed proposal; the lineage names the plugin, whatever it claims', async () => {
    const answering = (answer: unknown) => guardedPluginMutator({ name: 'liar', usesLlm: false, propose: async () => answer as never });
    assert.equal((await answering(undefined).propose(request)).ok, false);
    assert.equal((await answering({ ok: true }).propose(request)).ok, false);
    const unchanged = await answering({ ok: true, code: 'x = 1\n' }).propose(request);
    assert.ok(!unchanged.ok && unchanged.reason === 'identical');
    const claimed = await answering({ ok: true, code: 'x = 2\n', mutator: 'llm-patch' }).propose(request);
    assert.ok(claimed.ok);
    assert.equal(claimed.mutator, 'liar');
    assert.deepEqual([claimed.exchanges, claimed.repairs, claimed.patch], [[], 0, '']);
  });
});
