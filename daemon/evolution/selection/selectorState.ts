/**
 * Checkpointed selector state is read back from disk, so `restore` validates it: a
 * malformed or foreign state is a clear error naming the selector, never a silent reset.
 */
import type * as z from 'zod';

export function parseSelectorState<T extends z.ZodType>(selector: string, schema: T, state: unknown): z.infer<T> {
  const parsed = schema.safeParse(state);
  if (!parsed.success) {
    const issues = parsed.error.issues
      .slice(0, 3)
      .map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`)
      .join('; ');
    throw new Error(`cannot restore ${selector} selector state: ${issues}`);
  }
  return parsed.data;
}
