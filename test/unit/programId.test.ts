/**
 * The program id rule is written once (shared/programId.ts): the daemon's archive and the
 * extension (a selection's parent program) compute the same id for the same code.
 */
import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { EXACT_CHECK } from '../../daemon/evolution/mutation/childCheck';
import { ProgramIdSchema } from '../../shared/evolution';
import { programId } from '../../shared/programId';

describe('program ids (shared/programId.ts)', () => {
  it('is the sha256 of the source, in the form ProgramIdSchema checks', () => {
    const code = 'def f(x):\n    return x\n';
    assert.equal(programId(code), createHash('sha256').update(code).digest('hex'));
    assert.ok(ProgramIdSchema.safeParse(programId(code)).success);
    assert.ok(ProgramIdSchema.safeParse(programId('')).success);
  });

  it('takes the source as it is: another line ending or a final newline is another program', () => {
    const ids = new Set(['a\nb\n', 'a\r\nb\r\n', 'a\nb'].map(programId));
    assert.equal(ids.size, 3);
  });

  it('the exact duplicate check names a child by its program id', async () => {
    const code = 'x = 1\n';
    assert.deepEqual(await EXACT_CHECK.check(code), { ok: true, form: programId(code) });
  });
});
