/**
 * The Python call tracing init runs with the project's tests (daemon/evaluation/scaffold/traceCalls.ts),
 * run for real by python3: what it records must be what the evaluator's from_wire reads back as
 * the same arguments, and what it cannot say is left out rather than approximated.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { tracedSource, CAPTURE_FILE_ENV } from '../../daemon/evaluation/scaffold/traceCalls';
import { REPO, tempDir } from '../fixtures/paths';

const PROGRAM = 'import collections\n\nRule = collections.namedtuple("Rule", "pattern base")\n\n\ndef rule(pattern, base=None):\n    return Rule(pattern, base)\n';

describe('Python call tracing (real python3)', function () {
  this.timeout(30_000);

  it("records a pathlib path and keyword arguments as from_wire reads them back (gitignore_parser's rule_from_pattern(p, base_path=Path(...)))", () => {
    const dir = tempDir('trace');
    fs.writeFileSync(path.join(dir, 'rules.py'), tracedSource(PROGRAM, 'rule', 'python'));
    const capture = path.join(dir, 'calls.jsonl');
    const calls =
      'import pathlib, rules\n' +
      'rules.rule("*.py", base=pathlib.Path("/src"))\n' +
      'rules.rule("a/", pathlib.PurePosixPath("x/y"))\n' +
      'rules.rule("b", base=object())\n' + // an object with behaviour: left out
      'rules.rule("c")\n';
    execFileSync('python3', ['-c', calls], { cwd: dir, env: { ...process.env, [CAPTURE_FILE_ENV]: capture } });
    const lines = fs.readFileSync(capture, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { args: unknown; answer?: unknown });
    assert.equal(lines.length, 3, 'the call with an object is left out');
    // The answers are namedtuples, not plain JSON: the evaluator asks the original for them.
    assert.ok(lines.every((line) => line.answer === undefined || line.args !== undefined));
    const decoded = execFileSync(
      'python3',
      ['-c', 'import json, sys\nfrom peagen_harness._child import from_wire\nfor line in sys.stdin:\n    args = json.loads(line)["args"]\n    args = from_wire(args["$wire"]) if isinstance(args, dict) else args\n    print(repr(args))\n'],
      { input: lines.map((line) => JSON.stringify(line)).join('\n') + '\n', env: { ...process.env, PYTHONPATH: path.join(REPO, 'harness', 'python') } },
    ).toString();
    assert.deepEqual(decoded.trim().split('\n'), ["['*.py', PosixPath('/src')]", "['a/', PurePosixPath('x/y')]", "['c']"]);
  });

  it("records keyword-only arguments after the positional ones, defaults filled in (tomli-w's format_string(s, *, allow_multiline))", () => {
    const dir = tempDir('trace');
    fs.writeFileSync(path.join(dir, 'fmt.py'), tracedSource('def fmt(s, pad=0, *, multiline, width=3):\n    return s\n', 'fmt', 'python'));
    const capture = path.join(dir, 'calls.jsonl');
    execFileSync('python3', ['-c', 'import fmt\nfmt.fmt("a", multiline=True)\nfmt.fmt("b", 2, width=5, multiline=False)\n'], {
      cwd: dir,
      env: { ...process.env, [CAPTURE_FILE_ENV]: capture },
    });
    const args = fs.readFileSync(capture, 'utf8').trim().split('\n').map((line) => (JSON.parse(line) as { args: unknown }).args);
    assert.deepEqual(args, [['a', 0, true, 3], ['b', 2, false, 5]]);
  });
});
