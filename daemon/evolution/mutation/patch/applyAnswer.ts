/**
 * Turns an LLM answer into a child program: SEARCH/REPLACE blocks, unified diffs, or (when
 * allowed) whole EVOLVE-BLOCK rewrites, applied tolerantly but never ambiguously.
 * (Interface stub; the implementation lands with the patch module.)
 */
export type ApplyFailure = 'no_edit' | 'no_match' | 'ambiguous' | 'outside_block' | 'identical' | 'bad_diff';

export type ApplyResult =
  | { ok: true; code: string; edits: number; format: 'search-replace' | 'unified-diff' | 'rewrite' }
  /** `message` is written for the model: what did not apply and the closest lines of the program. */
  | { ok: false; reason: ApplyFailure; message: string };

export interface ApplyOptions {
  /** Accept a fenced code block that rewrites a whole EVOLVE-BLOCK. */
  allowRewrite?: boolean;
}

export function applyAnswer(parent: string, answer: string, options: ApplyOptions = {}): ApplyResult {
  void parent;
  void answer;
  void options;
  return { ok: false, reason: 'no_edit', message: 'not implemented yet' };
}
