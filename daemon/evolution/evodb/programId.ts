import { createHash } from 'node:crypto';

/** A program's identity: the sha256 of its source, so identical children are one program. */
export function programId(code: string): string {
  return createHash('sha256').update(code).digest('hex');
}
