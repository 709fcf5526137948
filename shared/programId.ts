/**
 * A program's identity, the one rule both sides use: the sha256 (hex) of its source, exactly
 * as given (no line-ending or whitespace normalization), so identical children are one program
 * and an id the extension computes is the id the daemon's archive gives the same code.
 * ProgramIdSchema (shared/evolution.ts) checks the form.
 */
import { createHash } from 'node:crypto';
import type { ProgramId } from './evolution';

export function programId(code: string): ProgramId {
  return createHash('sha256').update(code).digest('hex');
}
