/**
 * `peagen evolve merge`: the programs of other runs of the same example join one run's
 * archive (EvoDB.merge: every program it lacks, each elite competing for its niche), so that
 * resuming that run breeds from the best of all of them.
 *
 * The merge is one event in the target's journal (MergeEvent, carrying the programs), so a
 * resume or a replay of the target meets it exactly where it happened, and the journal alone
 * still rebuilds the run. The runs are checked as a resume checks a run (readable run.json,
 * checkpoint and journal, a Peagen that can continue them) and against each other (same
 * example, evaluator arguments, objective and niches, same seed program); all of them are
 * locked while they are read, so none is running or being resumed meanwhile.
 *
 * Order of the writes, each complete or absent after a crash: the programs' files, then the
 * journal event (the merge happened once its line is whole; a torn line is dropped as a resume
 * drops it), then the checkpoint (until it is replaced, a resume applies the event from the
 * journal), then best/ and the report (derived: a resume rewrites them).
 */
import * as fs from 'node:fs';
import type { Program } from '../../../shared/evolution';
import { loadExample } from '../../evaluation/example';
import { CheckpointError, writeCheckpoint } from '../evodb/checkpoint';
import { Journal } from '../evodb/journal';
import type { MergeEvent } from '../runEvents';
import { type Checkpoint, type LoadedRunState, loadRunState } from './loadRunState';
import { buildReport, readReport, writeReport } from './report';
import type { RunManifest } from '../../../shared/runManifest';
import { DamagedRunError, RunDir } from './runDir';
import { lockRun, type RunLock } from './runLock';
import { SEARCH_POLICY } from './RunState';
import type { SelectorPlugin } from '../selection/ParentSelector';

/** The merge cannot be made as asked; nothing was written. The message says what to do. */
export class MergeRefused extends Error {
  override name = 'MergeRefused';
}

export interface MergeRequest {
  /** The run merged into (id or directory); the only one written. */
  into: string;
  /** The runs merged from (ids or directories), in this order; only read. */
  sources: string[];
  /** Where `.peagen/runs/` is (for run ids). */
  projectDir: string;
  /** The allowed plugins' selectors (for runs whose selector a plugin provides). */
  selectors?: readonly SelectorPlugin[];
}

interface Summary {
  id: string;
  objective: number;
}

export interface MergeResult {
  runId: string;
  runDir: string;
  objectiveName: string;
  sources: { runId: string; dir: string; programs: number; added: number }[];
  /** Programs new to the target (0: it held them all already, and nothing was written). */
  added: number;
  niches: { before: number; after: number };
  best: { before: Summary | null; after: (Summary & { from: string }) | null };
  /** The journal sequence number of the merge event (absent when nothing was added). */
  journalSeq?: number;
  /** Whether report.md/report.json were rewritten (a run killed before its end has none until resumed). */
  report: boolean;
}

interface OpenRun {
  runDir: RunDir;
  manifest: RunManifest;
  loaded: LoadedRunState;
}

export function mergeRuns(request: MergeRequest): MergeResult {
  const target = resolve(request.into, request.projectDir, '--into');
  const sources = request.sources.map((run) => resolve(run, request.projectDir, 'source'));
  checkDistinct(target, sources);
  const locks: RunLock[] = [];
  try {
    for (const runDir of [target, ...sources]) {
      try {
        locks.push(lockRun(runDir));
      } catch (error) {
        throw new MergeRefused(`${(error as Error).message}; nothing was merged`);
      }
    }
    const into = open(target, request.selectors);
    checkResumable(into);
    const from = sources.map((runDir) => open(runDir, request.selectors));
    for (const source of from) checkCompatible(into, source);
    return merge(into, from);
  } finally {
    for (const lock of locks) lock.release();
  }
}

function resolve(run: string, projectDir: string, role: string): RunDir {
  try {
    return RunDir.resolve(run, projectDir);
  } catch (error) {
    throw new MergeRefused(`${role} ${(error as Error).message}`);
  }
}

/** One directory, however it was named (an id, a path, a symlink). */
function identity(runDir: RunDir): string {
  return fs.realpathSync(runDir.dir);
}

function checkDistinct(target: RunDir, sources: RunDir[]): void {
  const into = identity(target);
  const seen = new Set<string>();
  for (const source of sources) {
    const dir = identity(source);
    if (dir === into) {
      throw new MergeRefused(`run ${source.id} is both --into and a source: name the run to merge into once, with --into, and only the other runs as sources`);
    }
    if (seen.has(dir)) throw new MergeRefused(`run ${source.id} is named twice as a source: name each run once`);
    seen.add(dir);
  }
}

/** A run's manifest and state, read as a resume reads them (checkpoint, then the journal after it). */
function open(runDir: RunDir, selectors: readonly SelectorPlugin[] = []): OpenRun {
  let manifest: RunManifest;
  try {
    manifest = runDir.readManifest();
  } catch (error) {
    throw new MergeRefused(`run ${runDir.id}: ${(error as Error).message}; nothing was merged`);
  }
  let loaded: LoadedRunState;
  try {
    loaded = loadRunState(runDir, manifest, undefined, selectors);
  } catch (error) {
    const message = (error as Error).message;
    const damaged = (error instanceof CheckpointError && error.problem !== 'newer' && error.problem !== 'missing') || (error instanceof DamagedRunError && error.file === runDir.checkpointFile);
    throw new MergeRefused(
      damaged
        ? `run ${runDir.id}: ${message}; nothing was merged. Its journal holds every event: move ${runDir.checkpointFile} aside and the state is rebuilt from the journal (\`peagen evolve replay ${runDir.id} --no-measure\` checks the journal replays)`
        : `run ${runDir.id}: its state cannot be read (${message}); nothing was merged`,
    );
  }
  if (!loaded.state.seedId) {
    throw new MergeRefused(`run ${runDir.id} has no programs yet (it stopped before its seed program was evaluated); resume it or leave it out; nothing was merged`);
  }
  return { runDir, manifest, loaded };
}

/** What a resume needs of the run merged into: the merge is pointless if it cannot go on. */
function checkResumable(run: OpenRun): void {
  const policy = run.manifest.settings.policy ?? 1;
  if (policy !== SEARCH_POLICY) {
    throw new MergeRefused(
      `run ${run.runDir.id} was planned by Peagen's search policy ${policy} and this Peagen plans with policy ${SEARCH_POLICY}: it cannot be resumed here, so nothing is merged into it; merge into a run made by this Peagen (start one with \`peagen evolve run ${run.manifest.exampleDir}\`)`,
    );
  }
  try {
    loadExample(run.manifest.exampleDir);
  } catch (error) {
    throw new MergeRefused(`run ${run.runDir.id} cannot be resumed: its example does not load (${(error as Error).message}); nothing was merged`);
  }
}

/**
 * Programs compare only when one evaluator measured them alike and one grid placed them: the
 * same example (directory, program, seed program), evaluator arguments, objective and niches.
 * Selector, mutator, seed and island count may differ: runs that searched differently are
 * what a merge is for.
 */
function checkCompatible(into: OpenRun, source: OpenRun): void {
  const a = into.manifest;
  const b = source.manifest;
  const pair = `run ${source.runDir.id} cannot be merged into run ${into.runDir.id}`;
  const advice = 'merge only runs of one example measured the same way (`peagen evolve list` shows each run\'s example); nothing was merged';
  if (a.exampleDir !== b.exampleDir || a.exampleName !== b.exampleName || a.program !== b.program || String(a.programFiles) !== String(b.programFiles)) {
    throw new MergeRefused(`${pair}: it evolved ${b.program} of the example ${b.exampleName} (${b.exampleDir}), the other ${a.program} of ${a.exampleName} (${a.exampleDir}); ${advice}`);
  }
  if (JSON.stringify(a.evaluatorArgs) !== JSON.stringify(b.evaluatorArgs)) {
    throw new MergeRefused(`${pair}: its evaluator ran with ${describeArgs(b.evaluatorArgs)}, the other's with ${describeArgs(a.evaluatorArgs)} (--quick measures smaller inputs), so their objectives do not compare; ${advice}`);
  }
  if (a.settings.direction !== b.settings.direction || a.settings.objectiveName !== b.settings.objectiveName) {
    throw new MergeRefused(
      `${pair}: it ${b.settings.direction}s ${b.settings.objectiveName}, the other ${a.settings.direction}s ${a.settings.objectiveName} (the example's objective changed between them); ${advice}`,
    );
  }
  if (JSON.stringify(a.settings.features ?? null) !== JSON.stringify(b.settings.features ?? null)) {
    throw new MergeRefused(
      `${pair}: their niches differ (${a.settings.features === undefined || b.settings.features === undefined ? 'one of them was made before Peagen binned Python and JavaScript programs by their structure, or ' : ''}the example's "features" changed between them: ${JSON.stringify(b.settings.features ?? 'the objective x code length grid')} against ${JSON.stringify(a.settings.features ?? 'the objective x code length grid')}), so their elites do not compare niche by niche; ${advice}`,
    );
  }
  if (source.loaded.state.seedId !== into.loaded.state.seedId) {
    throw new MergeRefused(`${pair}: they started from different seed programs (${b.program} changed between them), so one evaluator may not have measured them alike; ${advice}`);
  }
}

function describeArgs(args: readonly string[]): string {
  return args.length === 0 ? 'no extra arguments' : args.join(' ');
}

function merge(into: OpenRun, from: OpenRun[]): MergeResult {
  const { runDir, manifest } = into;
  const state = into.loaded.state;
  // Programs the journal's tail admitted may not have reached programs/ (a run killed between
  // the two writes): the checkpoint about to be written names them, so they are stored first.
  for (const program of state.drainAdmitted()) runDir.putProgram(program);
  const bestBefore = summary(state.best);
  const nichesBefore = state.archive.niches().length;

  // Each source's programs the target lacks, once, in the sources' order: the event's content.
  const taken = new Set<string>();
  const origin = new Map<string, string>();
  const programs: Program[] = [];
  const sources = from.map((source) => {
    const all = source.loaded.state.archive.all();
    let added = 0;
    for (const program of all) {
      if (taken.has(program.id) || state.knows(program.id)) continue;
      taken.add(program.id);
      origin.set(program.id, source.manifest.runId);
      programs.push(program);
      added++;
    }
    return { runId: source.manifest.runId, dir: source.runDir.dir, programs: all.length, added };
  });
  const result = (journalSeq: number | undefined, report: boolean): MergeResult => {
    const best = state.best;
    return {
      runId: manifest.runId,
      runDir: runDir.dir,
      objectiveName: manifest.settings.objectiveName,
      sources,
      added: programs.length,
      niches: { before: nichesBefore, after: state.archive.niches().length },
      best: { before: bestBefore, after: best && best.objective !== null ? { id: best.id, objective: best.objective, from: origin.get(best.id) ?? manifest.runId } : null },
      ...(journalSeq !== undefined && { journalSeq }),
      report,
    };
  };
  // Merging again what is already there changes nothing, and is not journaled.
  if (programs.length === 0) return result(undefined, false);

  const event: MergeEvent = { type: 'merge', sources: sources.map(({ runId, dir, added }) => ({ runId, dir, programs: added })), programs };
  const at = new Date().toISOString();
  state.applyMerge(event, at);
  for (const program of state.drainAdmitted()) runDir.putProgram(program);
  const journal = new Journal(runDir.journalFile);
  const journalSeq = journal.append({ ...event, at });
  const { elapsedMs, timeline } = into.loaded;
  const checkpoint: Checkpoint = { journalSeq, elapsedMs, timeline, state: state.snapshot() };
  writeCheckpoint(runDir.checkpointFile, checkpoint);
  const best = state.best;
  // A reduction of an earlier best no longer stands beside a merged-in best (no stale best-full/).
  if (best) runDir.writeReducedBest(manifest, best.code, state.bestReduction?.program?.code);
  return result(journalSeq, rewriteReport(into));
}

function summary(program: Program | undefined): Summary | null {
  return program && program.objective !== null ? { id: program.id, objective: program.objective } : null;
}

/**
 * The run's report with the merged archive and best, when it has one (it ended, or was
 * interrupted); the rest (its own evaluations, calls, time) is the run's as it was.
 */
function rewriteReport(run: OpenRun): boolean {
  const previous = readReport(run.runDir);
  if (!previous) return false;
  const state = run.loaded.state;
  const best = state.best;
  const progress = {
    ...previous.progress,
    best: best && best.objective !== null ? { id: best.id, objective: best.objective, generation: best.lineage.generation, confirmed: best.measurements.length > 1 } : null,
  };
  // The controller's own time is the run's, per proposal, as the previous report had it.
  const engineMs = previous.engineOverheadMsPerCandidate * state.counters.proposals;
  writeReport(run.runDir, buildReport(run.manifest, run.runDir, state, progress, previous.stopReason, run.loaded.timeline, engineMs));
  return true;
}
