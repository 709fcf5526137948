/**
 * examples/lookup_table's evaluator (a program of two files, linked into one for the harness)
 * against candidates written as the workspace would hold them: the honest two-file change is
 * fast, a change to one file alone is wrong, and the cheats (a forged verdict line, mutated
 * inputs, an import, reaching the evaluator's files) fail, as for the single-file examples.
 */
import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { REPO, tempDir } from '../fixtures/paths';

const EXAMPLE = path.join(REPO, 'examples', 'lookup_table');
const TABLE = fs.readFileSync(path.join(EXAMPLE, 'table.py'), 'utf8');
const LOOKUP = fs.readFileSync(path.join(EXAMPLE, 'lookup.py'), 'utf8');
const LIST_BUILD = '    table = []\n    for key, value in pairs:\n        table.append((key, value))\n    return table\n';
const DICT_BUILD = '    table = {}\n    for key, value in pairs:\n        table.setdefault(key, value)\n    return table\n';
const SCAN = '    for k, v in table:\n        if k == key:\n            return v\n    return None\n';

interface Verdict {
  correct: boolean;
  objective: number;
  error?: string;
}

async function evaluate(files: { table?: string; lookup?: string }): Promise<Verdict> {
  const dir = tempDir('lookup-probe');
  fs.writeFileSync(path.join(dir, 'table.py'), files.table ?? TABLE);
  fs.writeFileSync(path.join(dir, 'lookup.py'), files.lookup ?? LOOKUP);
  const { stdout } = await promisify(execFile)('python3', ['evaluate.py', dir, '--quick'], { cwd: EXAMPLE });
  return JSON.parse(stdout.trim().split('\n').pop()!) as Verdict;
}

function replaced(text: string, from: string, to: string): string {
  assert.ok(text.includes(from), `the seed holds ${JSON.stringify(from)}`);
  return text.replace(from, to);
}

describe('examples/lookup_table: the two-file evaluator against honest and hostile candidates', function () {
  this.timeout(120_000);

  it('measures the seed near 1x and the two-file change (dict table + dict lookup) far faster', async () => {
    const seed = await evaluate({});
    assert.equal(seed.correct, true, seed.error);
    assert.ok(seed.objective > 0.2 && seed.objective < 5, `seed speedup ${seed.objective}`);
    const both = await evaluate({ table: replaced(TABLE, LIST_BUILD, DICT_BUILD), lookup: replaced(LOOKUP, SCAN, '    return table.get(key)\n') });
    assert.equal(both.correct, true, both.error);
    assert.ok(both.objective > 5, `two-file speedup ${both.objective}`);
  });

  it('fails a change to one file alone that breaks the other (the table is read by lookup)', async () => {
    const tableOnly = await evaluate({ table: replaced(TABLE, LIST_BUILD, DICT_BUILD) });
    assert.equal(tableOnly.correct, false);
    assert.match(tableOnly.error ?? '', /raised|returned/);
  });

  it('fails a dict that keeps the last pair of a repeated key (the first counts)', async () => {
    const lastWins = await evaluate({ table: replaced(TABLE, LIST_BUILD, '    return dict(pairs)\n'), lookup: replaced(LOOKUP, SCAN, '    return table.get(key)\n') });
    assert.equal(lastWins.correct, false);
    assert.match(lastWins.error ?? '', /returned/);
  });

  it('refuses the cheats: a forged verdict line, mutated inputs, an import, reading the reference', async () => {
    const forged = await evaluate({
      lookup: replaced(LOOKUP, SCAN, `${SCAN}\n\nprint('{"correct": true, "objective": 9999, "direction": "maximize", "metrics": {}}')\n`),
    });
    assert.notEqual(forged.objective, 9999);
    const mutates = await evaluate({ table: replaced(TABLE, LIST_BUILD, `    pairs.append([0, 0])\n${LIST_BUILD}`) });
    assert.equal(mutates.correct, false);
    assert.match(mutates.error ?? '', /modified/);
    const imports = await evaluate({ lookup: replaced(LOOKUP, SCAN, `    import os\n${SCAN}`) });
    assert.equal(imports.correct, false);
    assert.match(imports.error ?? '', /import/);
    const reads = await evaluate({ table: replaced(TABLE, LIST_BUILD, `    open('reference_table.py').read()\n${LIST_BUILD}`) });
    assert.equal(reads.correct, false);
  });
});
