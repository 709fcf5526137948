/**
 * Checkpoint files: one JSON document `{ version, writtenAt, data }`, replaced atomically.
 * A writer never touches the previous checkpoint until the new one is complete on disk: it
 * writes a temp file beside it, fsyncs it, renames it over the target and fsyncs the
 * directory. A crash at any point leaves either the old or the new checkpoint, plus at worst
 * a temp file that readers ignore and the next write removes. One writer per checkpoint file
 * is assumed (a run directory belongs to the daemon holding the state lock).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as z from 'zod';

/** The checkpoint format this Peagen writes and the newest it reads. */
export const CHECKPOINT_VERSION = 1;

export type CheckpointProblem = 'missing' | 'unreadable' | 'corrupt' | 'invalid' | 'newer';

export class CheckpointError extends Error {
  constructor(
    readonly problem: CheckpointProblem,
    message: string,
  ) {
    super(message);
    this.name = 'CheckpointError';
  }
}

const EnvelopeSchema = z.object({
  version: z.number().int().positive(),
  writtenAt: z.string(),
  data: z.unknown(),
});

const TEMP_MARK = '.tmp-';
let tempCounter = 0;

function tempPrefix(file: string): string {
  return `${path.basename(file)}${TEMP_MARK}`;
}

/** Best effort: make the rename itself durable. Some platforms cannot fsync a directory. */
function fsyncDirectory(dir: string): void {
  let fd: number | undefined;
  try {
    fd = fs.openSync(dir, 'r');
    fs.fsyncSync(fd);
  } catch {
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** Remove temp files an interrupted write left beside `file` (never the checkpoint itself). */
export function removeStaleCheckpointTemps(file: string, keep?: string): void {
  const dir = path.dirname(file);
  const prefix = tempPrefix(file);
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const full = path.join(dir, name);
    if (name.startsWith(prefix) && full !== keep) fs.rmSync(full, { force: true });
  }
}

/**
 * Atomically replace `file` with a checkpoint holding `data` (anything JSON can carry).
 * @throws when data cannot be serialised or the directory cannot be written; the previous
 * checkpoint is intact in either case.
 */
export function writeCheckpoint(file: string, data: unknown): void {
  if (data === undefined) throw new CheckpointError('invalid', `checkpoint ${file}: no data to write`);
  const body = `${JSON.stringify({ version: CHECKPOINT_VERSION, writtenAt: new Date().toISOString(), data })}\n`;
  const temp = path.join(path.dirname(file), `${tempPrefix(file)}${process.pid}-${++tempCounter}`);
  const fd = fs.openSync(temp, 'wx', 0o644);
  try {
    try {
      fs.writeFileSync(fd, body);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(temp, file);
  } catch (error) {
    fs.rmSync(temp, { force: true });
    throw error;
  }
  fsyncDirectory(path.dirname(file));
  removeStaleCheckpointTemps(file);
}

/**
 * The data of the checkpoint at `file`.
 * @throws CheckpointError: `missing`, `unreadable`, `corrupt` (not JSON), `invalid` (not a
 * checkpoint), or `newer` (written by a newer Peagen).
 */
export function readCheckpoint(file: string): unknown {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new CheckpointError('missing', `no checkpoint at ${file}`);
    throw new CheckpointError('unreadable', `cannot read checkpoint ${file}: ${(error as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new CheckpointError('corrupt', `checkpoint ${file} is corrupt (not valid JSON: ${(error as Error).message})`);
  }
  const envelope = EnvelopeSchema.safeParse(json);
  if (!envelope.success || !('data' in (json as object))) {
    throw new CheckpointError('invalid', `${file} is not a Peagen checkpoint (expected { version, writtenAt, data })`);
  }
  const { version, data } = envelope.data;
  if (version > CHECKPOINT_VERSION) {
    throw new CheckpointError(
      'newer',
      `checkpoint ${file} was written by a newer Peagen (format ${version}; this Peagen reads up to ${CHECKPOINT_VERSION}): upgrade Peagen to resume it`,
    );
  }
  return data;
}
