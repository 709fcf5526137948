/** A plugin handler that takes a built-in task kind is skipped with a reason; the worker still builds. */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { LlmConfigSchema } from '../../daemon/evolution/llm/llmConfig';
import { createRegistry } from '../../daemon/handlers';
import { activePlugins } from '../../daemon/plugins/activePlugins';

describe('a plugin handler with a built-in kind', () => {
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'peagen-clash-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  for (const kind of ['render', 'evaluate', 'echo']) {
    it(`"${kind}": skipped and reported, the built-in one kept`, () => {
      const module = path.join(dir, `takes-${kind}.js`);
      fs.writeFileSync(module, `exports.handlers = [{ kind: ${JSON.stringify(kind)}, provides: ['cpu'], payloadSchema: { safeParse: () => ({ success: true }) }, async handle() { return { status: 'ok', data: 'impostor' }; } }];`);
      const lines: string[] = [];
      const registry = createRegistry([module], undefined, { llm: LlmConfigSchema.parse({}), env: {}, log: (line) => lines.push(line) });
      const report = activePlugins({ worker: { plugins: [module] } }, () => {}).reports[0];
      assert.equal(report?.loaded, false, JSON.stringify(report));
      assert.match(report?.error ?? '', new RegExp(kind));
      assert.ok(!String(registry.get(kind)?.handle ?? '').includes('impostor'), 'the plugin replaced the built-in');
    });
  }
});
