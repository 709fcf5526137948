/**
 * `peagen evolve apply [RUN]`: a run's best (its reduction, unless `full`) written back into
 * the user's own files, or the patch that would do it. Where a program goes back is what the
 * run's example records (programDestinations): for an example `peagen init` made, or an Evolve
 * Selection job, the user's file that the program was made from, with the markers Peagen added
 * left out (shared/programWriteBack.ts, as the editor's Accept); for a hand-written example,
 * the example's own program files, whole.
 *
 * Nothing is written unless every file is the one the run began from: a file edited since
 * (the text recorded when the example was made, or the run's seed) is refused by name, with
 * what to do. So is a run that has not ended, a run whose confirmation found no measurable
 * improvement, and a best that was never confirmed (unless asked for by name: `unconfirmed`).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { NO_MEASURABLE_IMPROVEMENT, type Program } from '../../shared/evolution';
import { confidenceText, isConfirmedGain, measuredGain } from '../../shared/gainText';
import { unbundleProgram } from '../../shared/programFiles';
import { type FileChange, regionProgramFileText, unifiedPatch } from '../../shared/programWriteBack';
import type { RunManifest } from '../../shared/runManifest';
import { loadRunState } from '../evolution/controller/loadRunState';
import { readReport, type RunReport } from '../evolution/controller/report';
import type { RunDir } from '../evolution/controller/runDir';
import { runLockHolder } from '../evolution/controller/runLock';
import type { SelectorPlugin } from '../evolution/selection/ParentSelector';
import { LISTED_TESTS_FILE } from '../evaluation/scaffold/scaffoldExample';
import { PEAGEN_DIR } from './peagenFolder';
import { readSelectionJob, sha256 } from './selectionJob';

/** The run cannot be applied as asked; the message names the run or file and what to do. */
export class ApplyRefused extends Error {
  override name = 'ApplyRefused';
}

/**
 * The run worked but has nothing to take home: its best, measured again beside the seed, is
 * within the noise. Not a failure of the command (a run that found nothing is an answer), so
 * the CLI says it and exits 0, writing nothing.
 */
export class NothingToApply extends ApplyRefused {
  override name = 'NothingToApply';
}

export interface ApplyRequest {
  runDir: RunDir;
  /** The user's project: every file written lies inside it, and the patch names files relative to it. */
  projectDir: string;
  /** The unreduced best instead of its reduction. */
  full?: boolean;
  /** Write a best that was never confirmed (measured again beside the seed) all the same. */
  unconfirmed?: boolean;
  selectors?: readonly SelectorPlugin[];
}

/** One user file the program goes back into. */
export interface AppliedFile extends FileChange {
  /** Absolute path. */
  file: string;
  /** The file's text now (undefined: it does not exist any more). */
  current: string | undefined;
}

export interface ApplyPlan {
  runId: string;
  /** Which program: the reduced best, or the full best (asked for, or the run did not reduce it). */
  program: { id: string; which: 'reduced' | 'full'; objective: number | null };
  /** The reduction's one line ("speedup 2.6x with 3 changed lines, 2.7x with all 14"), when the run reduced its best. */
  reduction?: string;
  files: AppliedFile[];
  /** The files (patch paths) whose text is no longer the one the run began from. */
  changedSinceRun: string[];
  /** `git apply`-able patch from the text the run began from to the program's. */
  patch: string;
  /** The project's tests its evaluation left out (init's LISTED_TESTS_FILE): none checked the program. */
  leftOutTests?: { tests: number; file: string };
}

/** What `apply` would do, checked: refused when the run cannot be applied at all. */
export function planApply(request: ApplyRequest): ApplyPlan {
  const { runDir } = request;
  const manifest = runDir.readManifest();
  const holder = runLockHolder(runDir);
  if (holder !== undefined) {
    throw new ApplyRefused(`run ${runDir.id} is still running (process ${holder}): its best is reduced and confirmed as it ends; apply it then (Ctrl-C in its terminal stops it with a checkpoint)`);
  }
  const report = readReport(runDir);
  if (!report) {
    throw new ApplyRefused(
      `run ${runDir.id} has not ended (it has no report: it was killed): continue it to its end with \`peagen evolve run --resume ${runDir.id}\`, or take its best so far with \`peagen evolve best ${runDir.id}\``,
    );
  }
  refuseUnconfirmed(report, runDir.id);
  const { state } = loadRunState(runDir, manifest, undefined, request.selectors ?? []);
  const best = state.best;
  if (!best || best.objective === null) throw new ApplyRefused(`run ${runDir.id} has no correct best program: there is nothing to apply`);
  const seed = state.seedId ? (state.archive.get(state.seedId) ?? runDir.getProgram(state.seedId)) : undefined;
  if (!seed) throw new ApplyRefused(`run ${runDir.id} records no seed program, so what its best changes cannot be told: nothing to apply`);
  const reduced = request.full ? undefined : state.bestReduction?.program;
  const program: Program = reduced ?? best;
  const files = programDestinations(manifest, seed.code, program.code, request.projectDir, runDir.id);
  if (!request.unconfirmed && files.some((file) => file.after !== file.current) && !isConfirmedGain(report.confirmation)) {
    // An in-run figure is one noisy measurement: the README's promise is a gain measured again, with its interval.
    throw new ApplyRefused(
      `run ${runDir.id}'s best (${best.objective.toFixed(3)} in the run) was never measured again beside your code, so its gain has no interval and may be noise: ${
        report.confirmation ? 'its confirmation ended without a verdict' : 'the run ended before confirming it (interrupted, or --confirm-pairs 0)'
      }. Confirm it by running again (peagen evolve run … --resume ${runDir.id} measures the best as it ends), or write it anyway with \`peagen evolve apply ${runDir.id} --unconfirmed\``,
    );
  }
  const changedSinceRun = files.filter((file) => file.current !== file.before).map((file) => file.path);
  return {
    runId: runDir.id,
    program: { id: program.id, which: reduced ? 'reduced' : 'full', objective: program.objective },
    ...(report.reduction?.summary && { reduction: report.reduction.summary }),
    files,
    changedSinceRun,
    patch: unifiedPatch(files),
    ...leftOutTests(manifest.exampleDir),
  };
}

/** The tests init left out of the example's evaluation, when it left some out (see LISTED_TESTS_FILE). */
function leftOutTests(exampleDir: string): Pick<ApplyPlan, 'leftOutTests'> {
  const file = path.join(exampleDir, LISTED_TESTS_FILE);
  try {
    const tests = (JSON.parse(fs.readFileSync(file, 'utf8')) as { left_out?: unknown }).left_out;
    return Array.isArray(tests) && tests.length > 0 ? { leftOutTests: { tests: tests.length, file } } : {};
  } catch {
    return {}; // none left out (or the file is not init's: the evaluator says so at every evaluation)
  }
}

/**
 * Writes the plan's files, all or none: refused, naming the file and what to do, when one of
 * them is not the text the run began from. Returns the files written (none when the user's
 * files already hold the program).
 */
export function writeApply(plan: ApplyPlan): AppliedFile[] {
  // Applied already (or a best that changes nothing): nothing to write, nothing to refuse.
  if (plan.files.every((file) => file.current === file.after)) return [];
  const changed = plan.files.filter((file) => file.current !== file.before);
  if (changed.length > 0) {
    const names = changed.map((file) => file.path).join(', ');
    throw new ApplyRefused(
      `${names} ${changed.length > 1 ? 'were' : 'was'} ${changed.some((file) => file.current === undefined) ? 'removed or ' : ''}changed since run ${plan.runId} began (${changed.length > 1 ? 'their texts are' : 'its text is'} not the one the run evolved), so nothing was written: ` +
        `undo your edits (git stash) and apply again, or take the change as a patch, which applies around edits elsewhere in the file: \`peagen evolve apply ${plan.runId} --diff | git apply\``,
    );
  }
  const writes = plan.files.filter((file) => file.after !== file.current);
  // Written in place (not renamed over): the file keeps its mode, links and owner.
  for (const file of writes) fs.writeFileSync(file.file, file.after);
  return writes;
}

/**
 * The user files `code` goes back into, with their texts: the file a selection job or an
 * init'ed example was made from (its block's inner lines at the recorded lines), or the
 * example's own program files (`seed` is their text as the run began).
 */
function programDestinations(manifest: RunManifest, seed: string, code: string, projectDir: string, runId: string): AppliedFile[] {
  const project = path.resolve(projectDir);
  const job = readSelectionJob(manifest.exampleDir);
  if (job) {
    const { record, baseText } = job;
    if (sha256(baseText) !== record.baseTextHash) {
      throw new ApplyRefused(`${path.join(manifest.exampleDir, 'base.txt')} is not the text ${record.sourceFile} had when the example was made (its hash differs from selection.json's): make the example again (peagen init)`);
    }
    if (!path.isAbsolute(record.sourceFile)) throw new ApplyRefused(`the example ${manifest.exampleDir} names its source file as "${record.sourceFile}", not a path on this machine: apply it in the editor that made it`);
    let after: string;
    try {
      after = regionProgramFileText(baseText, record, code);
    } catch (error) {
      // The example's program lost the block its record names (its markers were edited by hand).
      throw new ApplyRefused(`run ${runId}'s program cannot be put back into ${record.sourceFile}: ${(error as Error).message}; take it whole with \`peagen evolve best ${runId}\``);
    }
    return [destination(record.sourceFile, project, baseText, after)];
  }
  if (path.resolve(manifest.exampleDir).split(path.sep).includes(PEAGEN_DIR)) {
    throw new ApplyRefused(
      `run ${runId}'s example ${manifest.exampleDir} is Peagen's copy, made by an older peagen init that did not record which file of yours it came from: ` +
        `its program (with the markers init added) is \`peagen evolve best ${runId}\`; run peagen init again (or move the example out of ${PEAGEN_DIR}/) to apply a run`,
    );
  }
  if (!manifest.programFiles) return [destination(path.join(manifest.exampleDir, manifest.program), project, seed, code)];
  const before = new Map(unbundleProgram(seed).map((file) => [file.path, file.text]));
  const after = new Map(unbundleProgram(code).map((file) => [file.path, file.text]));
  return manifest.programFiles.map((name) => destination(path.join(manifest.exampleDir, ...name.split('/')), project, before.get(name) ?? '', after.get(name) ?? ''));
}

/** One destination, refused outside the project (a run's files name it: never written anywhere else). */
function destination(file: string, project: string, before: string, after: string): AppliedFile {
  const absolute = path.resolve(file);
  // Where a write would land: a symbolic link is followed, so a link out of the project is outside it.
  const real = fs.existsSync(absolute) ? realDir(absolute) : path.join(realDir(path.dirname(absolute)), path.basename(absolute));
  const inProject = path.relative(realDir(project), real);
  if (inProject === '' || inProject.startsWith('..') || path.isAbsolute(inProject)) {
    const where = real === absolute ? '' : ` (a link to ${real})`;
    throw new ApplyRefused(`${absolute}${where} is outside the project ${project}: apply writes only inside it; run apply from the folder that holds the file (or name it with --project)`);
  }
  let current: string | undefined;
  let bytes: Buffer | undefined;
  try {
    bytes = fs.readFileSync(absolute);
    current = bytes.toString('utf8');
  } catch {
    current = undefined;
  }
  // The run read the file as UTF-8 text: bytes that are not would be changed outside the change.
  if (bytes && current !== undefined && !Buffer.from(current, 'utf8').equals(bytes)) {
    throw new ApplyRefused(`${absolute} is not UTF-8 text, and apply writes text: it would change bytes outside the program's change; take the change with --diff and apply it with a tool that keeps the file's encoding`);
  }
  return { file: absolute, path: inProject.split(path.sep).join('/'), before, after, current };
}

/** The path with its symbolic links resolved (as it is, when it does not exist). */
function realDir(dir: string): string {
  try {
    return fs.realpathSync(dir);
  } catch {
    return path.resolve(dir);
  }
}

/**
 * A run whose seed and best were measured again and found within each other's noise has no
 * gain to take home: its report's `confirmation.verdict` says "no measurable improvement".
 */
function refuseUnconfirmed(report: RunReport, runId: string): void {
  const confirmation = report.confirmation;
  if (confirmation?.verdict !== NO_MEASURABLE_IMPROVEMENT) return;
  throw new NothingToApply(
    `nothing to apply: run ${runId}'s best, ${confidenceText(confirmation) === '[not measured again]' ? 'not measured again' : `measured again beside your code, is ${measuredGain(confirmation)}`}: ${NO_MEASURABLE_IMPROVEMENT}${confirmation.reason ? ` (${confirmation.reason})` : ''}, so your files are left as they are (\`peagen evolve best ${runId}\` prints the best all the same)`,
  );
}
