/**
 * A real daemon whose allow-list names broken plugins (throws on load, wrong shape, missing
 * module, bad manifest, a built-in's name, not installed) beside a working one: it starts,
 * says once per broken plugin what is wrong, and serves tasks with the working plugin's
 * handlers and its own.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { GetResult, Status, SubmitTask } from '../../shared/protocol';
import { DaemonClient } from '../../daemon/rpc/client';
import { BROKEN_PLUGINS, writePluginPackages } from '../fixtures/brokenPlugins';
import { DaemonProcess } from '../fixtures/daemonProcess';
import { TEST_PLUGIN } from '../fixtures/paths';

describe('daemon with broken plugins allowed (real process)', function () {
  this.timeout(60_000);
  const daemon = new DaemonProcess();
  let client: DaemonClient;

  before(async () => {
    writePluginPackages(daemon.home, path.join(daemon.home, 'good-plugin-loaded'));
    const packages = Object.keys(BROKEN_PLUGINS).map((name) => path.join(daemon.home, 'node_modules', name));
    const config = path.join(daemon.home, 'peagen.json');
    fs.writeFileSync(config, JSON.stringify({ plugins: [...packages, 'not-installed-anywhere'], worker: { plugins: [TEST_PLUGIN] }, sandbox: { executor: 'process' } }));
    const { address } = await daemon.start(['--config', config]);
    client = await DaemonClient.connect(address, daemon.token, 'test');
  });
  after(async () => {
    client?.close();
    await daemon.stop();
  });

  it('reports each broken plugin once and keeps running', () => {
    for (const name of [...Object.keys(BROKEN_PLUGINS), 'not-installed-anywhere']) {
      const lines = daemon.log.split('\n').filter((line) => line.includes(`${name}": `) && line.endsWith('— skipped'));
      assert.equal(lines.length, 1, `${name}:\n${daemon.log}`);
    }
    assert.ok(daemon.alive);
  });

  it('shows in its status which plugins loaded, what they provide, and why the others were skipped', async () => {
    const { plugins = [] } = await client.request(Status.type);
    const byName = new Map(plugins.map((plugin) => [path.basename(plugin.name), plugin]));
    assert.equal(byName.get('testPlugin.js')?.loaded, true, JSON.stringify(plugins));
    assert.ok(byName.get('testPlugin.js')?.provided.handlers?.includes('whoami'));
    for (const name of [...Object.keys(BROKEN_PLUGINS), 'not-installed-anywhere']) {
      const plugin = byName.get(name);
      assert.equal(plugin?.loaded, false, name);
      assert.ok(plugin?.error, `${name} has no reason`);
    }
  });

  it("serves tasks: the working plugin's handlers and the built-in ones", async () => {
    for (const spec of [
      { kind: 'whoami', payload: {}, requires: ['cpu'] },
      { kind: 'echo', payload: { message: 'still here' }, requires: ['cpu'] },
    ]) {
      const { taskId } = await client.request(SubmitTask.type, spec);
      const { result } = await client.request(GetResult.type, { taskId, waitMs: 20_000 });
      assert.equal(result?.status, 'ok', `${spec.kind}: ${JSON.stringify(result)}`);
    }
  });
});
