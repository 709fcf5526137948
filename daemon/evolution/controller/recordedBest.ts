/**
 * A run's best/ (and best-full/) checked against what the run recorded. The folder is a copy
 * for people and tools; the record is the journal (and the checkpoint that sums it up): the
 * best program by id, its reduction by id, and each program's code under its id, its content
 * hash. A best/ whose content hash is not the recorded one was altered after the run wrote it,
 * and is refused rather than handed out as the run's best.
 */
import * as fs from 'node:fs';
import { unbundleProgram } from '../../../shared/programFiles';
import { programId } from '../../../shared/programId';
import type { Program } from '../../../shared/evolution';
import type { RunManifest } from '../../../shared/runManifest';
import type { SelectorPlugin } from '../selection/ParentSelector';
import { loadRunState } from './loadRunState';
import { type BestFolder, DamagedRunError, type RunDir } from './runDir';
import { runLockHolder } from './runLock';

export interface RecordedBest {
  /** The best program as the run recorded it. */
  best: Program;
  /** Its reduction (what best/ holds once the run reduced its best; best-full/ then holds `best`). */
  reduced?: Program;
}

/** The best (and its reduction) as the run's record holds it, or undefined before the seed was measured. @throws DamagedRunError */
export function recordedBest(runDir: RunDir, manifest: RunManifest, selectors: readonly SelectorPlugin[] = []): RecordedBest | undefined {
  const { state } = loadRunState(runDir, manifest, undefined, selectors);
  const best = state.best;
  if (!best) return undefined;
  const reduced = state.bestReduction?.program;
  return { best, ...(reduced && { reduced }) };
}

/**
 * The program in `folder`, checked against `recorded`: best/ must hold the reduction when there
 * is one, else the best; best-full/ the best. Undefined when the folder holds no program yet.
 * @throws DamagedRunError naming the folder, both content hashes and what to do.
 */
export function checkedBestFolder(runDir: RunDir, manifest: RunManifest, recorded: RecordedBest | undefined, folder: BestFolder): string | undefined {
  const code = runDir.readBestProgram(manifest, folder);
  if (code === undefined) return undefined;
  const expected = folder === 'best' && recorded?.reduced ? recorded.reduced : recorded?.best;
  const actual = programId(code);
  if (expected?.id === actual) return code;
  const where = alteredFiles(runDir, manifest, folder, expected?.code).join(', ');
  const live = runLockHolder(runDir) !== undefined ? ` (the run is in use by process ${runLockHolder(runDir)}: if it is writing a new best right now, try again)` : '';
  const problem = expected
    ? `${where.includes(', ') ? 'hold' : 'holds'} a program whose content hash is ${actual.slice(0, 12)}, not the ${folder === 'best' && recorded?.reduced ? 'reduced best' : 'best'} ${expected.id.slice(0, 12)} the run recorded in its journal: it was altered after the run wrote it${live}`
    : `${where.includes(', ') ? 'hold' : 'holds'} a program, but the run's journal records no best yet: it was written by something other than the run${live}`;
  throw new DamagedRunError(where, problem, `nothing was printed; \`peagen evolve best ${runDir.id} --recorded\` prints the program the run recorded (and --output writes it)`);
}

/** The files of `folder` that differ from the recorded program's (all of them when there is none to compare). */
function alteredFiles(runDir: RunDir, manifest: RunManifest, folder: BestFolder, expected: string | undefined): string[] {
  const files = runDir.bestFiles(manifest, folder);
  if (!manifest.programFiles || expected === undefined) return files;
  let texts: Map<string, string>;
  try {
    texts = new Map(unbundleProgram(expected).map((file) => [file.path, file.text]));
  } catch {
    return files;
  }
  const altered = files.filter((file, index) => {
    try {
      return fs.readFileSync(file, 'utf8') !== texts.get(manifest.programFiles![index]!);
    } catch {
      return true;
    }
  });
  return altered.length > 0 ? altered : files;
}
