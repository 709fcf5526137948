/**
 * A program made of several files, as one text. Everything that treats a program as opaque
 * text (its id, EvoDB, checkpoints, the journal, replay, line diffs) keeps working on the
 * bundle, and the places that must see files (the sandbox workspace, the prompt, patches,
 * syntax checks, best/, the editor's proposal) unbundle it here.
 *
 * The form: for each file in order, one header line naming its path, then its text byte for
 * byte. Headers carry no line counts, so an edit inside one file changes no other line of the
 * bundle (line diffs of two bundles show only the edited lines). A file whose text does not end
 * with a line break gets one added after it and says so in its header, so the next header
 * starts a line and the round trip is exact (CRLF and lone CRs are file text like any other).
 * A file that holds a line starting like a header cannot be bundled: it would be ambiguous.
 *
 * A single-file program is never a bundle: its code is the file's text, as before.
 */
import { relativePathProblem } from './relativePath';

export interface ProgramFile {
  /** Relative path with `/` separators, inside the example directory. */
  path: string;
  text: string;
}

const HEADER_PREFIX = '#==> peagen-file ';
const NO_FINAL_NEWLINE = ' no-final-newline';
const HEADER = /^#==> peagen-file ("(?:[^"\\]|\\.)*")( no-final-newline)?$/;

export class ProgramBundleError extends Error {}

/** Why `path` cannot name a file of a program, or null when it can: the one check of shared/relativePath.ts. */
export const programPathProblem = relativePathProblem;

/** Whether `code` is a multi-file bundle (a single file's text never starts with a header). */
export function isProgramBundle(code: string): boolean {
  return code.startsWith(`${HEADER_PREFIX}"`);
}

/** The bundle of `files`, in their order; throws ProgramBundleError when it would be ambiguous. */
export function bundleProgram(files: readonly ProgramFile[]): string {
  if (files.length === 0) throw new ProgramBundleError('a program needs at least one file');
  const seen = new Set<string>();
  let bundle = '';
  for (const file of files) {
    const problem = relativePathProblem(file.path);
    if (problem) throw new ProgramBundleError(`cannot bundle the program: ${problem}`);
    if (seen.has(file.path)) throw new ProgramBundleError(`cannot bundle the program: "${file.path}" is named twice`);
    seen.add(file.path);
    const clash = file.text.split(/\r\n|\n|\r/).findIndex((line) => line.startsWith(HEADER_PREFIX.trimEnd()));
    if (clash >= 0) {
      throw new ProgramBundleError(`cannot bundle the program: line ${clash + 1} of ${file.path} starts with "${HEADER_PREFIX.trimEnd()}", which separates the files of a multi-file program; change that line`);
    }
    const closed = file.text === '' || file.text.endsWith('\n');
    bundle += `${HEADER_PREFIX}${JSON.stringify(file.path)}${closed ? '' : NO_FINAL_NEWLINE}\n${file.text}${closed ? '' : '\n'}`;
  }
  return bundle;
}

/** The files of a bundle, exactly as bundled; throws ProgramBundleError for text that is not one. */
export function unbundleProgram(code: string): ProgramFile[] {
  if (!isProgramBundle(code)) throw new ProgramBundleError('the program is not a multi-file bundle (it does not start with a file header)');
  const files: ProgramFile[] = [];
  let current = null as { path: string; open: boolean; start: number } | null;
  const close = (end: number): void => {
    if (!current) return;
    let text = code.slice(current.start, end);
    // Read leniently: a bundle edited as text (a line diff undone, say) still names its files.
    if (current.open && text.endsWith('\n')) text = text.slice(0, -1);
    files.push({ path: current.path, text });
  };
  for (let at = 0; at < code.length; ) {
    const lineEnd = code.indexOf('\n', at);
    const end = lineEnd === -1 ? code.length : lineEnd;
    const line = code.slice(at, end);
    if (line.startsWith(HEADER_PREFIX.trimEnd())) {
      const match = HEADER.exec(line);
      if (!match || lineEnd === -1) throw new ProgramBundleError(`malformed file header in the bundle: ${JSON.stringify(line.slice(0, 200))}`);
      close(at);
      let path: string;
      try {
        path = JSON.parse(match[1]!) as string;
      } catch {
        throw new ProgramBundleError(`malformed file path in the bundle: ${match[1]!.slice(0, 200)}`);
      }
      const problem = relativePathProblem(path);
      if (problem) throw new ProgramBundleError(`the bundle names a file it cannot hold: ${problem}`);
      if (files.some((file) => file.path === path) || current?.path === path) throw new ProgramBundleError(`the bundle names ${path} twice`);
      current = { path, open: match[2] !== undefined, start: lineEnd + 1 };
    }
    at = end + 1;
  }
  close(code.length);
  return files;
}

/** The files of a program given its file list: a bundle's files, or the one file's text. */
export function programFilesOf(code: string, paths: readonly string[]): ProgramFile[] {
  if (paths.length === 1 && !isProgramBundle(code)) return [{ path: paths[0]!, text: code }];
  return unbundleProgram(code);
}
