/**
 * The run controller: keeps the fabric busy with one run's mutate and evaluate tasks until
 * a stop condition, journaling every event and checkpointing the state.
 *
 * Steady state, no generation barrier: a job is "mutate, then evaluate (then confirm a
 * would-be best)"; up to `evalSlots` evaluations and `mutateSlots` further jobs (LLM calls)
 * are in flight, and a finished job is replaced at once, so one slow candidate never idles
 * the others.
 */
import type { Span } from '@opentelemetry/api';
import type { Evaluation } from '../../../shared/evaluation';
import { ExhaustionWatch, windowCalls } from './exhaustion';
import { GAIN, NO_MEASURABLE_IMPROVEMENT, type GainConfirmation, type Program, type RunProgress, type StopReason } from '../../../shared/evolution';
import { MAX_CHOICES } from '../../../shared/payloads';
import { objectiveValue } from '../../../shared/objectiveText';
import type { TraceCarrier } from '../../../shared/task';
import { describeEnvironmentUse } from '../../evaluation/environment/environmentAccess';
import type { Example } from '../../evaluation/example';
import { ENVIRONMENT_FAILED } from '../../handlers/evaluate';
import { writeCheckpoint } from '../evodb/checkpoint';
import { Journal } from '../evodb/journal';
import { programId } from '../../../shared/programId';
import { traceCarrierOf } from '../../observability/traceContext';
import { inSpan } from '../../observability/tracing';
import { type Checkpoint, loadRunState, type TimelinePoint } from './loadRunState';
import { BudgetGuard, type Spend } from './budget';
import { buildReport, type RunReport, writeReport } from './report';
import { lockRun } from './runLock';
import { type EvaluationEvent, isFreePlan, type PlanEvent, type ProposalEvent, type ReduceEvent, type ConfirmEvent, type RunEvent } from '../runEvents';
import type { RunManifest } from '../../../shared/runManifest';
import type { RunDir } from './runDir';
import { RunState } from './RunState';
import type { SelectorPlugin } from '../selection/ParentSelector';
import { runTask, type TaskClient } from './TaskClient';
import { evaluateTaskSpec, evaluationLimitMs, evaluationOf, freeProposal, mutateTaskSpec, proposalOf } from './taskSpecs';
import { DEFAULT_REDUCE_BUDGET, reduceBest, type Reduction } from '../reduce/reduceBest';
import { unifiedDiff } from '../mutation/patch/unifiedDiff';
import { bestReductionOf } from '../reduce/bestReduction';
import { confirmGain, type ConfirmOutcome, DEFAULT_CONFIRM_PAIRS } from '../confirm/confirmGain';
import { confirmationLine } from '../../../shared/gainText';
import { comparesByFactor } from '../../../shared/objectiveText';

export interface EvolutionRunOptions {
  runDir: RunDir;
  manifest: RunManifest;
  example: Example;
  client: TaskClient;
  evalSlots: number;
  mutateSlots: number;
  /** Worst-case spend of one LLM call, for the budget guard (zeros without an LLM). */
  perCallSpend: Spend;
  /** Aborting it interrupts the run: in-flight work is dropped, the state checkpointed for --resume. */
  signal?: AbortSignal;
  log(line: string): void;
  onProgress?(progress: RunProgress): void;
  /** Every journaled event as it is recorded (the daemon's metrics). */
  onEvent?(event: RunEvent): void;
  /**
   * Checkpoint at most this often (CHECKPOINT_EVERY_MS) and at the end. The journal holds
   * every event in between, so a crash loses nothing; a checkpoint only makes resume faster,
   * and writing one costs time proportional to the archive.
   */
  checkpointEveryMs?: number;
  /** `evolve step`: stop after this many more generations than the run has now. */
  extraGenerations?: number;
  /** The allowed plugins' selectors (for a run whose selector a plugin provides). */
  selectors?: readonly SelectorPlugin[];
}

export interface RunOutcome {
  progress: RunProgress;
  stopReason: StopReason;
  seed: Program;
  best: Program | undefined;
  state: RunState;
  /** Active time per best improvement: for time-to-Nx figures. */
  timeline: TimelinePoint[];
  /** Time the controller itself spent (planning, bookkeeping, journal, checkpoints), in ms. */
  engineMs: number;
  /** What the run wrote to report.md and report.json as it ended. */
  report: RunReport;
}

export type { TimelinePoint } from './loadRunState';

/**
 * A minute of journal replays in well under a second on resume, while a checkpoint of a
 * 10,000-program archive costs ~20 ms: once a minute keeps it under 1 ms per candidate.
 */
export const CHECKPOINT_EVERY_MS = 60_000;

/** Stops that let running jobs finish; the others cancel them. */
/** Proposals in a row failed by the model (unreachable, 500s) before the run stops; a refused key or unknown model stops it at once. */
const MODEL_FAILURES_STOP = 3;
const GENTLE_STOPS = new Set<StopReason>(['generations', 'evaluations', 'no_improvement', 'budget_tokens', 'budget_usd', 'max_llm_calls', 'tasks_failing', 'proposals_exhausted', 'model_unusable']);

/**
 * Jobs in a row whose task failed (after the queue's own retries) before the run gives up. A
 * cause that fails every task (a mutator no worker has, an evaluator that cannot start) would
 * otherwise have the run plan jobs forever without ever reaching an evaluation limit.
 */
export const FAILED_JOBS_STOP = 10;
/**
 * While evaluations run, progress is sent at least this often: a slow evaluation shows its
 * time ticking (and the ETA counting it) instead of a frozen line.
 */
export const PROGRESS_HEARTBEAT_MS = 5_000;

/** Weight of the newest sample in the pace averages. */
const PACE_WEIGHT = 0.2;

class Interrupted extends Error {}

export class EvolutionRun {
  private state!: RunState;
  private journal!: Journal;
  private seq = 0;
  private lastCheckpointAt = Date.now();
  private elapsedBefore = 0;
  private startedAt = Date.now();
  private timeline: TimelinePoint[] = [];
  private stopReason: StopReason | undefined;
  private readonly jobs = new Map<number, { promise: Promise<void>; abort: AbortController; tasks: Set<string>; phase: 'mutate' | 'evaluate' }>();
  private evaluating = 0;
  /** Jobs still waiting for their proposal (phase 'mutate'): counted as they change, not by a walk over the jobs per decision. */
  private mutating = 0;
  private readonly evaluationWaiters: (() => void)[] = [];
  /** The evaluations holding a slot now (label: `#job`, `seed`, `reduce`), for the progress line. */
  private readonly running = new Set<{ label: string; startedAt: number }>();
  private readonly budget: BudgetGuard;
  private wake: (() => void) | undefined;
  private engineMs = 0;
  /** Ends the wait of a phase outside the main loop (the seed's evaluation, the confirmation or the reduction of the best) at a stop asked for now. */
  private stopPhase: (() => void) | undefined;
  /** Jobs in a row that ended by a failed task; a job that ends any other way resets it. */
  private failedJobsInARow = 0;
  /** Proposals in a row the model failed (watchModel). */
  private modelFailuresInARow = 0;
  private saidRateLimited = false;
  /** Whether the model still brings new children (exhaustion.ts). */
  private readonly exhaustion: ExhaustionWatch;
  /** The best's improvements already told to the exhaustion watch. */
  private improvementsSeen = 0;
  /** The run's trace: each mutate and evaluate job is a span under it, their tasks' spans under those. */
  private span: Span | undefined;
  /** How long proposals and evaluations take and how often a proposal gives a child (moving averages), for the lookahead. */
  private pace: { proposalMs: number | undefined; evaluationMs: number | undefined; childRate: number } = { proposalMs: undefined, evaluationMs: undefined, childRate: 1 };

  constructor(private readonly options: EvolutionRunOptions) {
    this.budget = new BudgetGuard(options.manifest.stop, options.perCallSpend);
    // Calls out at once: a proposal per evaluation slot, and up to mutateSlots ahead.
    this.exhaustion = new ExhaustionWatch(windowCalls(options.evalSlots + options.mutateSlots));
  }

  get runId(): string {
    return this.options.manifest.runId;
  }

  /** Starts (or, with `resume`, continues) the run and resolves when it stops. */
  run({ resume = false }: { resume?: boolean } = {}): Promise<RunOutcome> {
    const { manifest } = this.options;
    return inSpan(`evolve run ${this.runId}`, undefined, { 'peagen.run.id': this.runId, 'peagen.example': manifest.exampleName, 'peagen.run.resume': resume }, async (span) => {
      this.span = span;
      const heartbeat = setInterval(() => {
        if (this.running.size > 0) this.progress();
      }, PROGRESS_HEARTBEAT_MS);
      heartbeat.unref();
      let outcome;
      try {
        outcome = await this.runUntraced(resume);
      } finally {
        clearInterval(heartbeat);
      }
      span.setAttributes({ 'peagen.run.stop_reason': outcome.stopReason, 'peagen.run.evaluations': outcome.progress.evaluations });
      return outcome;
    });
  }

  /**
   * Holds the run's lock from before its state is read until its report is written: a merge
   * into the run, or a second resume, waits for all of it.
   */
  private async runUntraced(resume: boolean): Promise<RunOutcome> {
    const lock = lockRun(this.options.runDir);
    try {
      const outcome = await this.runLocked(resume);
      writeReport(this.options.runDir, outcome.report);
      return outcome;
    } finally {
      lock.release();
    }
  }

  private async runLocked(resume: boolean): Promise<RunOutcome> {
    const { runDir, manifest } = this.options;
    this.state = resume ? this.restore() : new RunState(manifest.settings, undefined, undefined, this.options.selectors);
    this.journal = new Journal(runDir.journalFile);
    this.startedAt = Date.now();
    if (this.options.extraGenerations !== undefined) {
      this.options.manifest.stop = { ...this.options.manifest.stop, generations: this.state.generation + this.options.extraGenerations };
    }
    try {
      if (!this.state.seedId) await this.evaluateSeed();
      else this.record({ type: 'resume', at: new Date().toISOString() });
      this.progress();
      for (const open of this.state.openJobs()) this.launch(open.plan, open);
      await this.loop();
    } catch (error) {
      if (!(error instanceof Interrupted)) {
        this.stopReason ??= 'error';
        await this.cancelAll();
        this.writeCheckpoint();
        throw error;
      }
    }
    await Promise.allSettled([...this.jobs.values()].map((job) => job.promise));
    const reason = this.stopReason ?? 'interrupted';
    if (reason !== 'interrupted') {
      this.record({ type: 'stop', reason });
      // A confirmation cut short by a stop asked for ends the run there: nothing more is measured.
      if (await this.confirmBest()) await this.reduceBest();
    }
    this.writeCheckpoint();
    const best = this.state.best;
    if (best) runDir.writeReducedBest(manifest, best.code, this.state.bestReduction?.program?.code);
    const progress = this.snapshotProgress(reason === 'interrupted' ? 'interrupted' : 'finished');
    return {
      progress,
      stopReason: reason,
      seed: this.state.archive.get(this.state.seedId!)!,
      best,
      state: this.state,
      timeline: this.timeline,
      engineMs: this.engineMs,
      report: buildReport(manifest, runDir, this.state, progress, reason, this.timeline, this.engineMs),
    };
  }

  /**
   * Reduces the ended run's best to its smallest diff from the seed that keeps most of its gain
   * (reduce/reduceBest.ts), measured in the sandbox as the run's children are, and journals
   * the outcome. A best reduced before (a resumed run that found nothing better) is not
   * reduced again. Interrupted or failing, the run simply keeps its full best.
   */
  private async reduceBest(): Promise<void> {
    const { manifest, log } = this.options;
    const budget = manifest.reduce?.budget ?? DEFAULT_REDUCE_BUDGET;
    const best = this.state.best;
    const seed = this.state.seedId ? this.state.archive.get(this.state.seedId) : undefined;
    if (budget <= 0 || !best || !seed || best.id === seed.id || best.objective === null || this.state.bestReduction) return;
    // A gain not measured to be one has nothing to keep: no reduction is offered either.
    const confirmation = this.state.bestConfirmation;
    if (confirmation && confirmation.verdict !== GAIN) return;
    // Ctrl-C, or a stop asked for now (the daemon's StopRun), ends the reduction at once.
    const stop = new AbortController();
    this.stopPhase = () => stop.abort();
    const signal = this.options.signal ? AbortSignal.any([this.options.signal, stop.signal]) : stop.signal;
    const tasks = new Set<string>();
    log(`reducing the best to its smallest diff from the seed (at most ${budget} evaluations) ...`);
    let reduction: Reduction;
    try {
      reduction = await reduceBest({
        seed,
        best,
        direction: this.state.settings.direction,
        budget,
        evaluate: (code, measurementSeed) => this.evaluate(code, measurementSeed, signal, tasks, 'reduce'),
        ...(confirmation && { bestConfirmation: confirmation, confirmTrial: (code: string, maxPairs: number) => this.confirmAgainstSeed(seed.code, code, programId(code), maxPairs, signal, tasks) }),
      });
    } catch (error) {
      await Promise.allSettled([...tasks].map((taskId) => this.options.client.cancel(taskId)));
      log(signal.aborted ? 'the reduction of the best was interrupted: the full best is kept' : `could not reduce the best (the full best is kept): ${(error as Error).message}`);
      return;
    } finally {
      this.stopPhase = undefined;
    }
    if (signal.aborted) return;
    const at = new Date().toISOString();
    const reduced = reduction.reduced;
    const program: Program | undefined = reduced && {
      id: programId(reduced.code),
      code: reduced.code,
      lineage: {
        parents: [best.id],
        generation: best.lineage.generation + 1,
        mutator: 'reduce',
        patch: unifiedDiff(best.code, reduced.code),
        exchanges: [],
        seed: reduced.measurements[0]?.seed ?? manifest.settings.seed,
        repairs: 0,
        island: best.lineage.island,
        createdAt: at,
      },
      evaluation: reduced.evaluation,
      objective: reduced.objective,
      correct: true,
      measurements: reduced.measurements,
      features: {},
    };
    const event: ReduceEvent = {
      type: 'reduce',
      best: best.id,
      keep: reduction.keep,
      changes: reduction.changes,
      changedLines: reduction.changedLines,
      trials: reduction.trials,
      evaluations: reduction.evaluations,
      budget,
      ...(program && { program }),
      ...(reduced?.confirmation && { confirmation: reduced.confirmation }),
    };
    this.state.applyReduce(event);
    this.record(event, at);
    const name = manifest.settings.objectiveName;
    log(
      program
        ? `reduced: ${name} ${program.objective!.toFixed(3)} with ${reduction.changedLines.reduced} changed lines, ${best.objective.toFixed(3)} with all ${reduction.changedLines.best} (${reduction.evaluations} evaluations)`
        : reduction.changes < 2
          ? `the best's diff from the seed is one change (${reduction.changedLines.best} lines): nothing to reduce`
          : `no change of the best could be dropped (${reduction.evaluations} evaluations): all ${reduction.changedLines.best} changed lines are kept`,
    );
  }

  /**
   * Measures the ended run's best against the seed again, interleaved, until the interval on
   * their ratio says whether the gain is measurable or the budget ends (confirm/), and
   * journals the verdict: only a gain is offered. A best confirmed before (a resumed run that
   * found nothing better) is not measured again; a stop asked for ends it with no verdict.
   */
  private async confirmBest(): Promise<boolean> {
    const { manifest, log } = this.options;
    const pairs = manifest.confirm?.pairs ?? DEFAULT_CONFIRM_PAIRS;
    const best = this.state.best;
    const seed = this.state.seedId ? this.state.archive.get(this.state.seedId) : undefined;
    if (pairs <= 0 || !best || !seed || best.id === seed.id || best.objective === null || this.state.bestConfirmation) return true;
    const stop = new AbortController();
    this.stopPhase = () => stop.abort();
    const signal = this.options.signal ? AbortSignal.any([this.options.signal, stop.signal]) : stop.signal;
    const tasks = new Set<string>();
    log(`measuring the best against the seed again, interleaved, until the gain is measurable (at most ${pairs} pairs) ...`);
    let confirmation: GainConfirmation;
    try {
      confirmation = (await this.confirmAgainstSeed(seed.code, best.code, best.id, pairs, signal, tasks)).confirmation;
    } catch (error) {
      await Promise.allSettled([...tasks].map((taskId) => this.options.client.cancel(taskId)));
      if (signal.aborted) {
        log('the confirmation of the best was interrupted: its gain is not confirmed');
        return false;
      }
      // A gain that could not be measured again is not offered: recorded as such, with why.
      const reason = `could not measure the best again: ${(error as Error).message.slice(0, 500)}`;
      confirmation = { programId: best.id, measure: 'ratio', value: 0, low: 0, high: 0, pairs: 0, verdict: NO_MEASURABLE_IMPROVEMENT, zeroSpread: false, reason, measured: [], elapsedMs: 0 };
    } finally {
      this.stopPhase = undefined;
    }
    if (signal.aborted) return false;
    const event: ConfirmEvent = { type: 'confirm', confirmation };
    this.state.applyConfirm(event);
    this.record(event);
    log(`${confirmationLine(manifest.settings.objectiveName, confirmation)} in ${(confirmation.elapsedMs / 1000).toFixed(1)} s`);
    return true;
  }

  /** The gain test (confirm/confirmGain.ts) of `code` against the seed, through the run's evaluation path. */
  private confirmAgainstSeed(seedCode: string, code: string, id: string, maxPairs: number, signal: AbortSignal, tasks: Set<string>): Promise<ConfirmOutcome> {
    const { manifest } = this.options;
    const settings = manifest.settings;
    return confirmGain({
      seedCode,
      code,
      programId: id,
      direction: settings.direction,
      byFactor: comparesByFactor({ name: settings.objectiveName, direction: settings.direction, unit: settings.objectiveUnit }),
      runSeed: settings.seed,
      maxPairs,
      ...(manifest.confirm?.maxMs !== undefined && { maxMs: manifest.confirm.maxMs }),
      evaluate: (program, measurementSeed) => this.evaluate(program, measurementSeed, signal, tasks, 'confirm'),
    });
  }

  /** Ends the run as if a stop condition had been met (the daemon's StopRun, its shutdown). */
  requestStop(reason: StopReason = 'interrupted'): void {
    this.stopReason ??= reason;
    this.stopPhase?.();
    this.wake?.();
  }

  private restore(): RunState {
    const loaded = loadRunState(this.options.runDir, this.options.manifest, undefined, this.options.selectors);
    this.seq = loaded.seq;
    this.elapsedBefore = loaded.elapsedMs;
    this.timeline = loaded.timeline;
    return loaded.state;
  }

  private async evaluateSeed(): Promise<void> {
    const { example, manifest } = this.options;
    const code = example.seedProgram();
    const seed = manifest.settings.seed;
    this.options.log(`evaluating the seed program ${manifest.program} ...`);
    // Ctrl-C, or a stop asked for now (the daemon's StopRun), ends the wait for the seed at once.
    const stop = new AbortController();
    this.stopPhase = () => stop.abort();
    const signal = this.options.signal ? AbortSignal.any([this.options.signal, stop.signal]) : stop.signal;
    const tasks = new Set<string>();
    let evaluation: Evaluation | undefined;
    try {
      evaluation = await this.evaluate(code, seed, signal, tasks, 'seed');
    } catch (error) {
      if (!signal.aborted) throw error;
    } finally {
      this.stopPhase = undefined;
    }
    // Stopped during the seed's evaluation: nothing to keep yet but the run directory.
    if (signal.aborted) {
      await Promise.allSettled([...tasks].map((taskId) => this.options.client.cancel(taskId)));
      throw new Interrupted();
    }
    if (!evaluation?.correct || evaluation.objective === null) {
      const why = evaluation ? (evaluation.failure?.message ?? 'incorrect') : 'the evaluation did not complete';
      throw new Error(`the seed program ${manifest.program} fails its own evaluation (${why}); fix the example before evolving it${evaluation?.errorText ? `\n${evaluation.errorText}` : ''}`);
    }
    const program: Program = {
      id: programId(code),
      code,
      lineage: { parents: [], generation: 0, mutator: 'seed', exchanges: [], seed, repairs: 0, island: 0, createdAt: new Date().toISOString() },
      evaluation,
      objective: evaluation.objective,
      correct: true,
      measurements: [{ seed, objective: evaluation.objective, wallMs: evaluation.wallMs }],
      features: {},
    };
    this.state.applySeed(program);
    this.record({ type: 'seed', program });
    this.timeline.push({ elapsedMs: this.elapsed(), evaluations: 0, llmCalls: 0, objective: evaluation.objective });
    this.options.log(`seed: ${manifest.settings.objectiveName} ${objectiveValue(evaluation.objective, { unit: manifest.settings.objectiveUnit })}`);
    for (const use of evaluation.environments ?? []) this.options.log(`environment: ${describeEnvironmentUse(use)}`);
  }

  private async loop(): Promise<void> {
    for (;;) {
      if (this.options.signal?.aborted) {
        this.stopReason ??= 'interrupted';
      }
      if (this.stopReason && !GENTLE_STOPS.has(this.stopReason)) {
        await this.cancelAll();
        if (this.stopReason === 'interrupted') throw new Interrupted();
        return;
      }
      if (!this.stopReason) this.stopReason = this.stopCondition();
      while (!this.stopReason && this.wantsAnotherProposal() && this.roomForJob()) {
        let allowance = Infinity;
        if (this.state.settings.usesLlm && !this.state.nextJobIsFree()) {
          const left = this.budget.allowance(this.spent());
          if (this.state.ablated('budget')) {
            // As before the budget rule: a job needs room for its whole worst case, and the first that has none ends the run.
            const R = this.options.manifest.llm.repairAttempts;
            if (left.calls < 1 + 2 * R) {
              this.stopReason = left.binding;
              break;
            }
          } else if (left.calls < 1) {
            // Jobs still making calls may leave part of their reservation unspent: the budget
            // ends the run only once no call is reserved, so the run spends what it may.
            if (!this.anyJobMutating()) this.stopReason = left.binding;
            break;
          } else allowance = left.calls;
        }
        const plan = this.timed(() => {
          const planned = this.state.plan({ allowance, repairAttempts: this.options.manifest.llm.repairAttempts });
          this.record(planned);
          return planned;
        });
        this.launch(plan);
      }
      if (this.jobs.size === 0) {
        if (!this.stopReason) this.stopReason = 'evaluations';
        return;
      }
      await new Promise<void>((resolve) => {
        // Whichever comes first (a wake-up, Ctrl-C, the wall clock, a job's end) undoes the
        // others: a run wakes thousands of times, and a listener left on the run's signal each
        // time is a leak (Node warns at 11).
        const signal = this.options.signal;
        const wall = this.options.manifest.stop.wallMs;
        const timer = wall !== undefined ? setTimeout(() => done(), Math.max(0, wall - this.elapsed()) + 5) : undefined;
        const done = (): void => {
          if (timer) clearTimeout(timer);
          signal?.removeEventListener('abort', done);
          // An earlier wait's job may end during a later wait: it must not take that wait's wake-up.
          if (this.wake === done) this.wake = undefined;
          resolve();
        };
        this.wake = done;
        signal?.addEventListener('abort', done, { once: true });
        // A job's end wakes the loop itself (launch): racing every job's promise here would
        // add a listener to each of them per wake-up, O(jobs) per event and O(jobs²) overall.
      });
    }
  }

  /**
   * Keep children coming so that every free evaluation slot gets one and a slot that frees
   * finds one ready: proposals in flight plus children waiting for a slot stay below the free
   * slots plus the lookahead.
   */
  private wantsAnotherProposal(): boolean {
    const free = Math.max(0, this.options.evalSlots - this.evaluating);
    return this.mutating + this.evaluationWaiters.length < free + this.lookahead();
  }

  /**
   * Children to have on the way beyond the free slots: as many as the slots consume while a
   * proposal is made (a slow model needs several in flight per slot), at least one and at most
   * `mutateSlots`. No more: a call made long before a slot can take its child is made without
   * what the evaluations in flight will teach, and against a fast model the run would spend its
   * calls ahead of its evaluations.
   */
  private lookahead(): number {
    const { proposalMs, evaluationMs, childRate } = this.pace;
    if (proposalMs === undefined || evaluationMs === undefined) return this.options.mutateSlots;
    const perSlot = proposalMs / Math.max(1, evaluationMs) / Math.max(0.1, childRate);
    return Math.min(this.options.mutateSlots, Math.max(1, Math.ceil(this.options.evalSlots * perSlot)));
  }

  /** A moving average: recent jobs count most. */
  private static average(previous: number | undefined, sample: number): number {
    return previous === undefined ? sample : previous + PACE_WEIGHT * (sample - previous);
  }

  private anyJobMutating(): boolean {
    return this.mutating > 0;
  }

  /** Whether the evaluation/generation limit leaves room for one more job. */
  private roomForJob(): boolean {
    const limit = this.evaluationLimit();
    return limit === undefined || this.state.counters.evaluations + this.jobs.size < limit;
  }

  private evaluationLimit(): number | undefined {
    const { stop, settings } = this.options.manifest;
    const byGenerations = stop.generations !== undefined ? stop.generations * settings.childrenPerGeneration : undefined;
    const limits = [stop.evaluations, byGenerations].filter((value): value is number => value !== undefined);
    return limits.length > 0 ? Math.min(...limits) : undefined;
  }

  /**
   * Ends the run once the model has nothing new to offer (exhaustion.ts), saying what that
   * saved of the call budget; `--spend-all` (stop.spendAll) keeps asking instead.
   */
  private watchExhaustion(calls: number, brewedNew: boolean): void {
    const improvements = this.state.counters.improvementsOfBest;
    if (improvements !== this.improvementsSeen) {
      this.improvementsSeen = improvements;
      this.exhaustion.noteNewBest();
    }
    // An offline proposal makes no call, but is asked for all the same.
    this.exhaustion.noteProposal(Math.max(1, calls), brewedNew);
    const { stop } = this.options.manifest;
    if (this.stopReason || stop.spendAll || this.state.ablated('exhaustion') || !this.exhaustion.exhausted()) return;
    const used = this.state.counters.llmCalls;
    const unspent = stop.maxLlmCalls !== undefined ? Math.max(0, stop.maxLlmCalls - used) : undefined;
    const saved = unspent !== undefined ? `; ${unspent} of the ${stop.maxLlmCalls} calls allowed (${Math.round((100 * unspent) / stop.maxLlmCalls!)}%) left unspent` : '';
    this.options.log(`stopped: the model has nothing new to offer: ${this.exhaustion.describe()}${saved} (--spend-all keeps asking)`);
    this.stopReason = 'proposals_exhausted';
  }

  /**
   * Stops the run, in one line that names the server, when the model fails in a way that will
   * not go away: at once for a refused key or an unknown model; after MODEL_FAILURES_STOP
   * proposals in a row failed by the model for any other reason (unreachable, 500s), the
   * SDK's own retries spent on each. A proposal the model answered resets the count.
   */
  private watchModel(proposal: ProposalEvent): void {
    if (proposal.ok || proposal.reason !== 'llm_error') {
      this.modelFailuresInARow = 0;
      return;
    }
    const message = proposal.message ?? '';
    const code = /^(\w+): /.exec(message)?.[1];
    if (this.stopReason) return;
    // Only what will not go away counts: a refused key, no such model, no server; one bad
    // request (an oversized prompt), an empty answer or a rate limit is the call's, not the model's.
    if (!['auth', 'not_found', 'connection', 'server', 'timeout'].includes(code ?? '')) {
      if (code === 'rate_limited' && !this.saidRateLimited) {
        this.saidRateLimited = true;
        this.options.log(`the model is rate-limiting the run: ${message.replace(/^\w+: /, '')} (the SDK waits and retries; fewer --workers ask less at once)`);
      }
      return;
    }
    this.modelFailuresInARow++;
    if (code !== 'auth' && code !== 'not_found' && this.modelFailuresInARow < MODEL_FAILURES_STOP) {
      if (this.modelFailuresInARow === 1) this.options.log(`the model failed: ${message.replace(/^\w+: /, '')} (the run goes on; it stops if the next calls fail too)`);
      return;
    }
    const why = message.replace(/^\w+: /, '');
    this.options.log(`stopped: the model cannot be used: ${why}${code === 'auth' || code === 'not_found' ? '' : ` (${this.modelFailuresInARow} calls in a row)`}; fix the model's settings (docs/configuration.md#models), or run without one: --mutator offline`);
    this.stopReason = 'model_unusable';
  }

  private stopCondition(): StopReason | undefined {
    const { stop } = this.options.manifest;
    const counters = this.state.counters;
    const best = this.state.best;
    const limit = this.evaluationLimit();
    // The goal first: a run whose last evaluation also reached the target reached the target.
    if (stop.target !== undefined && best?.objective != null) {
      const reached = this.state.settings.direction === 'maximize' ? best.objective >= stop.target : best.objective <= stop.target;
      if (reached) return 'target';
    }
    if (limit !== undefined && counters.evaluations >= limit) return stop.evaluations !== undefined && counters.evaluations >= stop.evaluations ? 'evaluations' : 'generations';
    if (stop.wallMs !== undefined && this.elapsed() >= stop.wallMs) return 'wall_time';
    if (stop.noImprovement !== undefined && counters.evaluations - counters.lastImprovementAt >= stop.noImprovement) return 'no_improvement';
    return undefined;
  }

  private spent(): Spend {
    const c = this.state.counters;
    return { tokens: c.tokens.inputTokens + c.tokens.outputTokens, usd: c.costUsd, calls: c.llmCalls };
  }

  private launch(plan: PlanEvent, open?: { child?: { id: string; code: string }; first?: EvaluationEvent }): void {
    const abort = new AbortController();
    const tasks = new Set<string>();
    // The job's worst case: its first call and every follow-up it was granted.
    const R = this.options.manifest.llm.repairAttempts;
    let reserved = this.state.settings.usesLlm && !open?.child && !isFreePlan(plan) ? 1 + (plan.calls?.format ?? R) + (plan.calls?.known ?? R) : 0;
    this.budget.reserve(reserved);
    const releaseCalls = (): void => {
      this.budget.release(reserved);
      reserved = 0;
      this.wake?.();
    };
    // In the map (and counted) before the job starts: a free proposal is in, and the job past its
    // mutate phase, before runJob first awaits.
    const phase: 'mutate' | 'evaluate' = open?.child ? 'evaluate' : 'mutate';
    if (phase === 'mutate') this.mutating++;
    const job = { promise: Promise.resolve(), abort, tasks, phase };
    this.jobs.set(plan.job, job);
    job.promise = this.runJob(plan, open, abort.signal, tasks, releaseCalls)
      .then(() => {
        if (!abort.signal.aborted) this.failedJobsInARow = 0;
      })
      .catch((error: unknown) => {
        if (abort.signal.aborted) return;
        this.options.log(`job ${plan.job} failed: ${(error as Error).message}`);
        this.state.applyAbandon(plan.job);
        this.record({ type: 'abandon', job: plan.job, reason: (error as Error).message.slice(0, 500) });
        this.noteBest(this.state);
        if (++this.failedJobsInARow >= FAILED_JOBS_STOP && !this.stopReason) {
          this.options.log(`stopping: the last ${this.failedJobsInARow} jobs all failed; the last: ${(error as Error).message}`);
          this.stopReason = 'tasks_failing';
        }
      })
      .finally(() => {
        this.budget.release(reserved);
        this.leaveMutatePhase(plan.job);
        this.jobs.delete(plan.job);
        this.progress();
        this.wake?.();
      });
  }

  /** A job's proposal is in (or the job ended without one): it no longer counts as proposing. */
  private leaveMutatePhase(jobId: number): void {
    const entry = this.jobs.get(jobId);
    if (entry?.phase !== 'mutate') return;
    entry.phase = 'evaluate';
    this.mutating--;
  }

  private async runJob(
    plan: PlanEvent,
    open: { child?: { id: string; code: string }; first?: EvaluationEvent } | undefined,
    signal: AbortSignal,
    tasks: Set<string>,
    releaseCalls: () => void,
  ): Promise<void> {
    let child = open?.child;
    if (!child) {
      const asked = performance.now();
      const proposal = isFreePlan(plan) ? freeProposal(plan, this.state) : await this.mutate(plan, signal, tasks);
      if (signal.aborted) return;
      if (!isFreePlan(plan)) this.pace.proposalMs = EvolutionRun.average(this.pace.proposalMs, performance.now() - asked);
      // What the calls cost is in the proposal's usage now: the rest of the reservation is free.
      this.leaveMutatePhase(plan.job);
      const barrenBefore = this.state.counters.barrenProposals ?? 0;
      const verdict = this.timed(() => {
        const outcome = this.state.applyProposal(proposal);
        this.record(proposal);
        return outcome;
      });
      releaseCalls();
      if (!isFreePlan(plan)) this.pace.childRate = EvolutionRun.average(this.pace.childRate, verdict === 'evaluate' ? 1 : 0);
      if (!isFreePlan(plan)) this.watchModel(proposal);
      if (!isFreePlan(plan)) this.watchExhaustion(proposal.exchanges.length, (this.state.counters.barrenProposals ?? 0) === barrenBefore);
      if (verdict === 'done') return;
      child = { id: proposal.childId!, code: proposal.code! };
    }
    let round: 'first' | 'confirm' = open?.first ? 'confirm' : 'first';
    for (;;) {
      const seed = round === 'first' ? plan.seed : plan.seed + 1;
      const evaluation = await this.evaluate(child.code, seed, signal, tasks, `#${plan.job}`);
      if (signal.aborted) return;
      if (!evaluation) throw new Error('the evaluate task returned no evaluation');
      const event: EvaluationEvent = { type: 'evaluation', job: plan.job, childId: child.id, round, seed, evaluation };
      const at = new Date().toISOString();
      const verdict = this.timed(() => {
        const outcome = this.state.applyEvaluation(event, at);
        this.record(event, at);
        this.noteBest(this.state);
        return outcome;
      });
      if (verdict === 'done') return;
      round = 'confirm';
    }
  }

  /** A span from submission to result; the task carries it, so the worker's span hangs under it. */
  private traced<T>(name: 'mutate' | 'evaluate', attributes: Record<string, number>, work: (trace: { trace?: TraceCarrier }) => Promise<T>): Promise<T> {
    return inSpan(name, this.span, { 'peagen.run.id': this.runId, ...attributes }, (span) => {
      const trace = traceCarrierOf(span);
      return work(trace ? { trace } : {});
    });
  }

  private mutate(plan: PlanEvent, signal: AbortSignal, tasks: Set<string>): Promise<ProposalEvent> {
    return this.traced('mutate', { 'peagen.job': plan.job }, (trace) => this.mutateUntraced(plan, signal, tasks, trace));
  }

  private async mutateUntraced(plan: PlanEvent, signal: AbortSignal, tasks: Set<string>, trace: { trace?: TraceCarrier }): Promise<ProposalEvent> {
    const { client, manifest, example, runDir } = this.options;
    const result = await runTask(client, { ...mutateTaskSpec(plan, this.state, manifest, example, manifest.runId), ...trace }, signal, tasks, (lost) =>
      this.options.log(`${lost}: the proposal of job ${plan.job} is asked again`),
    );
    const proposal = proposalOf(result.data);
    if (!proposal) {
      throw new Error(`the mutate task failed: ${result.error ? `${result.error.code}: ${result.error.message}` : 'no proposal in its result'}`);
    }
    const exchanges = proposal.exchanges.map((exchange) => runDir.putExchange(exchange));
    const usage = proposal.exchanges.reduce(
      (sum, exchange) => ({ inputTokens: sum.inputTokens + exchange.usage.inputTokens, outputTokens: sum.outputTokens + exchange.usage.outputTokens }),
      { inputTokens: 0, outputTokens: 0 },
    );
    const costUsd = proposal.exchanges.reduce((sum, exchange) => sum + exchange.costUsd, 0);
    const common = {
      type: 'proposal' as const,
      job: plan.job,
      mutator: proposal.mutator,
      ...(proposal.model && { model: proposal.model }),
      ...(proposal.template && { template: proposal.template }),
      exchanges,
      repairs: proposal.repairs,
      ...(proposal.attempts && { attempts: proposal.attempts.slice(0, exchanges.length) }),
      usage,
      costUsd,
    };
    if (!proposal.ok) return { ...common, ok: false, reason: proposal.reason, message: proposal.message.slice(0, 2000) };
    // A worker's answer is checked, not trusted: at most the answers a call may give, each with its code.
    const given = Array.isArray(proposal.siblings) ? proposal.siblings.slice(0, MAX_CHOICES) : [];
    const siblings = given.filter((sibling) => typeof sibling?.code === 'string' && typeof sibling.patch === 'string').map((sibling) => ({ childId: programId(sibling.code), ...(sibling.normalizedId && { normalizedId: sibling.normalizedId }), code: sibling.code, patch: sibling.patch }));
    return {
      ...common,
      ok: true,
      childId: programId(proposal.code),
      ...(proposal.normalizedId && { normalizedId: proposal.normalizedId }),
      code: proposal.code,
      patch: proposal.patch,
      ...(siblings.length > 0 && { siblings }),
    };
  }

  private async evaluate(code: string, seed: number, signal: AbortSignal, tasks: Set<string>, label: string): Promise<Evaluation | undefined> {
    await this.acquireEvaluationSlot(signal);
    const started = performance.now();
    const running = { label, startedAt: Date.now() };
    this.running.add(running);
    // Shown as it starts: the line must not wait for another job's end to say what is running.
    this.progress();
    try {
      const { client, example, manifest } = this.options;
      const result = await this.traced('evaluate', { 'peagen.seed': seed }, async (trace) => {
        const spec = { ...evaluateTaskSpec(example, code, seed, manifest.evaluatorArgs, manifest.runId, manifest.evalTimeoutMs), ...trace };
        return runTask(client, spec, signal, tasks, (lost) => this.options.log(`${lost}: the evaluation ${label} is submitted again`));
      });
      const evaluation = evaluationOf(result.data);
      // An example whose requirements cannot be installed: the installer's message says it all.
      if (!evaluation && result.error?.code === ENVIRONMENT_FAILED) throw new Error(result.error.message);
      if (!evaluation && result.error) throw new Error(`the evaluate task failed: ${result.error.code}: ${result.error.message}`);
      this.pace.evaluationMs = EvolutionRun.average(this.pace.evaluationMs, performance.now() - started);
      return evaluation;
    } finally {
      this.running.delete(running);
      this.releaseEvaluationSlot();
    }
  }

  private acquireEvaluationSlot(signal: AbortSignal): Promise<void> {
    if (this.evaluating < this.options.evalSlots) {
      this.evaluating++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const waiter = (): void => {
        signal.removeEventListener('abort', onAbort);
        this.evaluating++;
        resolve();
      };
      const onAbort = (): void => {
        const index = this.evaluationWaiters.indexOf(waiter);
        if (index >= 0) this.evaluationWaiters.splice(index, 1);
        reject(new Error('aborted'));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.evaluationWaiters.push(waiter);
    });
  }

  private releaseEvaluationSlot(): void {
    this.evaluating--;
    this.evaluationWaiters.shift()?.();
  }

  /** Cancels every in-flight job. A gentle end journals them as abandoned; an interrupt keeps them open for --resume. */
  private async cancelAll(): Promise<void> {
    const interrupted = this.stopReason === 'interrupted';
    const cancels: Promise<unknown>[] = [];
    for (const [jobId, job] of this.jobs) {
      job.abort.abort();
      for (const taskId of job.tasks) cancels.push(this.options.client.cancel(taskId).catch(() => false));
      if (!interrupted) {
        this.state.applyAbandon(jobId);
        this.record({ type: 'abandon', job: jobId, reason: `stopped: ${this.stopReason}` });
        this.noteBest(this.state);
      }
    }
    await Promise.allSettled(cancels);
    await Promise.allSettled([...this.jobs.values()].map((job) => job.promise));
  }

  private record(event: RunEvent, at = new Date().toISOString()): void {
    this.seq = this.journal.append({ ...event, at });
    this.options.onEvent?.(event);
    // Stored before any checkpoint can name them.
    for (const program of this.state.drainAdmitted()) this.options.runDir.putProgram(program);
    if (Date.now() - this.lastCheckpointAt >= (this.options.checkpointEveryMs ?? CHECKPOINT_EVERY_MS)) this.writeCheckpoint();
  }

  private writeCheckpoint(): void {
    this.lastCheckpointAt = Date.now();
    const checkpoint: Checkpoint = { journalSeq: this.seq, elapsedMs: this.elapsed(), timeline: this.timeline, state: this.state.snapshot() };
    writeCheckpoint(this.options.runDir.checkpointFile, checkpoint);
  }

  private noteBest(state: RunState): void {
    const best = state.best;
    const last = this.timeline[this.timeline.length - 1];
    if (best?.objective != null && (!last || last.objective !== best.objective)) {
      this.timeline.push({ elapsedMs: this.elapsed(), evaluations: state.counters.evaluations, llmCalls: state.counters.llmCalls, objective: best.objective });
      if (this.state === state) this.options.runDir.writeBestProgram(this.options.manifest, best.code);
    }
  }

  private timed<T>(work: () => T): T {
    const started = performance.now();
    try {
      return work();
    } finally {
      this.engineMs += performance.now() - started;
    }
  }

  private elapsed(): number {
    return this.elapsedBefore + (Date.now() - this.startedAt);
  }

  private progress(): void {
    this.options.onProgress?.(this.snapshotProgress(this.stopReason ? 'stopping' : 'running'));
  }

  /** The evaluations running now, the longest-running first, each with its time limit. */
  private inFlight(): NonNullable<RunProgress['inFlight']> {
    const now = Date.now();
    const limitMs = evaluationLimitMs(this.options.manifest, this.options.example);
    return [...this.running].map((entry) => ({ label: entry.label, elapsedMs: now - entry.startedAt, limitMs })).sort((a, b) => b.elapsedMs - a.elapsedMs);
  }

  /**
   * The ETA from the pace of evaluations (`byPace`) knows nothing of one that has run for
   * minutes: the run waits for its evaluations in flight (only a wall-time stop cancels them).
   * The estimate is at least what they typically still need, and the worst case is when one
   * runs to its time limit.
   */
  private etaCountingInFlight(byPace: number, inFlight: NonNullable<RunProgress['inFlight']>, elapsedMs: number): Pick<RunProgress, 'etaMs' | 'etaMaxMs'> {
    const wallLeft = this.options.manifest.stop.wallMs !== undefined ? Math.max(0, this.options.manifest.stop.wallMs - elapsedMs) : Infinity;
    const typical = this.pace.evaluationMs;
    const stillTypical = Math.max(0, ...inFlight.map((entry) => (typical !== undefined ? typical - entry.elapsedMs : 0)));
    const toLimit = Math.max(0, ...inFlight.map((entry) => entry.limitMs - entry.elapsedMs));
    const etaMs = Math.min(wallLeft, Math.max(byPace, stillTypical));
    const etaMaxMs = Math.min(wallLeft, Math.max(etaMs, toLimit));
    return { etaMs, ...(etaMaxMs > etaMs && { etaMaxMs }) };
  }

  snapshotProgress(state: RunProgress['state']): RunProgress {
    const { manifest } = this.options;
    const c = this.state.counters;
    const best = this.state.best;
    const seedProgram = this.state.seedId ? this.state.archive.get(this.state.seedId) : undefined;
    const elapsedMs = this.elapsed();
    const reduced = this.state.bestReduction;
    const reduction = reduced && best ? bestReductionOf(reduced, best) : undefined;
    const perMinute = elapsedMs > 0 ? (c.evaluations / elapsedMs) * 60_000 : 0;
    const limit = this.evaluationLimit();
    const etaCandidates: number[] = [];
    if (limit !== undefined && perMinute > 0) etaCandidates.push(((limit - c.evaluations) / perMinute) * 60_000);
    if (manifest.stop.wallMs !== undefined) etaCandidates.push(manifest.stop.wallMs - elapsedMs);
    const inFlight = this.inFlight();
    const eta = etaCandidates.length > 0 ? this.etaCountingInFlight(Math.max(0, Math.min(...etaCandidates)), inFlight, elapsedMs) : undefined;
    return {
      runId: manifest.runId,
      example: manifest.exampleName,
      state,
      direction: manifest.settings.direction,
      objectiveName: manifest.settings.objectiveName,
      ...(manifest.settings.objectiveUnit && { objectiveUnit: manifest.settings.objectiveUnit }),
      seedObjective: seedProgram?.objective ?? null,
      best: best && best.objective !== null ? { id: best.id, objective: best.objective, generation: best.lineage.generation, confirmed: best.measurements.length > 1 } : null,
      generation: this.state.generation,
      evaluations: c.evaluations,
      failedEvaluations: c.failedEvaluations,
      llmCalls: c.llmCalls,
      tokens: { ...c.tokens },
      costUsd: c.costUsd,
      patchYield: {
        firstTry: c.answers > 0 ? c.appliedFirstTry / c.answers : 0,
        afterRepair: c.answers > 0 ? c.appliedAfterRepair / c.answers : 0,
        answers: c.answers,
      },
      evaluationsPerMinute: perMinute,
      elapsedMs,
      ...eta,
      ...(inFlight.length > 0 && { inFlight }),
      ...(this.stopReason && { stopReason: this.stopReason }),
      mutator: manifest.settings.mutator,
      ...(reduction && { reduction }),
      ...(this.state.bestConfirmation && { confirmation: this.state.bestConfirmation }),
    };
  }
}
