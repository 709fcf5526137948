/**
 * Offline children of bad_sort, checked by the real Python parser: every child the mutator
 * proposes (over many seeds, with and without donors) must parse, and must leave the text
 * outside the EVOLVE-BLOCK untouched.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { MutationRequest } from '../../daemon/evolution/mutation/Mutator';
import { OfflineMutator } from '../../daemon/evolution/mutation/OfflineMutator';
import { fixedText } from '../conformance/mutator';
import { REPO } from '../fixtures/paths';

const BAD_SORT = readFileSync(path.join(REPO, 'examples/bad_sort/bad_sort.py'), 'utf8');

/** Indices of the programs Python's ast.parse rejects, parsed in one interpreter. */
function unparsable(programs: readonly string[]): number[] {
  const script = [
    'import ast, json, sys',
    'bad = []',
    'for i, code in enumerate(json.load(sys.stdin)):',
    '    try:',
    '        ast.parse(code)',
    '    except SyntaxError:',
    '        bad.append(i)',
    'print(json.dumps(bad))',
  ].join('\n');
  const run = spawnSync('python3', ['-c', script], { input: JSON.stringify(programs), encoding: 'utf8', maxBuffer: 64 << 20 });
  assert.equal(run.status, 0, run.stderr);
  return JSON.parse(run.stdout) as number[];
}

function request(seed: number, inspirations: string[]): MutationRequest {
  return {
    parent: { id: 'bad_sort', code: BAD_SORT, objective: 1 },
    inspirations: inspirations.map((code, i) => ({ id: `donor${i}`, code, objective: 2 })),
    seed,
    task: { name: 'bad_sort', language: 'python', objectiveName: 'speedup', direction: 'maximize' },
  };
}

describe('OfflineMutator children of bad_sort parse as Python', function () {
  this.timeout(120_000);

  const donor = BAD_SORT.replace('    return int(str(x))', '    return x').replace('    tail = list(work[start:])  # needless copy of the tail\n', '    tail = work[start:]\n');

  for (const [label, inspirations] of [
    ['without donors', []],
    ['with a donor', [donor]],
  ] as const) {
    it(`every child ${label} parses with ast.parse and keeps the fixed text`, async () => {
      const mutator = new OfflineMutator();
      const children: string[] = [];
      for (let seed = 1; seed <= 300; seed++) {
        const proposal = await mutator.propose(request(seed, [...inspirations]));
        if (!proposal.ok) continue;
        assert.deepEqual(fixedText(proposal.code), fixedText(BAD_SORT), `seed ${seed}`);
        children.push(proposal.code);
      }
      assert.ok(children.length > 250, `only ${children.length} children`);
      const bad = unparsable(children);
      assert.deepEqual(bad, [], `children that do not parse, e.g.:\n${children[bad[0] ?? 0]}`);
    });
  }

  it('the parser check can fail: a broken program is reported', () => {
    assert.deepEqual(unparsable(['def f(:\n  pass\n', 'x = 1\n']), [0]);
  });
});
