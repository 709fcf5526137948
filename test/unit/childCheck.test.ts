/**
 * Cheap rejection before a sandbox is spent: a child that does not compile is caught (and
 * sent back for format repair), and children that differ only in comments or layout share a
 * normal form (so the second is a repeat, not a new program). And what the run does with it:
 * a child whose normal form is known is never evaluated.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { LlmAnswer, LlmBackend, LlmRequest } from '../../daemon/evolution/llm/LlmBackend';
import { childCheckFor, textForm } from '../../daemon/evolution/mutation/childCheck';
import { LlmPatchMutator } from '../../daemon/evolution/mutation/LlmPatchMutator';
import type { MutationRequest } from '../../daemon/evolution/mutation/Mutator';
import { programId } from '../../shared/programId';

const form = async (language: string, code: string): Promise<string> => {
  const verdict = await childCheckFor(language).check(code);
  assert.ok(verdict.ok, `expected ${JSON.stringify(code)} to compile`);
  return verdict.form;
};

describe('childCheck', () => {
  it('Python: comments, blank lines, trailing spaces and docstrings do not change the normal form; code does', async () => {
    const base = await form('python', 'def f(x):\n    y = x + 1\n    return y\n');
    assert.equal(await form('python', '# header\ndef f(x):\n    """Add one."""\n\n    y = x + 1   # one more\n    return y  \n'), base);
    assert.equal(await form('python', 'def f(x):\n    y = (x +\n         1)\n    return y\n'), base, 'layout inside an expression');
    assert.notEqual(await form('python', 'def f(x):\n    y = x + 2\n    return y\n'), base);
    assert.notEqual(await form('python', 'def f(x):\n    y = x + 1\n    return "# not a comment"\n'), await form('python', 'def f(x):\n    y = x + 1\n    return "# other"\n'), 'a # inside a string is code');
  });

  it('Python: when python3 gives no answer (a starved or failed start), it is asked again, and a fallback is not kept', async () => {
    // A python3 that fails its first `failures` starts, then is the real one.
    const real = execFileSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' }).trim();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'peagen-flaky-python-'));
    const count = path.join(dir, 'starts');
    const flaky = (failures: number): void => {
      fs.writeFileSync(count, '');
      fs.writeFileSync(path.join(dir, 'python3'), `#!/bin/sh\necho x >> ${count}\n[ "$(wc -l < ${count})" -le ${failures} ] && exit 1\nexec ${real} "$@"\n`, { mode: 0o755 });
    };
    const savedPath = process.env.PATH;
    process.env.PATH = `${dir}:${savedPath}`;
    try {
      const code = 'def g(x):\n    return x * 7  # flaky\n';
      const treeForm = await form('python', 'def g(x):\n    return x * 7\n');
      flaky(1);
      assert.equal(await form('python', code), treeForm, 'one failed start: the second try answers');
      const other = 'def h(x):\n    return x - 7\n';
      flaky(2);
      assert.equal(await form('python', other), textForm(other, 'python'), 'two failed starts: the text form, this time');
      assert.notEqual(await form('python', other), textForm(other, 'python'), 'and next time python3 is asked again');
    } finally {
      process.env.PATH = savedPath;
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('Python: a child that does not compile is rejected with the line and the reason', async () => {
    const verdict = await childCheckFor('python').check('def f(x):\n    return (x\n');
    assert.equal(verdict.ok, false);
    assert.match(verdict.ok ? '' : verdict.message, /does not compile \(line 2\).*never closed/);
    const indentation = await childCheckFor('python').check('def f(x):\nreturn x\n');
    assert.equal(indentation.ok, false);
  });

  it('JavaScript: comments and indentation do not change the normal form; a syntax error is rejected; module syntax is not judged', async () => {
    const base = await form('javascript', 'function f(n) {\n  return n + 1;\n}\nmodule.exports = { f };\n');
    assert.equal(await form('javascript', '// header\nfunction f(n) {\n    /* one more */ return n + 1; // done\n}\n\nmodule.exports = { f };\n'), base);
    assert.notEqual(await form('javascript', 'function f(n) {\n  return n + 2;\n}\nmodule.exports = { f };\n'), base);
    assert.notEqual(await form('javascript', 'const s = "// kept";\n'), await form('javascript', 'const s = "// other";\n'), 'a // inside a string is code');
    const broken = await childCheckFor('javascript').check('function f(n) {\n  return n +;\n}\n');
    assert.equal(broken.ok, false);
    assert.match(broken.ok ? '' : broken.message, /does not compile \(line 2\): SyntaxError/);
    assert.ok((await childCheckFor('javascript').check('import x from "y";\nexport default x;\n')).ok, 'ESM is not judged here');
    assert.ok((await childCheckFor('javascript').check('return 1;\n')).ok, 'a CommonJS body may return');
  });

  it('other languages: a text form without comments of brace languages, and no syntax verdict', async () => {
    assert.equal(await form('go', 'func f() int {\n\treturn 1 // one\n}\n'), await form('go', 'func f() int {\n    return 1\n}\n'));
    assert.equal(textForm('a = 1  # x\n\n', 'python'), textForm('a = 1\n', 'python'));
    assert.ok((await childCheckFor('rust').check('fn main( {')).ok, 'no verdict means it compiles');
  });
});

/** A model that answers from a script, one answer per call. */
class ScriptedModel implements LlmBackend {
  readonly name = 'scripted';
  readonly provider = 'openai' as const;
  readonly model = 'script';
  readonly prompts: string[] = [];
  constructor(private readonly answers: string[]) {}
  async complete(request: LlmRequest): Promise<LlmAnswer> {
    this.prompts.push(request.messages.at(-1)!.content);
    const text = this.answers.shift() ?? 'no more answers';
    return { text, model: this.model, usage: { inputTokens: 1, outputTokens: 1 }, latencyMs: 0 };
  }
}

const edit = (search: string, replace: string): string => `<<<<<<< SEARCH\n${search}\n=======\n${replace}\n>>>>>>> REPLACE\n`;
const PARENT = 'def f(x):\n    y = x + 1\n    return y\n';
const request = (extra: Partial<MutationRequest> = {}): MutationRequest => ({
  parent: { id: programId(PARENT), code: PARENT, objective: 1 },
  inspirations: [],
  seed: 1,
  task: { name: 't', language: 'python', objectiveName: 'speedup', direction: 'maximize' },
  ...extra,
});

describe('LlmPatchMutator with the child check', () => {
  it('sends a child that does not compile back as a format repair, with the compiler\'s words', async () => {
    const model = new ScriptedModel([edit('    y = x + 1', '    y = (x + 1'), edit('    y = x + 1', '    y = x + 2')]);
    const proposal = await new LlmPatchMutator({ backend: model, repairAttempts: 1, reaskAttempts: 0 }).propose(request());
    assert.ok(proposal.ok);
    assert.deepEqual(proposal.attempts?.map((a) => [a.kind, a.result]), [['first', 'syntax'], ['format', 'child']]);
    assert.match(model.prompts[1]!, /syntax[\s\S]*does not compile/);
  });

  it('a comment-only change is the parent itself (identical), and a known normal form is known', async () => {
    const known = await form('python', 'def f(x):\n    y = x + 2\n    return y\n');
    const model = new ScriptedModel([edit('    y = x + 1', '    y = x + 1  # faster'), edit('    y = x + 1', '    y = x + 2  # two'), edit('    y = x + 1', '    y = x * 3')]);
    const proposal = await new LlmPatchMutator({ backend: model, repairAttempts: 0, reaskAttempts: 2 }).propose(request({ avoid: [known] }));
    assert.ok(proposal.ok);
    assert.deepEqual(proposal.attempts?.map((a) => [a.kind, a.result]), [['first', 'identical'], ['known', 'known'], ['known', 'child']]);
    assert.equal(proposal.attempts?.[0]?.child, await form('python', PARENT), 'the identical answer names the parent');
    assert.equal(proposal.normalizedId, await form('python', 'def f(x):\n    y = x * 3\n    return y\n'));
  });

  it('gives no attempts beyond its grants: no re-ask when none was granted', async () => {
    const model = new ScriptedModel([edit('    y = x + 1', '    y = x + 1  # same'), edit('    y = x + 1', '    y = x * 3')]);
    const proposal = await new LlmPatchMutator({ backend: model, repairAttempts: 2, reaskAttempts: 0 }).propose(request());
    assert.equal(proposal.ok, false);
    assert.equal(proposal.exchanges.length, 1);
  });
});
