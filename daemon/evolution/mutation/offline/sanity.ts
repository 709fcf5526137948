/**
 * A cheap syntax sanity check for offline mutants: brackets balanced and of matching kinds,
 * strings closed, and (Python) indentation consistent: a block after every `:` line, no
 * unexpected indent, every dedent back to an enclosing level. It rejects most broken mutants
 * without running an interpreter; the evaluator remains the judge of the rest.
 */
import { indentWidth, isBlank } from '../../../../shared/lines';
import { initialScanState, scanLine, type Syntax } from '../scan';

export function looksValid(lines: readonly string[], syntax: Syntax): boolean {
  const state = initialScanState();
  const indents = [0];
  let expectBlock = false;
  let inLogicalLine = false;
  for (const line of lines) {
    const startsLogical = !inLogicalLine;
    const scan = scanLine(line, state, syntax);
    if (scan.broken) return false;
    if (syntax === 'python' && startsLogical && !scan.commentOnly && !isBlank(line)) {
      const width = indentWidth(line);
      const top = indents[indents.length - 1]!;
      if (expectBlock) {
        if (width <= top) return false;
        indents.push(width);
        expectBlock = false;
      } else if (width > top) return false;
      else if (width < top) {
        while (indents.length > 1 && indents[indents.length - 1]! > width) indents.pop();
        if (indents[indents.length - 1] !== width) return false;
      }
    }
    inLogicalLine = state.brackets.length > 0 || state.openString !== null || scan.endsWithBackslash;
    if (syntax === 'python' && !inLogicalLine && !scan.commentOnly && scan.endsWithColon) expectBlock = true;
  }
  return state.brackets.length === 0 && state.openString === null && !state.inBlockComment && !expectBlock;
}
