/**
 * The deterministic heart of a run: the archive, the selector, the router, the Rng and the
 * counters, changed only by journal events. The live run, resume (checkpoint + journal
 * tail) and replay (the whole journal) all go through these methods in journal order, so
 * the same events always give the same plans, parents and best program.
 */
import type { Evaluation } from '../../../shared/evaluation';
import type { GainConfirmation, LlmUsage, Measurement, Program } from '../../../shared/evolution';
import type { Ablation, RunSettings } from '../../../shared/runManifest';
import { CallCredit } from '../credit/callCredit';
import { ParentYield } from '../credit/parentYield';
import type { FamilyRecord } from '../selection/families';
import { EvoDB } from '../evodb/EvoDB';
import { programId } from '../../../shared/programId';
import { comparesByFactor } from '../../../shared/objectiveText';
import { FeatureSpace } from '../evodb/features';
import { EnsembleRouter } from '../llm/EnsembleRouter';
import { Rng, type RngState } from '../rng';
import { createSelector } from '../selection/createSelector';
import { deletionsIn, editCount, editSignatures, MAX_SPLIT_EDITS, withEdit, withoutOneEdit } from '../mutation/edits';
import { bestFirst } from '../selection/archiveQueries';
import type { ParentSelector, SelectionOutcome, SelectorPlugin, YieldView } from '../selection/ParentSelector';
import { isFreePlan, type EvaluationEvent, type MergeEvent, type PlanEvent, type ProposalEvent, type ReduceEvent, type ConfirmEvent } from '../runEvents';

/**
 * The planning policy of this Peagen: call credit, parent yield, normal-form duplicates (2);
 * splits that take one edit out of a child, reverts by the edit's own lines, parsimony among
 * ties and a later exhaustion of the climbing parent (3); transplants of improving edits onto
 * the best (4); a split keeps the lines its edit only deleted, and an improving child is not
 * split without an edit that only deletes (5); parents chosen per family by the credit its
 * answers earned, and only gains beyond the noise credit a parent (6); an answer already known
 * to the run from another parent counts as a repeat in its parent's novelty, and a family is
 * credited with the improvements that land in it (7); a family founded by a first idea starts
 * with that idea's credit (8); an improvement of a factor-like objective credits its family by
 * the doublings it gained, up to one (9).
 */
export const SEARCH_POLICY = 9;
/**
 * The oldest policy this Peagen still plans by, for a run made before (resume and replay): 5
 * differs from 6 only by the families and the noise-blind parent credit, 6 from 7 only by the
 * novelty's count of answers known elsewhere and where improvements credit a family, 7 from 8
 * only by the founders' credit, and 8 from 9 only by the weight of an improvement, all kept
 * below.
 */
const OLDEST_POLICY = 5;

/** Calls of one kind and what they gave (new children, or correct children for evaluation repairs). */
export interface Tally {
  calls: number;
  successes: number;
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
  /**
   * Improve and repair proposals that brought nothing new to evaluate (no child, a known one,
   * no new sibling either), and their calls: what the budget bought nothing with.
   */
  barrenProposals?: number;
  barrenCalls?: number;
  /**
   * Where the calls went: opening answers, format repairs and re-asks (success: a new child),
   * and evaluation repairs (every call of a repair job; success: a correct child).
   */
  callsByKind: { first: Tally; format: Tally; known: Tally; evaluation: Tally };
  /** Children not evaluated because their normal form was known (comments or layout changed only). */
  normalizedDuplicates: number;
  /** Split jobs (a child tried without one of its edits, no call), and how many beat the child they came from. */
  splits: { jobs: number; improvements: number };
  /** Revert jobs (the best without an edit that did not improve, no call), and how many were as good. */
  reverts: { jobs: number; kept: number };
  /** Transplant jobs (an improving edit made on the best, no call), and how many improved the best. */
  transplants: { jobs: number; improvements: number };
  /** Sibling jobs (another new child of the same call, no call), and how many beat their parent. */
  siblings: { jobs: number; improvements: number };
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

/** One `evolve merge` into the run: when, from which runs, and how many programs it added. */
export interface MergeRecord {
  at: string;
  sources: { runId: string; programs: number }[];
  programs: number;
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
  freeQueue?: FreeTask[];
  /** Children that improved their parent, latest last: their edits are transplanted onto new bests. */
  improvingEdits?: string[];
  jobs: Job[];
  counters: Counters;
  seedId: string | null;
  bestHistory: BestPoint[];
  credit?: unknown;
  yields?: unknown;
  /** Normal-form ids of every child proposed (its program id when it has none). */
  forms?: string[];
  /** Hashes of the edits correct children have made (editSignatures), and the children that made one first. */
  ideas?: string[];
  firstIdeas?: string[];
  /** Answered children that beat their parent beyond the noise: their families earned them (policy 7). */
  improvers?: string[];
  /** Relative differences between the two measurements of confirmed programs (latest last). */
  noise?: number[];
  merges?: MergeRecord[];
  /** The latest reduction of a best (its reduced program whole: it is not in the archive). */
  reduction?: ReduceEvent;
  /** The latest confirmation of a best against the seed. */
  confirmation?: GainConfirmation;
}

/**
 * A job that makes no call: another new child of an earlier call, a child without one of its
 * edits, a program without an edit of its lineage, or a program with the edit of another lineage.
 */
type FreeTask =
  | { kind: 'sibling'; parent: string; from: number; code: string; island: number; model?: string }
  | { kind: 'split'; parent: string; source: string; edit: number; keepDeletions: boolean; island: number }
  | { kind: 'revert' | 'transplant'; parent: string; from: string; island: number };

/** Lineage steps a revert looks back over. */
const REVERT_DEPTH = 64;
/** Improving edits remembered for transplants onto each new best (the latest ones). */
const TRANSPLANT_SOURCES = 8;

const REPAIR_QUEUE_LIMIT = 16;
/** Correct programs the exploit choice ranks (the best and its closest rivals). */
const TOP_LIMIT = 64;
/** Suffix of the family key of the best's family without the best and its ties (familyRecords). */
const BELOW_BEST = '|below the best';
/** Correct programs kept per family (families.ts) for the family's parent choice, best first. */
const FAMILY_LIMIT = 16;
/** Measurement differences kept for the noise estimate. */
const NOISE_SAMPLES = 32;
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
    callsByKind: { first: { calls: 0, successes: 0 }, format: { calls: 0, successes: 0 }, known: { calls: 0, successes: 0 }, evaluation: { calls: 0, successes: 0 } },
    normalizedDuplicates: 0,
    splits: { jobs: 0, improvements: 0 },
    reverts: { jobs: 0, kept: 0 },
    transplants: { jobs: 0, improvements: 0 },
    siblings: { jobs: 0, improvements: 0 },
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
  /** Other runs merged into this one, oldest first. */
  merges: MergeRecord[] = [];
  /**
   * The latest minimal-diff reduction of a best (reduce/reduceBest.ts). Its program is kept
   * here and in the run's program store, not in the archive: it is what a reviewer is offered,
   * not a parent for the search, which goes on from the full best.
   */
  reduction: ReduceEvent | undefined;
  /** The latest confirmation of a best against the seed (confirm/): only a `gain` is offered. */
  confirmation: GainConfirmation | undefined;
  private nextJob = 0;
  private repairQueue: string[] = [];
  /** Splits, reverts and transplants to try, before any new call is made. */
  private freeQueue: FreeTask[] = [];
  /** Children that improved their parent (the latest TRANSPLANT_SOURCES), latest last. */
  private improvingEdits: string[] = [];
  private readonly jobs = new Map<number, Job>();
  /** Every child proposed from each parent (evaluated, failed or duplicate), by parent id. */
  private readonly childrenOf = new Map<string, string[]>();
  /** Programs admitted since the last drainAdmitted(): for the run's program store. */
  private admitted: Program[] = [];
  /** What each kind of call has been earning: the grants of repairs and re-asks follow it. */
  readonly credit: CallCredit;
  /** What asking about each parent has given (new children or repeats). */
  readonly yields: ParentYield;
  /** Normal-form ids of every child proposed: a child with a known form is a duplicate. */
  private readonly forms = new Set<string>();
  /** Content hashes of every edit a correct child has made (mutation/edits.ts editSignatures). */
  private readonly ideas = new Set<string>();
  /** Correct children whose edit no program had made before them: new ideas, not recombinations. */
  private readonly firstIdeas = new Set<string>();
  /**
   * Children of answers (not of free jobs) that beat their parent beyond the noise: from policy
   * 7 on, the family an improvement lands in earns it.
   */
  private readonly improvers = new Set<string>();
  /** The best correct programs, best first (TOP_LIMIT of them). */
  private top: Program[] = [];
  /** The best correct programs of each family (families.ts), best first, by family key. */
  private readonly familyMembers = new Map<string, Program[]>();
  private noise: number[] = [];
  /** tied()'s band for the current noise samples (undefined: to compute). */
  private band: number | undefined;

  /**
   * `loadProgram` supplies the programs a lean snapshot names only by id (the run's store);
   * `selectors` are the allowed plugins' selectors, for a run whose selector one of them provides.
   */
  constructor(
    readonly settings: RunSettings,
    snapshot?: RunStateSnapshot,
    loadProgram?: (id: string) => Program,
    selectors: readonly SelectorPlugin[] = [],
  ) {
    this.archive = snapshot
      ? EvoDB.fromJSON(hydrate(snapshot.archive, loadProgram))
      : new EvoDB({
          direction: settings.direction,
          islands: settings.islands,
          // Without declared axes, the objective's default edges follow what it is (a speedup, a score).
          features: settings.features ?? FeatureSpace.defaults(settings.direction, { name: settings.objectiveName, unit: settings.objectiveUnit }).descriptors,
        });
    this.selector = createSelector(settings.selector, {}, selectors);
    this.router = settings.usesLlm && settings.backends.length > 0 ? new EnsembleRouter(settings.backends, settings.routing) : undefined;
    this.rng = new Rng(snapshot ? snapshot.rng : settings.seed);
    this.credit = new CallCredit(snapshot?.credit);
    this.yields = new ParentYield(snapshot?.yields);
    if (snapshot) {
      for (const form of snapshot.forms ?? []) this.forms.add(form);
      for (const idea of snapshot.ideas ?? []) this.ideas.add(idea);
      for (const id of snapshot.firstIdeas ?? []) this.firstIdeas.add(id);
      for (const id of snapshot.improvers ?? []) this.improvers.add(id);
      this.noise = [...(snapshot.noise ?? [])];
      this.band = undefined;
      for (const program of this.archive.all()) this.rank(program);
      this.selector.restore(snapshot.selector);
      if (this.router && snapshot.router) this.router.restore(snapshot.router);
      this.nextJob = snapshot.nextJob;
      this.repairQueue = [...snapshot.repairQueue];
      this.freeQueue = (snapshot.freeQueue ?? []).map((task) => ({ ...task }));
      this.improvingEdits = [...(snapshot.improvingEdits ?? [])];
      for (const job of snapshot.jobs) this.jobs.set(job.plan.job, job);
      this.counters = { ...emptyCounters(), ...snapshot.counters };
      this.seedId = snapshot.seedId;
      this.bestHistory = [...snapshot.bestHistory];
      this.merges = structuredClone(snapshot.merges ?? []);
      this.reduction = snapshot.reduction && structuredClone(snapshot.reduction);
      this.confirmation = snapshot.confirmation && structuredClone(snapshot.confirmation);
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
      freeQueue: this.freeQueue.map((task) => ({ ...task })),
      improvingEdits: [...this.improvingEdits],
      jobs: [...this.jobs.values()],
      counters: structuredClone(this.counters),
      seedId: this.seedId,
      bestHistory: [...this.bestHistory],
      credit: this.credit.state(),
      yields: this.yields.state(),
      forms: [...this.forms],
      ideas: [...this.ideas],
      firstIdeas: [...this.firstIdeas],
      ...(this.improvers.size > 0 && { improvers: [...this.improvers] }),
      noise: [...this.noise],
      merges: structuredClone(this.merges),
      ...(this.reduction && { reduction: structuredClone(this.reduction) }),
      ...(this.confirmation && { confirmation: structuredClone(this.confirmation) }),
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
    this.rank(program);
    this.seedId = program.id;
    if (program.correct && program.objective !== null) this.bestHistory.push({ evaluations: 0, objective: program.objective, programId: program.id });
  }

  /**
   * The next job: the repair of a failed child when evaluation repairs have been paying off,
   * else a parent from the selector. With an LLM, the job is also granted its format repairs
   * and re-asks from what such calls have been earning (up to `repairAttempts` each), cut so
   * that its worst case fits `allowance` calls.
   */
  plan(limits: { allowance?: number; repairAttempts?: number } = {}): PlanEvent {
    const job = this.nextJob++;
    const free = this.freeQueue.shift();
    if (free) {
      this.counters.plans++;
      const common = { type: 'plan' as const, job, kind: free.kind, parent: free.parent, inspirations: [], avoid: [], arm: free.kind, island: free.island, seed: this.rng.seed() };
      const plan: PlanEvent =
        free.kind === 'sibling'
          ? { ...common, sibling: { from: free.from, code: free.code, ...(free.model && { model: free.model }) } }
          : free.kind === 'split'
            ? { ...common, split: { source: free.source, edit: free.edit, ...(free.keepDeletions && { keepDeletions: true }) } }
            : { ...common, [free.kind]: { from: free.from } };
      this.counters[free.kind === 'sibling' ? 'siblings' : free.kind === 'split' ? 'splits' : free.kind === 'revert' ? 'reverts' : 'transplants'].jobs++;
      this.jobs.set(job, { plan });
      return plan;
    }
    const backend = this.router?.choose(this.rng);
    this.counters.plans++;
    let plan: PlanEvent;
    if (this.repairQueue.length > 0 && (this.ablated('credit') ? this.rng.next() < 0.5 : this.credit.prefersRepair(this.rng))) {
      const failedId = this.repairQueue.shift()!;
      this.counters.repairPlans++;
      plan = { type: 'plan', job, kind: 'repair', parent: failedId, inspirations: [], avoid: this.avoidFor(failedId), arm: 'repair', island: this.archive.get(failedId)?.lineage.island ?? 0, seed: this.rng.seed(), ...(backend && { backend }) };
    } else {
      // Islands take turns; each breeds from its own programs until migration mixes them.
      const island = this.settings.islands > 1 ? job % this.settings.islands : undefined;
      // An island with no correct program yet (at the start, only the seed's island has one)
      // breeds from the whole archive; its children then live on that island.
      const populated = island !== undefined && this.archive.best(island) !== undefined;
      const selection = this.selector.select(this.archive, this.rng, { inspirations: this.settings.inspirations, ...(populated && { island }), ...(!this.ablated('climb') && { yields: this.yieldView() }) });
      if (selection.parent.id === this.archive.best()?.id) this.counters.parentWasBest++;
      plan = {
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
    }
    if (this.settings.usesLlm) plan.calls = this.grantCalls(limits.repairAttempts ?? 2, limits.allowance ?? Infinity);
    this.jobs.set(job, { plan });
    return plan;
  }

  /** Whether the next job is a split: it makes no call, so no budget limits it. */
  nextJobIsFree(): boolean {
    return this.freeQueue.length > 0;
  }

  /** Format repairs and re-asks for a job: what their credit earns, cut to fit `allowance` calls in all. */
  private grantCalls(repairAttempts: number, allowance: number): { format: number; known: number } {
    const earned = this.ablated('credit')
      ? { format: repairAttempts, known: repairAttempts }
      : { format: this.credit.grant('format', repairAttempts, this.rng), known: this.credit.grant('known', repairAttempts, this.rng) };
    const extra = Math.max(0, Math.floor(allowance) - 1);
    const format = Math.min(earned.format, extra);
    return { format, known: Math.min(earned.known, extra - format) };
  }

  /** Re-plans during resume or replay and checks that the journal made the same choice. */
  replayPlan(recorded: PlanEvent): void {
    const policy = this.settings.policy ?? 1;
    if (policy < OLDEST_POLICY || policy > SEARCH_POLICY) {
      throw new Error(`this run was planned by Peagen's search policy ${policy} and this Peagen plans with policies ${OLDEST_POLICY}-${SEARCH_POLICY}: its journal can only be replayed or resumed by the Peagen version that made it`);
    }
    const plan = this.plan();
    const same = plan.job === recorded.job && plan.parent === recorded.parent && plan.seed === recorded.seed && plan.kind === recorded.kind && plan.backend === recorded.backend;
    if (!same) {
      throw new Error(
        `the journal does not replay: job ${recorded.job} chose parent ${recorded.parent.slice(0, 12)} (seed ${recorded.seed}), the replay chose ${plan.parent.slice(0, 12)} (seed ${plan.seed})`,
      );
    }
    // The grants depend on the budget left when the job was planned: the journal says what they were.
    if (recorded.calls) plan.calls = { ...recorded.calls };
    else delete plan.calls;
  }

  /** What the selectors may read of the run's yields: the top programs, parent novelty, the noise band, the families. */
  private yieldView(): YieldView {
    const pending = new Map<string, number>();
    for (const job of this.jobs.values()) if (!job.child) pending.set(job.plan.parent, (pending.get(job.plan.parent) ?? 0) + 1);
    return {
      top: (island) => (island === undefined ? this.top : this.top.filter((program) => program.lineage.island === island)),
      novelty: (id) => this.yields.novelty(id, pending.get(id) ?? 0),
      tied: (a, b) => this.tied(a, b),
      ...(this.familiesOn() && { families: (island) => this.familyRecords(pending, island), familyOf: (program) => this.familyOf(program), firstIdea: (id) => this.firstIdeas.has(id) }),
    };
  }

  /**
   * Records the edits that made a correct child; true when one of them had never been made
   * before in the run (the child is then a first idea). The same step taken again on another
   * variant, or a rename made on a tenth program, is no new idea.
   */
  private noteIdeas(parent: Program, child: Program): boolean {
    let first = false;
    // Kept as content hashes: the checkpoint holds one short id per edit, not its lines.
    for (const signature of editSignatures(parent.code, child.code).map(programId)) {
      if (this.ideas.has(signature)) continue;
      this.ideas.add(signature);
      first = true;
    }
    if (first) this.firstIdeas.add(child.id);
    return first;
  }

  /**
   * Whether a child (normal form) answered about a parent was already known to the run, for
   * that parent's novelty: from policy 7 on (before, only the parent's own answers counted),
   * unless switched off.
   */
  private knownToRun(form: string): boolean {
    return (this.settings.policy ?? 1) >= 7 && !this.ablated('known-elsewhere') && this.forms.has(form);
  }

  /**
   * Whether a family's improvements are those that landed in it (policy 7) rather than those of
   * answers about its programs (policy 6). When a step of the best's lineage changes its
   * structure, the credit moves with it to the new best's family; kept with the parent's, it
   * sent the calls back to the structure the lineage had just left (bad_sort: the best was the
   * parent of 14% of the calls, against 31% before families, and 5.8x at 100 calls against 60x).
   * First ideas still credit the family asked: asking there gave something new, and where a
   * stepping stone came from, the next one may come from too.
   */
  private creditsLanding(): boolean {
    return (this.settings.policy ?? 1) >= 7;
  }

  /**
   * Whether a family founded by a first idea (a correct child whose edit was new to the run and
   * whose structure differs from its parent's) starts with that idea's credit, beside the
   * family that was asked (policy 8, unless switched off). Without it a stepping stone's family
   * starts from the run's average rate, worth two answers, and is given up after a dozen
   * answers without an improvement: fewer than the edits that apply to it, so its next step,
   * one of about fifteen, was often never drawn (trap_windows_js: the running count, found by
   * call 14, was then asked about 6 times in 200 calls).
   */
  private creditsFounders(): boolean {
    return (this.settings.policy ?? 1) >= 8 && !this.ablated('founders');
  }

  /**
   * What an improvement is worth to the family it landed in: one before policy 9; from it, for
   * an objective that compares by factor (a speedup, a time), the doublings it gained up to one
   * (a 10% gain 0.14, a 2x gain or more 1); for another objective, or without both values, one.
   * Counted as one each, the small fixes of a side branch (5.3x to 5.9x) outweighed the steps
   * of the deeper chain (14x to 28x) once the chain had overtaken it, and drew half the calls
   * back to a family five times slower than the best (trap_windows_js).
   */
  private improvementWeight(id: string): number {
    if ((this.settings.policy ?? 1) < 9 || this.ablated('gain-weight')) return 1;
    const child = this.archive.get(id);
    const parent = child && this.archive.get(child.lineage.parents[0] ?? '');
    const terms = { name: this.settings.objectiveName, unit: this.settings.objectiveUnit, direction: this.settings.direction };
    const [after, before] = [child?.objective, parent?.objective];
    if (!comparesByFactor(terms) || !(typeof after === 'number' && after > 0 && typeof before === 'number' && before > 0)) return 1;
    return Math.min(1, Math.abs(Math.log2(after / before)));
  }

  /** Whether parents are chosen per family: from policy 6 on, unless switched off. */
  private familiesOn(): boolean {
    return (this.settings.policy ?? 1) >= 6 && !this.ablated('families');
  }

  /** The family a program belongs to: its niche without the objective's axis (EvoDB.familyOf). */
  private familyOf(program: Program): string {
    return this.archive.familyOf(program);
  }

  /**
   * Each family's programs (of one island, or all) and what asking about them has given;
   * answers still in flight count as answers that gave nothing yet, so that concurrent jobs
   * spread over families as they spread over parents.
   */
  private familyRecords(pending: ReadonlyMap<string, number>, island?: number): FamilyRecord[] {
    // The best's own family is two: the best and its ties (the climb's) and the rest of it. A
    // stepping stone of the best's structure is worse than the best by definition, and would
    // otherwise only ever be asked about through the climb, which never reaches it.
    const best = this.archive.best(island);
    const bestFamily = best ? this.familyOf(best) : undefined;
    // Each program's key once per call: the credits below look programs up again and again.
    const keys = new Map<string, string>();
    const keyOf = (program: Program): string => {
      let key = keys.get(program.id);
      if (key !== undefined) return key;
      key = this.familyOf(program);
      if (key === bestFamily && best && program.objective !== null && program.objective !== undefined && program.id !== best.id && !this.tied(program.objective, best.objective as number)) key = `${key}${BELOW_BEST}`;
      keys.set(program.id, key);
      return key;
    };
    const records = new Map<string, FamilyRecord>();
    for (const members of this.familyMembers.values()) {
      for (const program of members) {
        if (island !== undefined && program.lineage.island !== island) continue;
        const key = keyOf(program);
        const record = records.get(key) ?? { key, members: [], answers: 0, improvements: 0, ideas: 0 };
        (record.members as Program[]).push(program);
        records.set(key, record);
      }
    }
    const count = (programId: string, answers: number, improvements: number, ideas: number): void => {
      const program = this.archive.get(programId);
      const record = program && records.get(keyOf(program));
      if (!record) return;
      record.answers += answers;
      record.improvements += improvements;
      record.ideas += ideas;
    };
    if (this.creditsLanding()) {
      // Answers and first ideas count where they were asked, improvements where they landed.
      for (const [parentId, { answers, ideas }] of this.yields.records()) count(parentId, answers, 0, ideas);
      for (const id of this.improvers) count(id, 0, this.improvementWeight(id), 0);
      if (this.creditsFounders()) {
        for (const id of this.firstIdeas) {
          const idea = this.archive.get(id);
          const parent = idea && this.archive.get(idea.lineage.parents[0] ?? '');
          if (idea && parent && keyOf(idea) !== keyOf(parent)) count(id, 0, 0, 1);
        }
      }
    } else {
      for (const [parentId, { answers, improvements, ideas }] of this.yields.records()) count(parentId, answers, improvements, ideas);
    }
    for (const [parentId, inFlight] of pending) count(parentId, inFlight, 0, 0);
    return [...records.values()];
  }

  /**
   * Whether two objectives are equal within the run's measurement noise: twice the median
   * relative difference between the two measurements of confirmed programs (10% until three
   * are known; clamped to 2-25%). Objectives that are not both positive must be equal.
   */
  tied(a: number, b: number): boolean {
    if (!(a > 0 && b > 0)) return a === b;
    return Math.abs(Math.log(a / b)) <= this.noiseBand();
  }

  /**
   * The band of tied(), kept until a new measurement difference comes in: a selection asks
   * tied() about every program of the best's family, and sorting the differences each time
   * was a tenth of the controller's CPU at 64 workers.
   */
  private noiseBand(): number {
    if (this.band === undefined) {
      const sorted = [...this.noise].sort((x, y) => x - y);
      this.band = sorted.length >= 3 ? Math.min(0.25, Math.max(0.02, 2 * sorted[Math.floor(sorted.length / 2)]!)) : 0.1;
    }
    return this.band;
  }

  ablated(mechanism: Ablation): boolean {
    return this.settings.ablate?.includes(mechanism) ?? false;
  }

  /** Keeps the top list in step with the archive: a correct program takes its place by rank. */
  private rank(program: Program): void {
    if (!program.correct || program.objective === null || !Number.isFinite(program.objective)) return;
    const order = bestFirst(this.settings.direction);
    // A family keeps its FAMILY_LIMIT best programs, and every first idea besides: a stepping
    // stone must not be pushed out by the neutral variants of a better program.
    const family = this.familyOf(program);
    const members = this.familyMembers.get(family) ?? [];
    const place = members.findIndex((other) => order(program, other) < 0);
    if (place >= 0 || members.length < FAMILY_LIMIT || this.firstIdeas.has(program.id)) {
      members.splice(place < 0 ? members.length : place, 0, program);
      if (members.length > FAMILY_LIMIT) {
        const last = members.findLastIndex((other) => !this.firstIdeas.has(other.id));
        if (last >= FAMILY_LIMIT) members.splice(last, 1);
      }
      this.familyMembers.set(family, members);
    }
    let at = this.top.findIndex((other) => order(program, other) < 0);
    if (at < 0) at = this.top.length;
    if (at >= TOP_LIMIT) return;
    this.top.splice(at, 0, program);
    if (this.top.length > TOP_LIMIT) this.top.pop();
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
    const form = event.ok && event.childId ? ((this.ablated('normalize') ? undefined : event.normalizedId) ?? event.childId) : undefined;
    const exact = event.ok && event.childId !== undefined && (this.archive.has(event.childId) || this.isInFlight(event.childId, event.job));
    const sameForm = !exact && form !== undefined && this.forms.has(form);
    this.creditCalls(job, event, exact || sameForm);
    if (form !== undefined) this.noteChild(job.plan.parent, form);
    const newSiblings = event.ok ? this.queueSiblings(job, event, form) : 0;
    const newChild = event.ok && event.childId !== undefined && event.code !== undefined && !exact && !sameForm;
    if (!isFreePlan(job.plan) && !newChild && newSiblings === 0) {
      c.barrenProposals = (c.barrenProposals ?? 0) + 1;
      c.barrenCalls = (c.barrenCalls ?? 0) + event.exchanges.length;
    }
    if (!event.ok || !event.childId || event.code === undefined) {
      c.failedProposals++;
      this.finish(job, { improvedParent: false, improvedBest: false, failed: true, gain: 0 }, { costUsd: event.costUsd, calls: event.exchanges.length }, false);
      return 'done';
    }
    if (exact || sameForm) {
      c.duplicates++;
      if (sameForm) c.normalizedDuplicates++;
      this.finish(job, { improvedParent: false, improvedBest: false, failed: false, gain: 0 }, { costUsd: event.costUsd, calls: event.exchanges.length }, false);
      return 'done';
    }
    this.forms.add(form!);
    job.child = { id: event.childId, code: event.code, proposal: event };
    return 'evaluate';
  }

  /** Remembers a child of `parent` (its normal form id), for the avoid list of its next jobs. */
  private noteChild(parent: string, form: string): void {
    const children = this.childrenOf.get(parent) ?? [];
    if (!children.includes(form)) children.push(form);
    this.childrenOf.set(parent, children);
  }

  /**
   * The other new children of the call (several answers per call) are evaluated next, each as
   * a job of its own that makes no call; one the run already has or measures is dropped.
   */
  /** Queues the call's other new answers as sibling jobs; how many there were. */
  private queueSiblings(job: Job, event: ProposalEvent, childForm: string | undefined): number {
    const queued: FreeTask[] = [];
    const seen = new Set([childForm, event.childId]);
    for (const sibling of event.siblings ?? []) {
      const form = (this.ablated('normalize') ? undefined : sibling.normalizedId) ?? sibling.childId;
      if (seen.has(form) || seen.has(sibling.childId) || this.forms.has(form) || this.knows(sibling.childId)) continue;
      seen.add(form).add(sibling.childId);
      this.noteChild(job.plan.parent, form);
      queued.push({ kind: 'sibling', parent: job.plan.parent, from: job.plan.job, code: sibling.code, island: job.plan.island, ...(event.model && { model: event.model }) });
    }
    // Ahead of splits and reverts: a sibling is as fresh a bet on the parent as the call's own child.
    this.freeQueue.unshift(...queued);
    return queued.length;
  }

  /**
   * Counts each call of a proposal by kind and teaches the credit and the parent's yield what
   * it gave. Only improve jobs teach `first`, `format` and `known` (a repair job's calls are
   * about a broken program, and are counted as the evaluation repair they are).
   */
  private creditCalls(job: Job, event: ProposalEvent, duplicate: boolean): void {
    const byKind = this.counters.callsByKind;
    // A job that makes no call is no answer about its parent.
    if (isFreePlan(job.plan)) return;
    if (job.plan.kind === 'repair') {
      byKind.evaluation.calls += event.exchanges.length;
      return;
    }
    const attempts = event.attempts ?? (event.ok && event.childId ? [{ kind: 'first' as const, result: 'child', child: event.normalizedId ?? event.childId }] : []);
    attempts.forEach((attempt, index) => {
      const counted = index < event.exchanges.length;
      const success = attempt.result === 'child' && !duplicate ? 1 : 0;
      if (counted) {
        byKind[attempt.kind].calls++;
        byKind[attempt.kind].successes += success;
        this.credit.note(attempt.kind, 1, success);
      }
      if (attempt.child !== undefined) this.yields.noteAnswer(job.plan.parent, attempt.child, this.knownToRun(attempt.child));
      for (const other of attempt.also ?? []) this.yields.noteAnswer(job.plan.parent, other, this.knownToRun(other));
    });
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
   * Programs of other runs of the same example, as measured there (`evolve merge`): each one
   * new here joins the archive as an admitted child would (its niche, the ranking, the best),
   * so it can be a parent, an inspiration or the best from the next plan on. A program this
   * run is measuring itself is left to that measurement. Nothing is planned or learnt from
   * it: the selector, the router and the credit learn only from this run's own jobs.
   * Returns the programs added (the archive's copies).
   */
  applyMerge(event: MergeEvent, at: string): Program[] {
    const bestBefore = this.archive.best();
    const added = this.archive.mergePrograms(event.programs.filter((program) => !this.knows(program.id)));
    for (const program of added) {
      this.admitted.push(program);
      this.rank(program);
    }
    const best = this.archive.best();
    if (best && best !== bestBefore && best.objective !== null) {
      // A new best to work from: --patience counts from here, as after an improvement of the run's own.
      this.counters.lastImprovementAt = this.counters.evaluations;
      this.bestHistory.push({ evaluations: this.counters.evaluations, objective: best.objective, programId: best.id });
    }
    this.merges.push({ at, sources: event.sources.map((source) => ({ runId: source.runId, programs: source.programs })), programs: added.length });
    return added;
  }

  /** The best was reduced (or found minimal) as the run ended; its reduced program goes to the program store. */
  applyReduce(event: ReduceEvent): void {
    this.reduction = structuredClone(event);
    // Often the reduced program is one the run has (the best was an earlier program plus a useless
    // edit): the archive's record of it stays the one in the program store, which resume reads.
    if (event.program && !this.archive.has(event.program.id)) this.admitted.push(event.program);
  }

  /** The ended run's best was measured again against the seed. */
  applyConfirm(event: ConfirmEvent): void {
    this.confirmation = structuredClone(event.confirmation);
  }

  /** The confirmation of the current best, when it has one: one of an older best is out of date. */
  get bestConfirmation(): GainConfirmation | undefined {
    const best = this.archive.best();
    return best && this.confirmation?.programId === best.id ? this.confirmation : undefined;
  }

  /** The reduction of the current best, when it has one: a reduction of an older best is out of date. */
  get bestReduction(): ReduceEvent | undefined {
    const best = this.archive.best();
    return best && this.reduction?.best === best.id ? this.reduction : undefined;
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

  /** Whether the run has this program: in its archive, or as a child one of its jobs is measuring. */
  knows(id: string): boolean {
    return this.archive.has(id) || this.isInFlight(id, -1);
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
      this.bestHistory.push({ evaluations: this.counters.evaluations, objective: objective, programId: program.id });
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
    if (job.plan.kind === 'split') {
      const source = job.plan.split ? this.archive.get(job.plan.split.source) : undefined;
      const beat = source?.objective === null ? parentObjective : (source?.objective ?? null);
      if (objective !== null && (beat === null || this.better(objective, beat))) this.counters.splits.improvements++;
    }
    if (job.plan.kind === 'revert' && objective !== null && parentObjective !== null && (!this.better(parentObjective, objective) || this.tied(objective, parentObjective))) this.counters.reverts.kept++;
    // A sibling is an answer to the same call as an improve job's child, and is treated as one.
    const answered = job.plan.kind === 'improve' || job.plan.kind === 'sibling';
    if (job.plan.kind === 'sibling' && improvedParent) this.counters.siblings.improvements++;
    if (answered && parent && (objective === null || improvedParent) && !this.ablated('split')) this.queueSplits(parent, program);
    if (job.plan.kind === 'transplant' && improvedParent) this.counters.transplants.improvements++;
    if (improvedBest && !this.ablated('revert')) this.queueReverts(program);
    if (!this.ablated('transplant')) this.queueTransplants(job.plan, program, { improvedParent, improvedBest });
    if (objective === null && this.settings.repairFailedChildren && answered) {
      const reason = measured[0]!.evaluation.failure?.reason;
      if (reason && REPAIRABLE.has(reason) && this.repairQueue.length < REPAIR_QUEUE_LIMIT) this.repairQueue.push(child.id);
    }
    // Only a gain beyond the noise credits the parent (and its family): a neutral edit beats
    // its parent by chance every other time, and would credit whatever breeds many of them.
    const beyondNoise = parentObjective === null || objective === null || !this.tied(objective, parentObjective) || (this.settings.policy ?? 1) < 6;
    if (improvedParent && answered && beyondNoise) {
      this.yields.noteImprovement(job.plan.parent);
      if (this.creditsLanding()) this.improvers.add(program.id);
    }
    if (objective !== null && parent && this.familiesOn() && this.noteIdeas(parent, program) && answered) this.yields.noteIdea(job.plan.parent);
    const best = this.archive.best()?.objective ?? null;
    const nearBest = objective !== null && (best === null || !this.better(best, objective) || this.tied(objective, best));
    if (values.length === 2 && values[0]! > 0 && values[1]! > 0) {
      this.noise.push(Math.abs(Math.log(values[0]! / values[1]!)));
      if (this.noise.length > NOISE_SAMPLES) this.noise.shift();
      this.band = undefined;
    }
    this.rank(program);
    this.finish(job, { improvedParent, improvedBest, failed: objective === null, gain, nearBest }, { costUsd: proposal.costUsd, calls: proposal.exchanges.length }, true);
  }

  /**
   * A child with several separate edits that failed, or that beat its parent, may owe that
   * to one of its edits: it is tried without each of them (no call), before the next call.
   * An edit's deletions stay with the rest of the child (see deletionsIn): an improving child
   * is not tried without an edit that only deletes, and an edit that also deletes is taken
   * out with its deletions kept. A failed child is also tried without the whole edit, since a
   * deletion may be what broke it (a helper deleted that is still called).
   */
  private queueSplits(parent: Program, child: Program): void {
    const edits = editCount(parent.code, child.code);
    if (edits < 2 || edits > MAX_SPLIT_EDITS) return;
    const failed = child.objective === null;
    const split = (edit: number, keepDeletions: boolean): void => {
      if (withoutOneEdit(parent.code, child.code, edit, keepDeletions) === undefined) return;
      this.freeQueue.push({ kind: 'split', parent: parent.id, source: child.id, edit, keepDeletions, island: child.lineage.island });
    };
    for (let edit = 0; edit < edits; edit++) {
      const deletions = deletionsIn(parent.code, child.code, edit);
      if (deletions === 'some') split(edit, true);
      if (failed || deletions === 'none') split(edit, false);
    }
  }

  /**
   * A new best carries every edit of its lineage, also those that did not improve the program
   * they were made on (measured as a tie or worse): each is tried undone, with no call.
   * Reverts are never reverted (that would only redo the edit).
   */
  private queueReverts(best: Program): void {
    let step: Program | undefined = best;
    for (let depth = 0; step && depth < REVERT_DEPTH; depth++) {
      const before: Program | undefined = step.lineage.parents[0] ? this.archive.get(step.lineage.parents[0]) : undefined;
      if (!before) break;
      const neutral = step.objective !== null && before.objective !== null && !(this.better(step.objective, before.objective) && !this.tied(step.objective, before.objective));
      if (neutral && step.lineage.mutator !== 'revert') this.freeQueue.push({ kind: 'revert', parent: best.id, from: step.id, island: best.lineage.island });
      step = before;
    }
  }

  /**
   * An edit that improved its parent off the best's lineage is tried on the best; a new best
   * gets the latest improving edits that are not already in its lineage. Edits of several
   * places (more than MAX_SPLIT_EDITS) are rewrites of their parent, not edits to carry over.
   */
  private queueTransplants(plan: PlanEvent, child: Program, outcome: { improvedParent: boolean; improvedBest: boolean }): void {
    const parent = this.archive.get(plan.parent);
    const best = this.archive.best();
    if (!parent || !best || best.objective === null) return;
    if (outcome.improvedParent) {
      const edits = editCount(parent.code, child.code);
      if (edits >= 1 && edits <= MAX_SPLIT_EDITS) {
        this.improvingEdits.push(child.id);
        if (this.improvingEdits.length > TRANSPLANT_SOURCES) this.improvingEdits.shift();
        if (!outcome.improvedBest && best.id !== parent.id) this.queueTransplant(best, child);
      }
    }
    if (!outcome.improvedBest) return;
    const lineage = new Set<string>();
    for (let step: Program | undefined = best; step && lineage.size < REVERT_DEPTH; step = step.lineage.parents[0] ? this.archive.get(step.lineage.parents[0]) : undefined) {
      lineage.add(step.id);
    }
    for (const id of this.improvingEdits) {
      const from = this.archive.get(id);
      if (from && !lineage.has(id)) this.queueTransplant(best, from);
    }
  }

  /** Queues `from`'s edit onto `onto` when its lines are there (a job that would make nothing is no job). */
  private queueTransplant(onto: Program, from: Program): void {
    const before = from.lineage.parents[0] ? this.archive.get(from.lineage.parents[0]) : undefined;
    if (!before || withEdit(onto.code, before.code, from.code) === undefined) return;
    this.freeQueue.push({ kind: 'transplant', parent: onto.id, from: from.id, island: onto.lineage.island });
  }

  /**
   * The job is over: the selector, the router and the call credit learn how it went. The
   * credit of improve and repair jobs is per child they gave: correct or not (a repair that
   * gave no child failed; an improve job without a child teaches `first` and the repairs
   * already, through its calls).
   */
  private finish(job: Job, outcome: SelectionOutcome, spent: { costUsd: number; calls: number }, evaluated: boolean): void {
    this.jobs.delete(job.plan.job);
    const { costUsd, calls } = spent;
    const correct = evaluated && !outcome.failed;
    if (calls > 0 && job.plan.kind === 'repair') {
      this.credit.note('evaluation', 1, correct ? 1 : 0);
      if (correct) this.counters.callsByKind.evaluation.successes++;
    }
    if (calls > 0 && job.plan.kind === 'improve' && evaluated) this.credit.note('improve', 1, correct ? 1 : 0);
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
