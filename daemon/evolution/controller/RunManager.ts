/**
 * The daemon's evolution runs: started, followed and stopped over RPC (shared/protocol.ts
 * StartRun ... GetProgram). Each run's controller runs in the daemon and sends its tasks to
 * the daemon's own fabric; a daemon shutdown interrupts the runs with a checkpoint, so
 * `evolve run --resume` continues them.
 */
import { EventEmitter } from 'node:events';
import type { Program, RunProgress, RunSummary } from '../../../shared/evolution';
import type { EstimateRun, GetElites, GetProgram, ProgramPlacement, StartRun } from '../../../shared/protocol';
import type { Engine } from '../../engine/Engine';
import type { EvolutionRun } from './EvolutionRun';
import { loadRunState } from './loadRunState';
import { estimateRun, prepareRun, type RunRequest, RunSetupError } from './prepareRun';
import { readReport } from './report';
import type { RunManifest } from '../../../shared/runManifest';
import { DamagedRunError, RunDir } from './runDir';
import type { LlmExchange } from '../mutation/Mutator';
import type { RunState } from './RunState';
import { engineTaskClient } from './taskClients';
import { runTaskKinds } from './taskSpecs';
import { watchUnservedKinds, type WatchedRun } from './unservedWatch';
import type { PluginSet } from '../../plugins/loadPlugins';
import type { RunEvent } from '../runEvents';
import { readSelectionJob, selectionJobDir } from '../../usecases/selectionJob';
import { evolutionRunOf } from '../../usecases/startRun';
import { workspaceHome, type WorkspaceRef } from '../../usecases/workspaceHome';

/** What follows the daemon's runs (the evolution metrics implement it). */
export interface RunListener {
  runStarted(runId: string, stop: RunManifest['stop']): void;
  onEvent(runId: string, event: RunEvent, exchange: (hash: string) => LlmExchange | undefined): void;
  onProgress(progress: RunProgress): void;
  runFinished(runId: string): void;
}

interface ActiveRun {
  run: EvolutionRun;
  runDir: RunDir;
  done: Promise<void>;
  progress?: RunProgress;
  /** The kinds of task the run submits: what the watch of a daemon without workers checks. */
  tasks: WatchedRun['tasks'];
  /** Why the run waits, when it waits for something nobody provides (RunProgress.notice). */
  notice?: string | undefined;
}

export class RunManager extends EventEmitter<{ progress: [RunProgress] }> {
  private readonly active = new Map<string, ActiveRun>();
  private readonly stopWatching: () => void;

  constructor(
    private readonly engine: Engine,
    private readonly log: (line: string) => void,
    /** The daemon's state directory: it keeps the workspaces it does not share (workspaceHome.ts). */
    private readonly stateDir: string,
    /** Handed in by the composition root: the allowed plugins, and what listens to the runs. */
    private readonly services: { plugins: PluginSet; metrics: RunListener },
  ) {
    super();
    // A daemon without workers leaves every task to pools elsewhere: say when nobody serves a
    // kind a run needs, rather than wait silently (unservedWatch.ts).
    this.stopWatching = engine.pool
      ? () => undefined
      : watchUnservedKinds({
          directory: engine.queue,
          runs: () => [...this.active].map(([runId, entry]) => ({ runId, tasks: entry.tasks })),
          notice: (runId, notice) => this.setNotice(runId, notice),
          stop: (runId, notice) => {
            this.setNotice(runId, notice);
            this.stop(runId);
          },
          waitMs: engine.config.daemon.unservedWaitMs,
        });
  }

  /** Tells the run's followers (and the log) why it waits, or that it no longer does. */
  private setNotice(runId: string, notice: string | undefined): void {
    const entry = this.active.get(runId);
    if (!entry) return;
    entry.notice = notice;
    this.log(`run ${runId}: ${notice ?? 'a worker on the queue serves its tasks again'}`);
    if (entry.progress) this.emit('progress', withNotice(entry.progress, notice));
  }

  /** Throws RunSetupError for a request that cannot start (the caller answers InvalidParams). */
  start(params: StartRun.Params & { workers: number; stop: object }): StartRun.Response {
    const prepared = prepareRun(this.runRequestOf(params), this.engine.config, process.env, this.services.plugins);
    const { manifest, runDir } = prepared;
    if (this.active.has(manifest.runId)) throw new Error(`run ${manifest.runId} is already running in this daemon`);
    const entry = { runDir, tasks: Object.values(runTaskKinds(manifest)) } as Partial<ActiveRun> as ActiveRun;
    const metrics = this.services.metrics;
    const run = evolutionRunOf(prepared, params.workers, {
      client: engineTaskClient(this.engine),
      log: (line) => this.log(`run ${manifest.runId}: ${line}`),
      onEvent: (event) => metrics.onEvent(manifest.runId, event, (hash) => readExchange(runDir, hash)),
      onProgress: (progress) => {
        entry.progress = progress;
        metrics.onProgress(progress);
        this.emit('progress', withNotice(progress, entry.notice));
      },
    });
    // Only once the run exists: a run that fails to construct must not hold a metrics label.
    metrics.runStarted(manifest.runId, manifest.stop);
    entry.run = run;
    entry.done = run
      .run({ resume: Boolean(params.resume) })
      .then((outcome) => {
        metrics.onProgress(outcome.progress);
        this.emit('progress', withNotice(outcome.progress, entry.notice));
      })
      .catch((error: unknown) => {
        const why = (error as Error).message;
        this.log(`run ${manifest.runId} failed: ${why}`);
        // Also a run that failed before its first progress (its seed could not be evaluated):
        // whoever follows it must hear that it ended, and why.
        this.emit('progress', { ...(entry.progress ?? startingProgress(manifest)), state: 'failed', stopReason: 'error', error: why.slice(0, 2000) });
      })
      .finally(() => {
        this.active.delete(manifest.runId);
        metrics.runFinished(manifest.runId);
      });
    this.active.set(manifest.runId, entry);
    this.log(`run ${manifest.runId} started (${runDir.dir})`);
    return { runId: manifest.runId, runDir: runDir.dir, notes: prepared.notes };
  }

  /** What {@link start} would do with these parameters; creates nothing. Throws RunSetupError like start. */
  estimate(params: StartRun.Params & { workers: number; stop: object }): EstimateRun.Response {
    const estimate = estimateRun(this.runRequestOf(params), this.engine.config, process.env, this.services.plugins);
    const worst = estimate.worstCase;
    return { notes: estimate.notes, mutator: estimate.mutator, worstCase: worst ? { calls: worst.calls, tokens: worst.tokens, usd: worst.usd } : null };
  }

  stop(runId: string): boolean {
    const entry = this.active.get(runId);
    if (!entry) return false;
    entry.run.requestStop('interrupted');
    return true;
  }

  /** Interrupts every run (each checkpoints) and waits for them: before the daemon stops. */
  async stopAll(): Promise<void> {
    this.stopWatching();
    for (const entry of this.active.values()) entry.run.requestStop('interrupted');
    await Promise.allSettled([...this.active.values()].map((entry) => entry.done));
  }

  /** Where the workspace's runs and selection jobs are kept by this daemon. */
  home(workspace: WorkspaceRef): string {
    return workspaceHome(workspace, this.stateDir);
  }

  /** The workspace's runs; a damaged run is left out of the list and its problem logged (it never hides the others). */
  list(workspace: WorkspaceRef): RunSummary[] {
    return RunDir.list(this.home(workspace)).flatMap((runDir) => {
      try {
        return [this.summary(runDir)];
      } catch (error) {
        if (!(error instanceof DamagedRunError)) throw error;
        this.log(`run ${runDir.id} is not listed: ${error.message}`);
        return [];
      }
    });
  }

  private summary(runDir: RunDir): RunSummary {
    const manifest = runDir.readManifest();
    const live = this.active.get(manifest.runId)?.progress;
    let best: number | null = live?.best?.objective ?? null;
    let evaluations = live?.evaluations ?? 0;
    let state: RunSummary['state'] = live ? live.state : 'interrupted';
    if (!live) {
      const report = readReport(runDir);
      best = report?.best?.objective ?? null;
      evaluations = report?.progress.evaluations ?? 0;
      state = !report || report.stopReason === 'interrupted' ? 'interrupted' : report.stopReason === 'error' ? 'failed' : 'finished';
    }
    return { runId: manifest.runId, example: manifest.exampleName, dir: runDir.dir, state, startedAt: manifest.createdAt, best, evaluations };
  }

  private stateOf(runId: string, workspace: WorkspaceRef): { state: RunState; manifest: RunManifest } {
    const runDir = RunDir.ofId(runId, this.home(workspace));
    const manifest = runDir.readManifest();
    const { state } = loadRunState(runDir, manifest, undefined, this.services.plugins.selectors);
    return { state, manifest };
  }

  elites(runId: string, workspace: WorkspaceRef): Omit<GetElites.Response, 'runId'> {
    const { state, manifest } = this.stateOf(runId, workspace);
    const settings = manifest.settings;
    const elites = state.archive.niches().map((niche) => {
      const { code: _code, evaluation: _evaluation, ...summary } = niche.elite;
      void _code;
      void _evaluation;
      return { niche: niche.key, island: niche.island, program: summary };
    });
    return {
      objectiveName: settings.objectiveName,
      ...(settings.objectiveUnit && { objectiveUnit: settings.objectiveUnit }),
      direction: settings.direction,
      // The archive's own axes (the defaults when the example declares none): the edges its keys count.
      features: [...state.archive.space.descriptors],
      bestId: state.best?.id ?? null,
      elites,
    };
  }

  program(runId: string, workspace: WorkspaceRef, programId: string): GetProgram.Response | undefined {
    const { state, manifest } = this.stateOf(runId, workspace);
    // The reduced best is the run's program too (not an archive member): the proposal a reviewer is offered.
    const program = state.archive.get(programId) ?? (state.reduction?.program?.id === programId ? state.reduction.program : undefined);
    if (!program) return undefined;
    const ancestors: Omit<Program, 'code' | 'evaluation'>[] = [];
    for (let id = program.lineage.parents[0]; id && ancestors.length < 1000; ) {
      const ancestor = state.archive.get(id);
      if (!ancestor) break;
      const { code: _code, evaluation: _evaluation, ...summary } = ancestor;
      void _code;
      void _evaluation;
      ancestors.unshift(summary);
      id = ancestor.lineage.parents[0];
    }
    const job = readSelectionJob(manifest.exampleDir);
    const placement: ProgramPlacement = job
      ? { kind: 'selection', record: job.record, baseText: job.baseText }
      : { kind: 'example', exampleDir: manifest.exampleDir, program: manifest.program, ...(manifest.programFiles && { programFiles: manifest.programFiles }) };
    return { program, ancestors, objectiveName: manifest.settings.objectiveName, ...(manifest.settings.objectiveUnit && { objectiveUnit: manifest.settings.objectiveUnit }), placement };
  }

  private runRequestOf(params: StartRun.Params & { workers: number; stop: object }): RunRequest {
    const home = this.home(params);
    let exampleDir = params.exampleDir;
    if (params.selection !== undefined) {
      exampleDir = selectionJobDir(home, params.selection);
      if (!readSelectionJob(exampleDir)) throw new RunSetupError(`no selection job "${params.selection}" in this workspace: prepare the selection again (peagen/selection/prepare)`);
    }
    return {
      ...(exampleDir !== undefined && { exampleDir }),
      projectDir: home,
      stop: params.stop,
      workers: params.workers,
      ...(params.childrenPerGeneration !== undefined && { childrenPerGeneration: params.childrenPerGeneration }),
      ...(params.selector !== undefined && { selector: params.selector }),
      ...(params.mutator !== undefined && { mutator: params.mutator }),
      ...(params.seed !== undefined && { seed: params.seed }),
      ...(params.quick !== undefined && { quick: params.quick }),
      ...(params.resume !== undefined && { resume: params.resume }),
      ...(params.reduceBudget !== undefined && { reduceBudget: params.reduceBudget }),
      ...(params.evalTimeoutMs !== undefined && { evalTimeoutMs: params.evalTimeoutMs }),
    };
  }
}

function withNotice(progress: RunProgress, notice: string | undefined): RunProgress {
  if (notice === undefined) return progress;
  return { ...progress, notice };
}

function readExchange(runDir: RunDir, hash: string): LlmExchange | undefined {
  try {
    return runDir.getExchange(hash);
  } catch {
    return undefined;
  }
}

/** A run's progress before anything happened in it. */
function startingProgress(manifest: RunManifest): RunProgress {
  return {
    runId: manifest.runId,
    example: manifest.exampleName,
    state: 'running',
    direction: manifest.settings.direction,
    objectiveName: manifest.settings.objectiveName,
    ...(manifest.settings.objectiveUnit && { objectiveUnit: manifest.settings.objectiveUnit }),
    seedObjective: null,
    best: null,
    generation: 0,
    evaluations: 0,
    failedEvaluations: 0,
    llmCalls: 0,
    tokens: { inputTokens: 0, outputTokens: 0 },
    costUsd: 0,
    patchYield: { firstTry: 0, afterRepair: 0, answers: 0 },
    evaluationsPerMinute: 0,
    elapsedMs: 0,
    mutator: manifest.settings.mutator,
  };
}
