/**
 * The deterministic heart of a run: the archive, the selector, the router, the Rng and the
 * counters, changed only by journal events. The live run, resume (checkpoint + journal
 * tail) and replay (the whole journal) all go through these methods in journal order, so
 * the same events always give the same plans, parents and best program.
 */
import type { Evaluation, FeatureDescriptor } from '../../../shared/evaluation';
import type { LlmUsage, Measurement, Program } from '../../../shared/evolution';
import { EvoDB } from '../evodb/EvoDB';
import { EnsembleRouter } from '../llm/EnsembleRouter';
import { Rng, type RngState } from '../rng';
import { createSelector } from '../selection/createSelector';
import type { ParentSelector, SelectionOutcome } from '../selection/ParentSelector';
import type { EvaluationEvent, PlanEvent, ProposalEvent } from './events';

/** What a run is, fixed at its start (run.json): replay rebuilds the state from it. */
export interface RunSettings {
  direction: 'maximize' | 'minimize';
  objectiveName: string;
  features?: FeatureDescriptor[] | undefined;
  islands: number;
  selector: string;
  /** `llm-patch`, `offline`, ... */
  mutator: string;
  usesLlm: boolean;
  backends: { name: string; weight: number }[];
  routing: 'weighted' | 'bandit';
  /** Children per generation (`evolve step` runs one generation). */
  childrenPerGeneration: number;
  inspirations: number;
  /** Send a child that failed evaluation back to the model once, with the error text. */
  repairFailedChildren: boolean;
  /** Measure a would-be best again (another seed) before it counts as best. */
  confirmBest: boolean;
  seed: number;
}

export interface Counters {
  plans: number;
  repairPlans: number;
  /** Improve-plans whose parent was the best program so far. */
  parentWasBest: number;
  proposals: number;
  /** Proposals that gave no child (the answer did not apply, or the mutator found nothing). */
  failedProposals: number;
  duplicates: number;
  /** First measurements of children. */
  evaluations: number;
  failedEvaluations: number;
  confirmations: number;
  abandoned: number;
  llmCalls: number;
  answers: number;
  appliedFirstTry: number;
  appliedAfterRepair: number;
  /** Patch yield per model (`backend/model`): answers, applied at the first try, applied after repair. */
  yieldByModel: Record<string, { answers: number; firstTry: number; afterRepair: number }>;
  tokens: LlmUsage;
  costUsd: number;
  improvementsOfBest: number;
  /** The evaluation count at which the best last improved. */
  lastImprovementAt: number;
}

interface Job {
  plan: PlanEvent;
  /** The child's code and lineage once proposed; its first measurement once evaluated. */
  child?: { id: string; code: string; proposal: ProposalEvent };
  first?: EvaluationEvent;
}

export type ProposalVerdict = 'evaluate' | 'done';
export type EvaluationVerdict = 'confirm' | 'done';

export interface BestPoint {
  evaluations: number;
  objective: number;
  programId: string;
}

export interface RunStateSnapshot {
  /** The archive without its programs' contents (`programIds`; each is stored once in the run's programs/). */
  archive: unknown;
  childrenOf?: Record<string, string[]>;
  selector: unknown;
  router: unknown;
  rng: RngState;
  nextJob: number;
  repairQueue: string[];
  jobs: Job[];
  counters: Counters;
  seedId: string | null;
  bestHistory: BestPoint[];
}

const REPAIR_QUEUE_LIMIT = 16;
/** How many of a parent's known children a plan asks the mutator to avoid. */
const AVOID_LIMIT = 32;
/** Generations between migrations of each island's best to the next island. */
const MIGRATION_GENERATIONS = 10;
/** Failures an LLM can act on from the evaluator's words. */
const REPAIRABLE = new Set(['incorrect', 'crash', 'invalid_output']);

function emptyCounters(): Counters {
  return {
    plans: 0, repairPlans: 0, parentWasBest: 0, proposals: 0, failedProposals: 0, duplicates: 0,
    evaluations: 0, failedEvaluations: 0, confirmations: 0, abandoned: 0, llmCalls: 0, answers: 0,
    appliedFirstTry: 0, appliedAfterRepair: 0, yieldByModel: {}, tokens: { inputTokens: 0, outputTokens: 0 }, costUsd: 0,
    improvementsOfBest: 0, lastImprovementAt: 0,
  };
}

export class RunState {
  readonly archive: EvoDB;
  readonly selector: ParentSelector;
  readonly router: EnsembleRouter | undefined;
  rng: Rng;
  counters: Counters = emptyCounters();
  seedId: string | null = null;
  bestHistory: BestPoint[] = [];
  private nextJob = 0;
  private repairQueue: string[] = [];
  private readonly jobs = new Map<number, Job>();
  /** Every child proposed from each parent (evaluated, failed or duplicate), by parent id. */
  private readonly childrenOf = new Map<string, string[]>();
  /** Programs admitted since the last drainAdmitted(): for the run's program store. */
  private admitted: Program[] = [];

  /**
   * `loadProgram` supplies the programs a lean snapshot names only by id (the run's store).
   */
  constructor(
    readonly settings: RunSettings,
    snapshot?: RunStateSnapshot,
    loadProgram?: (id: string) => Program,
  ) {
    this.archive = snapshot
      ? EvoDB.fromJSON(hydrate(snapshot.archive, loadProgram))
      : new EvoDB({ direction: settings.direction, islands: settings.islands, ...(settings.features && { features: settings.features }) });
    this.selector = createSelector(settings.selector as Parameters<typeof createSelector>[0]);
    this.router = settings.usesLlm && settings.backends.length > 0 ? new EnsembleRouter(settings.backends, settings.routing) : undefined;
    this.rng = new Rng(snapshot ? snapshot.rng : settings.seed);
    if (snapshot) {
      this.selector.restore(snapshot.selector);
      if (this.router && snapshot.router) this.router.restore(snapshot.router);
      this.nextJob = snapshot.nextJob;
      this.repairQueue = [...snapshot.repairQueue];
      for (const job of snapshot.jobs) this.jobs.set(job.plan.job, job);
      this.counters = { ...emptyCounters(), ...snapshot.counters };
      this.seedId = snapshot.seedId;
      this.bestHistory = [...snapshot.bestHistory];
      for (const [parent, children] of Object.entries(snapshot.childrenOf ?? {})) this.childrenOf.set(parent, [...children]);
    }
  }

  /** Programs admitted since the last call, oldest first. */
  drainAdmitted(): Program[] {
    const drained = this.admitted;
    this.admitted = [];
    return drained;
  }

  snapshot(): RunStateSnapshot {
    const { programs, ...archive } = this.archive.toJSON();
    return {
      archive: { ...archive, programIds: programs.map((program) => program.id) },
      childrenOf: Object.fromEntries(this.childrenOf),
      selector: this.selector.state(),
      router: this.router?.state() ?? null,
      rng: this.rng.state(),
      nextJob: this.nextJob,
      repairQueue: [...this.repairQueue],
      jobs: [...this.jobs.values()],
      counters: structuredClone(this.counters),
      seedId: this.seedId,
      bestHistory: [...this.bestHistory],
    };
  }

  get best(): Program | undefined {
    return this.archive.best();
  }

  get generation(): number {
    return Math.floor(this.counters.evaluations / Math.max(1, this.settings.childrenPerGeneration));
  }

  /** Jobs planned and not yet finished (after a resume: the ones to pick up again). */
  openJobs(): { plan: PlanEvent; child?: { id: string; code: string }; first?: EvaluationEvent }[] {
    return [...this.jobs.values()];
  }

  applySeed(program: Program): void {
    this.archive.add(program);
    this.admitted.push(program);
    this.seedId = program.id;
    if (program.correct && program.objective !== null) this.bestHistory.push({ evaluations: 0, objective: program.objective, programId: program.id });
  }

  /** The next job: a repair of a failed child (sometimes), else a parent from the selector. */
  plan(): PlanEvent {
    const job = this.nextJob++;
    const backend = this.router?.choose(this.rng);
    this.counters.plans++;
    if (this.repairQueue.length > 0 && this.rng.next() < 0.5) {
      const failedId = this.repairQueue.shift()!;
      this.counters.repairPlans++;
      const plan: PlanEvent = { type: 'plan', job, kind: 'repair', parent: failedId, inspirations: [], avoid: this.avoidFor(failedId), arm: 'repair', island: this.archive.get(failedId)?.lineage.island ?? 0, seed: this.rng.seed(), ...(backend && { backend }) };
      this.jobs.set(job, { plan });
      return plan;
    }
    // Islands take turns; each breeds from its own programs until migration mixes them.
    const island = this.settings.islands > 1 ? job % this.settings.islands : undefined;
    // An island with no correct program yet (at the start, only the seed's island has one)
    // breeds from the whole archive; its children then live on that island.
    const populated = island !== undefined && this.archive.best(island) !== undefined;
    const selection = this.selector.select(this.archive, this.rng, { inspirations: this.settings.inspirations, ...(populated && { island }) });
    if (selection.parent.id === this.archive.best()?.id) this.counters.parentWasBest++;
    const plan: PlanEvent = {
      type: 'plan',
      job,
      kind: 'improve',
      parent: selection.parent.id,
      inspirations: selection.inspirations.map((program) => program.id),
      avoid: this.avoidFor(selection.parent.id),
      arm: selection.arm,
      island: island ?? selection.island,
      seed: this.rng.seed(),
      ...(backend && { backend }),
    };
    this.jobs.set(job, { plan });
    return plan;
  }

  /** Re-plans during resume or replay and checks that the journal made the same choice. */
  replayPlan(recorded: PlanEvent): void {
    const plan = this.plan();
    const same = plan.job === recorded.job && plan.parent === recorded.parent && plan.seed === recorded.seed && plan.kind === recorded.kind && plan.backend === recorded.backend;
    if (!same) {
      throw new Error(
        `the journal does not replay: job ${recorded.job} chose parent ${recorded.parent.slice(0, 12)} (seed ${recorded.seed}), the replay chose ${plan.parent.slice(0, 12)} (seed ${plan.seed})`,
      );
    }
  }

  applyProposal(event: ProposalEvent): ProposalVerdict {
    const job = this.jobs.get(event.job);
    if (!job) throw new Error(`proposal for unknown job ${event.job}`);
    const c = this.counters;
    c.proposals++;
    c.llmCalls += event.exchanges.length;
    c.tokens.inputTokens += event.usage.inputTokens;
    c.tokens.outputTokens += event.usage.outputTokens;
    c.costUsd += event.costUsd;
    if (event.exchanges.length > 0) {
      c.answers++;
      const model = (c.yieldByModel[event.model ?? 'unknown'] ??= { answers: 0, firstTry: 0, afterRepair: 0 });
      model.answers++;
      if (event.ok && event.repairs === 0) {
        c.appliedFirstTry++;
        model.firstTry++;
      }
      if (event.ok) {
        c.appliedAfterRepair++;
        model.afterRepair++;
      }
    }
    if (event.ok && event.childId) {
      const siblings = this.childrenOf.get(job.plan.parent) ?? [];
      if (!siblings.includes(event.childId)) siblings.push(event.childId);
      this.childrenOf.set(job.plan.parent, siblings);
    }
    if (!event.ok || !event.childId || event.code === undefined) {
      c.failedProposals++;
      this.finish(job, { improvedParent: false, improvedBest: false, failed: true, gain: 0 }, event.costUsd);
      return 'done';
    }
    if (this.archive.has(event.childId) || this.isInFlight(event.childId, event.job)) {
      c.duplicates++;
      this.finish(job, { improvedParent: false, improvedBest: false, failed: false, gain: 0 }, event.costUsd);
      return 'done';
    }
    job.child = { id: event.childId, code: event.code, proposal: event };
    return 'evaluate';
  }

  applyEvaluation(event: EvaluationEvent, at: string): EvaluationVerdict {
    const job = this.jobs.get(event.job);
    if (!job?.child || job.child.id !== event.childId) throw new Error(`evaluation for unknown child ${event.childId.slice(0, 12)} of job ${event.job}`);
    const evaluation = event.evaluation;
    if (event.round === 'first') {
      this.counters.evaluations++;
      job.first = event;
      const objective = evaluation.correct ? evaluation.objective : null;
      if (this.settings.confirmBest && objective !== null && this.beatsBest(objective)) return 'confirm';
      this.admit(job, [event], at);
      return 'done';
    }
    this.counters.confirmations++;
    this.admit(job, job.first ? [job.first, event] : [event], at);
    return 'done';
  }

  /**
   * The job ended without a result. A child cut off while its would-be-best measurement
   * waited for confirmation is not admitted: an unconfirmed measurement never makes the best.
   */
  applyAbandon(jobId: number): void {
    const job = this.jobs.get(jobId);
    if (!job) return;
    this.counters.abandoned++;
    this.jobs.delete(jobId);
    // The router counts every choice as a try until it hears back: an abandoned call earned nothing.
    if (this.router && job.plan.backend) this.router.feedback(job.plan.backend, { reward: 0, costUsd: job.child?.proposal.costUsd ?? 0 });
  }

  private isInFlight(childId: string, except: number): boolean {
    for (const [id, job] of this.jobs) if (id !== except && job.child?.id === childId) return true;
    return false;
  }

  /**
   * Whether a first measurement would make a new best. Children still waiting for their own
   * confirmation do not raise the bar: if they did, a child beating the archive but not them
   * would be admitted unconfirmed and become the best when their confirmation came in lower.
   */
  private beatsBest(objective: number): boolean {
    const best = this.archive.best()?.objective ?? null;
    return best === null || this.better(objective, best);
  }

  private avoidFor(parentId: string): string[] {
    return (this.childrenOf.get(parentId) ?? []).slice(-AVOID_LIMIT);
  }

  private better(a: number, b: number): boolean {
    return this.settings.direction === 'maximize' ? a > b : a < b;
  }

  /** Adds the measured child to the archive and tells the selector and router how it did. */
  private admit(job: Job, measured: EvaluationEvent[], at: string): void {
    const child = job.child!;
    const parent = this.archive.get(job.plan.parent);
    const measurements: Measurement[] = measured.map((event) => ({
      seed: event.seed,
      objective: event.evaluation.correct ? event.evaluation.objective : null,
      wallMs: event.evaluation.wallMs,
    }));
    const correct = measured.every((event) => event.evaluation.correct);
    // With a confirmation, the less favourable measurement counts: a lucky timing must
    // not make a program the best.
    const values = measurements.map((m) => m.objective).filter((value): value is number => value !== null);
    const objective = correct && values.length === measurements.length ? values.reduce((a, b) => (this.better(a, b) ? b : a)) : null;
    const proposal = child.proposal;
    const program: Program = {
      id: child.id,
      code: child.code,
      lineage: {
        parents: [job.plan.parent],
        generation: (parent?.lineage.generation ?? 0) + 1,
        mutator: proposal.mutator,
        ...(proposal.model && { model: proposal.model }),
        ...(proposal.template && { template: proposal.template }),
        ...(proposal.patch && { patch: proposal.patch }),
        exchanges: proposal.exchanges,
        seed: job.plan.seed,
        repairs: proposal.repairs,
        island: job.plan.island,
        createdAt: at,
      },
      evaluation: measured[0]!.evaluation,
      objective,
      correct: objective !== null,
      measurements,
      features: {},
    };
    const bestBefore = this.archive.best();
    const outcome = this.archive.add(program);
    this.admitted.push(program);
    if (objective === null) this.counters.failedEvaluations++;
    const improvedBest = objective !== null && (!bestBefore || bestBefore.objective === null || this.better(objective, bestBefore.objective));
    if (improvedBest) {
      this.counters.improvementsOfBest++;
      this.counters.lastImprovementAt = this.counters.evaluations;
      this.bestHistory.push({ evaluations: this.counters.evaluations, objective: objective!, programId: program.id });
    }
    void outcome;
    const migrationEvery = MIGRATION_GENERATIONS * Math.max(1, this.settings.childrenPerGeneration);
    if (this.settings.islands > 1 && this.counters.evaluations % migrationEvery === 0) this.archive.migrate(this.rng);
    const parentObjective = parent?.objective ?? null;
    const improvedParent = objective !== null && (parentObjective === null || this.better(objective, parentObjective));
    const gain =
      objective !== null && parentObjective !== null && parentObjective !== 0
        ? this.settings.direction === 'maximize'
          ? objective / parentObjective - 1
          : parentObjective / objective - 1
        : 0;
    if (objective === null && this.settings.repairFailedChildren && job.plan.kind === 'improve') {
      const reason = measured[0]!.evaluation.failure?.reason;
      if (reason && REPAIRABLE.has(reason) && this.repairQueue.length < REPAIR_QUEUE_LIMIT) this.repairQueue.push(child.id);
    }
    this.finish(job, { improvedParent, improvedBest, failed: objective === null, gain }, proposal.costUsd);
  }

  private finish(job: Job, outcome: SelectionOutcome, costUsd: number): void {
    this.jobs.delete(job.plan.job);
    if (job.plan.kind === 'improve') {
      const parent = this.archive.get(job.plan.parent);
      if (parent) this.selector.feedback({ arm: job.plan.arm, parent, island: job.plan.island }, outcome);
    }
    if (this.router && job.plan.backend) this.router.feedback(job.plan.backend, { reward: outcome.failed ? 0 : Math.max(0, outcome.gain), costUsd });
  }

  /** The evaluation's failure text for a repair prompt. */
  static failureOf(evaluation: Evaluation | undefined): { code: string; errorText: string } | undefined {
    if (!evaluation?.failure) return undefined;
    return { code: evaluation.failure.reason, errorText: (evaluation.errorText ?? evaluation.failure.message).slice(-4000) };
  }
}

/** A lean archive snapshot with its programs put back from the store. */
function hydrate(archive: unknown, loadProgram: ((id: string) => Program) | undefined): unknown {
  const lean = archive as { programIds?: unknown; programs?: unknown };
  if (lean.programs !== undefined || !Array.isArray(lean.programIds)) return archive;
  if (!loadProgram) throw new Error('this checkpoint keeps its programs in the run directory; load it with the run (loadRunState)');
  const { programIds, ...rest } = lean as { programIds: string[] };
  return { ...rest, programs: programIds.map((id) => loadProgram(id)) };
}
