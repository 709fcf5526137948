import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { MutationRequest } from '../../daemon/evolution/mutation/Mutator';
import {
  buildApplyRepairMessage,
  buildMutationMessages,
  fenced,
  PROMPT_LIMITS,
  promptInputs,
  renderPrompt,
  shippedTemplatesDir,
} from '../../daemon/evolution/prompts/renderPrompt';
import { tempDir } from '../fixtures/paths';

const PARENT = ['"""doc"""', '# EVOLVE-BLOCK-START', 'def total(values):', '    return sum(values)', '# EVOLVE-BLOCK-END', ''].join('\n');

function request(extra: Partial<MutationRequest> = {}): MutationRequest {
  return {
    parent: { id: 'p1', code: PARENT, objective: 1.23456789, metrics: { wall_ms: 12.5, calls: 3 } },
    inspirations: [
      { id: 'i1', code: 'def total(values):\n    return 1\n', objective: 2.5 },
      { id: 'i2', code: 'x'.repeat(50_000), objective: 3 },
    ],
    seed: 7,
    task: {
      name: 'summer',
      description: 'Sum a list quickly.',
      language: 'python',
      entry: 'total',
      objectiveName: 'speedup',
      direction: 'maximize',
    },
    ...extra,
  };
}

const sha16 = (file: string): string => createHash('sha256').update(fs.readFileSync(file)).digest('hex').slice(0, 16);

describe('prompt templates', () => {
  let dir: string;
  beforeEach(() => (dir = tempDir('prompts')));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('renders the shipped system and mutate prompts with every input', () => {
    const { messages, template } = buildMutationMessages(request());
    assert.deepEqual(
      messages.map((message) => message.role),
      ['system', 'user'],
    );
    const [system, user] = messages.map((message) => message.content) as [string, string];
    assert.match(system, /python/);
    assert.match(system, /speedup \(higher is better\)/);
    assert.match(system, /EVOLVE-BLOCK/);
    for (const expected of ['summer', 'Sum a list quickly.', '`total`', 'speedup, to maximize', 'calls = 3', 'wall_ms = 12.5', '<<<<<<< SEARCH', '>>>>>>> REPLACE']) {
      assert.ok(user.includes(expected), `the mutate prompt says ${expected}`);
    }
    assert.ok(user.includes(`## Current program (speedup = 1.23457)\n`), 'the parent objective, rounded for reading');
    assert.ok(user.includes('```python\n' + PARENT + '```'), 'the whole parent in a python fence');
    assert.ok(user.includes('### Inspiration 1 (speedup = 2.5)\n```python\ndef total(values):\n    return 1\n```'));
    assert.deepEqual(template, { name: 'mutate', hash: sha16(path.join(shippedTemplatesDir(), 'mutate.njk')) });
  });

  it('caps the inspirations, never the parent, and leaves the parent out of them', () => {
    const long = 'y'.repeat(100_000);
    const many = Array.from({ length: 10 }, (_, i) => ({ id: `i${i}`, code: `print(${i})\n`, objective: i }));
    const inputs = promptInputs(
      request({ parent: { id: 'p1', code: long, objective: null }, inspirations: [{ id: 'p1', code: long, objective: null }, { id: 'big', code: 'z'.repeat(50_000), objective: 1 }, ...many] }),
    );
    assert.equal(inputs.parent.code, long);
    assert.equal(inputs.parent.objective, 'failed');
    assert.deepEqual(
      inputs.inspirations.map((program) => program.id),
      ['big', 'i0', 'i1'],
    );
    assert.ok(inputs.inspirations[0]!.code.length < PROMPT_LIMITS.inspirationChars + 100);
    assert.match(inputs.inspirations[0]!.code, /characters cut/);
  });

  it('tells a minimizing task that lower is better', () => {
    const { messages } = buildMutationMessages(request({ task: { name: 't', objectiveName: 'runtime', direction: 'minimize' } }));
    assert.match(messages[0]!.content, /runtime \(lower is better\)/);
    assert.match(messages[1]!.content, /lowers its runtime/);
    assert.doesNotMatch(messages[1]!.content, /keep its name and signature/, 'no entry, no entry sentence');
  });

  it('asks for a fix with the evaluator error text, capped, when a child failed evaluation', () => {
    const errorText = `Traceback (most recent call last):\n${'  frame\n'.repeat(2_000)}IndexError: list index out of range`;
    const child = PARENT.replace('sum(values)', 'values[len(values)]');
    const { messages, template } = buildMutationMessages(request({ failure: { code: child, errorText } }), { failureDiff: '-    return sum(values)\n+    return values[len(values)]\n' });
    const user = messages[1]!.content;
    assert.equal(template.name, 'repair');
    assert.ok(user.includes('Traceback (most recent call last):'), 'the head of the error');
    assert.ok(user.includes('IndexError: list index out of range'), 'the tail of the error, where Python puts the exception');
    assert.ok(!user.includes('  frame\n'.repeat(200)), 'not all of it');
    assert.ok(user.length < PARENT.length * 2 + PROMPT_LIMITS.errorTextChars + 3_000);
    assert.ok(user.includes('## Current program (failed evaluation)\n```python\n' + child + '```'), 'the failed child is the program to change');
    assert.ok(user.includes('+    return values[len(values)]'), 'the change that broke it');
  });

  it('repeats the exact reason an answer did not apply', () => {
    const { inputs } = buildMutationMessages(request());
    const reason = 'SEARCH text not found:\n    return sum(value)\nclosest lines of the program:\n    return sum(values)';
    const repair = buildApplyRepairMessage(inputs, { reason: 'no_match', message: reason, attempt: 1, attempts: 2 });
    assert.equal(repair.role, 'user');
    assert.ok(repair.content.includes(reason));
    assert.match(repair.content, /\(no_match\), attempt 1 of 2/);
    assert.match(repair.content, /<<<<<<< SEARCH/);
  });

  it('uses a project template before the shipped one of the same name', () => {
    fs.writeFileSync(path.join(dir, 'mutate.njk'), 'Project prompt for {{ task.name }}:\n{{ parent.code | fenced(task.language) }}\n');
    const { messages, template } = buildMutationMessages(request(), { searchPath: [dir] });
    assert.equal(messages[1]!.content, `Project prompt for summer:\n\`\`\`python\n${PARENT}\`\`\`\n`);
    assert.deepEqual(template, { name: 'mutate', hash: sha16(path.join(dir, 'mutate.njk')) });
    assert.match(messages[0]!.content, /evolutionary search/, 'the system prompt still comes from the shipped templates');
  });

  it('renders a template chosen by name, with or without .njk', () => {
    fs.writeFileSync(path.join(dir, 'terse.njk'), 'Improve {{ task.name }}.');
    assert.equal(renderPrompt('terse', { task: { name: 'x' } }, { searchPath: [dir] }).text, 'Improve x.\n');
    assert.equal(renderPrompt('terse.njk', { task: { name: 'y' } }, { searchPath: [dir] }).text, 'Improve y.\n');
    assert.throws(() => renderPrompt('../terse', {}, { searchPath: [dir] }), /prompt template name "\.\.\/terse"/);
    assert.throws(() => renderPrompt('absent', {}, { searchPath: [dir] }), /prompt template absent\.njk not found in .*prompts/);
  });

  it('fails with the template file and line when a template outputs an undefined value', () => {
    const file = path.join(dir, 'mutate.njk');
    fs.writeFileSync(file, 'Task {{ task.name }}\nScore {{ parent.score }}\n');
    assert.throws(() => buildMutationMessages(request(), { searchPath: [dir] }), (error: Error) => {
      assert.ok(error.message.startsWith(`prompt template ${file}:2:`), error.message);
      assert.match(error.message, /undefined/);
      return true;
    });
  });

  it('fails with the template file and line on a syntax error', () => {
    const file = path.join(dir, 'system.njk');
    fs.writeFileSync(file, 'ok\n{% if %}\n');
    assert.throws(() => renderPrompt('system', request(), { searchPath: [dir] }), new RegExp(`^Error: prompt template ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:2:`));
  });

  it('fences code that itself holds a fence with a longer fence', () => {
    assert.equal(fenced('a\n```\nb\n', 'md'), '````md\na\n```\nb\n````');
    assert.equal(fenced('x = 1', null), '```\nx = 1\n```');
  });
});
