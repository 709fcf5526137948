/**
 * The one check for a relative path that names a file inside a folder: an example's files as
 * a client sends them, a multi-file program's files in run.json and in a bundle, the files a
 * task writes into a sandbox's workspace. Each of those is read back from something another
 * party could have written (a request, a queue entry, a file on disk), and a path from there
 * is joined to a folder of ours only once it has passed this check.
 *
 * Safe means: `/` between folders (never `\`), not absolute (no leading `/`, no drive letter),
 * no empty, `.` or `..` part, no NUL or other control character, and not longer than
 * MAX_RELATIVE_PATH_LENGTH. Such a path joined to a folder always stays inside it (symbolic
 * links aside: the folders it is joined to are our own).
 */
import * as z from 'zod';

export const MAX_RELATIVE_PATH_LENGTH = 1024;

/** Why `path` is not a safe relative path (see above), or null when it is one. */
export function relativePathProblem(path: string): string | null {
  if (path === '') return 'the path is empty';
  const shown = JSON.stringify(path.length > 200 ? `${path.slice(0, 200)}...` : path);
  if (path.length > MAX_RELATIVE_PATH_LENGTH) return `${shown} is longer than ${MAX_RELATIVE_PATH_LENGTH} characters`;
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
  if (path.includes('\\') || /[\u0000-\u001f\u007f]/.test(path)) return `${shown} holds a backslash or a control character such as NUL (use / between folders)`;
  if (path.startsWith('/') || /^[A-Za-z]:/.test(path)) return `${shown} is absolute (give it relative to its folder)`;
  if (path.split('/').some((part) => part === '' || part === '.' || part === '..')) return `${shown} has an empty, "." or ".." part (give a plain path inside its folder)`;
  return null;
}

export function isSafeRelativePath(path: string): boolean {
  return relativePathProblem(path) === null;
}

/** A safe relative path (relativePathProblem), as schemas at every boundary check it. */
export const SafeRelativePathSchema = z.string().superRefine((path, context) => {
  const problem = relativePathProblem(path);
  if (problem) context.addIssue({ code: 'custom', message: `not a safe relative path: ${problem}` });
});

/**
 * Files by safe relative path (`{ "src/a.py": ... }`), at most `maxFiles` of them. The count is
 * checked before anything else looks at the entries, so a request naming a million files is
 * refused at once instead of being walked; then each path is checked, and the refusal names
 * the path and why.
 */
export function filesByRelativePath<V extends z.ZodType>(value: V, maxFiles: number) {
  return z
    .custom<unknown>((files) => typeof files !== 'object' || files === null || Object.keys(files).length <= maxFiles, {
      message: `more than ${maxFiles} files (send fewer: keep data sets and generated files out of it)`,
    })
    .pipe(
      z.record(z.string(), value).superRefine((files, context) => {
        for (const path of Object.keys(files)) {
          const problem = relativePathProblem(path);
          if (problem) context.addIssue({ code: 'custom', path: [path], message: `not a safe relative path: ${problem}` });
        }
      }),
    );
}
