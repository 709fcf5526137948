import { createTwoFilesPatch } from 'diff';

/**
 * The unified diff parent → child recorded in a child's lineage; `diff.applyPatch(parent, patch)`
 * gives the child back.
 */
export function unifiedDiff(parent: string, child: string, fileName = 'program'): string {
  return createTwoFilesPatch(`a/${fileName}`, `b/${fileName}`, parent, child);
}
