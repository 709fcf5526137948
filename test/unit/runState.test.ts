/**
 * RunState, the deterministic heart of a run, fed fabricated journal events: the same events
 * give the same plans (live, replayed, or continued from a snapshot); a failed child is never
 * bred from; a duplicate child is not evaluated; a would-be best is measured twice and the
 * less favourable measurement counts.
 */
import * as assert from 'node:assert/strict';
import type { Evaluation } from '../../shared/evaluation';
import type { Program } from '../../shared/evolution';
import { applyEvent } from '../../daemon/evolution/controller/applyEvent';
import type { EvaluationEvent, PlanEvent, ProposalEvent, RunEvent } from '../../daemon/evolution/runEvents';
import type { RunSettings } from '../../shared/runManifest';
import { RunState, SEARCH_POLICY, type RunStateSnapshot } from '../../daemon/evolution/controller/RunState';
import { programId } from '../../shared/programId';
import { SELECTOR_NAMES } from '../../daemon/evolution/selection/createSelector';
import type { SelectorPlugin, YieldView } from '../../daemon/evolution/selection/ParentSelector';

const AT = '2026-01-01T00:00:00.000Z';
const SEED_CODE = 'def solve(xs):\n    return sorted(xs)\n';

function settings(overrides: Partial<RunSettings> = {}): RunSettings {
  return {
    direction: 'maximize',
    objectiveName: 'speedup',
    islands: 1,
    selector: 'epsilon-greedy',
    mutator: 'offline',
    usesLlm: false,
    backends: [],
    routing: 'weighted',
    childrenPerGeneration: 2,
    inspirations: 2,
    repairFailedChildren: false,
    confirmBest: true,
    seed: 42,
    policy: SEARCH_POLICY,
    ...overrides,
  };
}

function evaluation(objective: number | null): Evaluation {
  return {
    correct: objective !== null,
    objective,
    direction: 'maximize',
    metrics: objective !== null ? { speedup: objective } : {},
    ...(objective === null && { failure: { reason: 'incorrect' as const, message: 'wrong order' } }),
    executor: 'test',
    exitCode: objective === null ? 1 : 0,
    wallMs: 10,
  };
}

function seedProgram(objective = 1): Program {
  return {
    id: programId(SEED_CODE),
    code: SEED_CODE,
    lineage: { parents: [], generation: 0, mutator: 'seed', exchanges: [], seed: 42, repairs: 0, island: 0, createdAt: AT },
    evaluation: evaluation(objective),
    objective,
    correct: true,
    measurements: [{ seed: 42, objective, wallMs: 10 }],
    features: {},
  };
}

function proposal(job: number, code: string): ProposalEvent {
  return { type: 'proposal', job, ok: true, childId: programId(code), code, patch: `patch ${job}`, mutator: 'offline', exchanges: [], repairs: 0, usage: { inputTokens: 0, outputTokens: 0 }, costUsd: 0 };
}

function measured(job: number, code: string, round: 'first' | 'confirm', objective: number | null, seed = 1000 + job): EvaluationEvent {
  return { type: 'evaluation', job, childId: programId(code), round, seed: round === 'first' ? seed : seed + 1, evaluation: evaluation(objective) };
}

/**
 * A scripted world that depends only on the plan: the child's code, whether it is correct
 * (every fourth fails) and its objective (a bit above or below its parent's). So two states
 * given the same plans produce the same events.
 */
function childOf(plan: PlanEvent, parent: Program | undefined): { code: string; first: number | null; confirm: number | null } {
  const code = `${parent?.code ?? SEED_CODE}# job ${plan.job} seed ${plan.seed}\n`;
  if (plan.seed % 4 === 0) return { code, first: null, confirm: null };
  const base = parent?.objective ?? 1;
  const factor = 0.8 + (plan.seed % 7) * 0.08;
  return { code, first: base * factor, confirm: base * factor * 0.97 };
}

/** Plans `jobs` jobs one at a time and plays the scripted world; returns every event in order. */
function drive(state: RunState, jobs: number): RunEvent[] {
  const events: RunEvent[] = [];
  for (let i = 0; i < jobs; i++) {
    const plan = state.plan();
    events.push(plan);
    const child = childOf(plan, state.archive.get(plan.parent));
    const proposed = proposal(plan.job, child.code);
    events.push(proposed);
    if (state.applyProposal(proposed) === 'done') continue;
    const first = measured(plan.job, child.code, 'first', child.first, plan.seed);
    events.push(first);
    if (state.applyEvaluation(first, AT) === 'confirm') {
      const confirm = measured(plan.job, child.code, 'confirm', child.confirm, plan.seed);
      events.push(confirm);
      assert.equal(state.applyEvaluation(confirm, AT), 'done');
    }
  }
  return events;
}

function freshState(overrides: Partial<RunSettings> = {}): RunState {
  const state = new RunState(settings(overrides));
  state.applySeed(seedProgram());
  return state;
}

const plansOf = (events: readonly RunEvent[]): PlanEvent[] => events.filter((event): event is PlanEvent => event.type === 'plan');

describe('RunState', () => {
  for (const selector of SELECTOR_NAMES) {
    it(`${selector}: the same settings and events give the same plans`, () => {
      const a = freshState({ selector });
      const b = freshState({ selector });
      const eventsA = drive(a, 60);
      const eventsB = drive(b, 60);
      assert.deepEqual(plansOf(eventsB), plansOf(eventsA));
      assert.ok(new Set(plansOf(eventsA).map((plan) => plan.parent)).size > 1, 'the plans breed from more than one parent');
      assert.deepEqual(b.snapshot(), a.snapshot());
    });
  }

  it("a stepping stone of the best's own structure, slower than the best, still gets calls; without families it gets none", () => {
    // A world where one answer about the seed is a quick big gain, the other a first step of a
    // deeper change that gains nothing, and every answer about the gain is a neutral variant of
    // it (tied): the climb alone stays on the gain and its variants for good.
    const play = (state: RunState, jobs: number): Map<string, number> => {
      const asked = new Map<string, number>();
      for (let i = 0; i < jobs; i++) {
        const plan = state.plan();
        const parent = state.archive.get(plan.parent)!;
        asked.set(parent.code, (asked.get(parent.code) ?? 0) + 1);
        const code = parent.code === SEED_CODE ? (i === 0 ? `${SEED_CODE}# quick gain\n` : `${SEED_CODE}# stepping stone\n`) : `${parent.code}# variant ${plan.job}\n`;
        const objective = code.includes('stepping stone') ? 1 : 6 * (1 + (plan.seed % 3) / 1000);
        if (state.applyProposal(proposal(plan.job, code)) === 'done') continue;
        if (state.applyEvaluation(measured(plan.job, code, 'first', objective, plan.seed), AT) === 'confirm') state.applyEvaluation(measured(plan.job, code, 'confirm', objective, plan.seed), AT);
      }
      return asked;
    };
    const stoneAsked = (asked: Map<string, number>): number => [...asked].filter(([code]) => code.endsWith('# stepping stone\n')).reduce((sum, [, count]) => sum + count, 0);
    assert.ok(stoneAsked(play(freshState(), 60)) >= 3, 'with families: the stepping stone is asked about');
    assert.equal(stoneAsked(play(freshState({ ablate: ['families'] }), 60)), 0, 'without: never');
  });

  it("an improvement that changes the lineage's family credits the family it lands in (policy 7); policy 6 credited the parent's", () => {
    // The default grid's families here are code-length bins of 500 characters: the gain moves
    // the lineage from the seed's bin to the next.
    const code = `${SEED_CODE}${'# a longer program\n'.repeat(40)}`;
    const familiesAfterGain = (policy: number) => {
      const state = freshState({ policy });
      const plan = state.plan();
      assert.equal(state.applyProposal(proposal(plan.job, code)), 'evaluate');
      if (state.applyEvaluation(measured(plan.job, code, 'first', 4), AT) === 'confirm') state.applyEvaluation(measured(plan.job, code, 'confirm', 4), AT);
      const view = (state as unknown as { yieldView(): YieldView }).yieldView();
      const families = view.families!();
      const of = (program: Program) => families.find((family) => family.key === view.familyOf!(program))!;
      return { seed: of(state.archive.get(plan.parent)!), gain: of(state.archive.get(programId(code))!) };
    };
    const landing = familiesAfterGain(SEARCH_POLICY);
    assert.notEqual(landing.gain.key, landing.seed.key, 'the gain is in another family');
    assert.deepEqual([landing.seed.answers, landing.seed.improvements, landing.gain.answers, landing.gain.improvements], [1, 0, 0, 1], 'asked about the seed, earned by the gain');
    const before = familiesAfterGain(6);
    assert.deepEqual([before.seed.answers, before.seed.improvements, before.gain.improvements], [1, 1, 0], 'policy 6: earned by the seed');
  });

  it('an improvement of a speedup credits its family by the doublings it gained, up to one (policy 9); before, each counted one', () => {
    const code = `${SEED_CODE}${'# a longer program\n'.repeat(40)}`;
    const creditOfGain = (gain: number, policy: number, overrides: Partial<RunSettings> = {}) => {
      const state = freshState({ policy, ...overrides });
      const plan = state.plan();
      assert.equal(state.applyProposal(proposal(plan.job, code)), 'evaluate');
      if (state.applyEvaluation(measured(plan.job, code, 'first', gain), AT) === 'confirm') state.applyEvaluation(measured(plan.job, code, 'confirm', gain), AT);
      const view = (state as unknown as { yieldView(): YieldView }).yieldView();
      return view.families!().find((family) => family.key === view.familyOf!(state.archive.get(programId(code))!))!.improvements;
    };
    assert.ok(Math.abs(creditOfGain(1.25, SEARCH_POLICY) - Math.log2(1.25)) < 1e-9, 'a 25% gain: a third of an improvement');
    assert.equal(creditOfGain(4, SEARCH_POLICY), 1, 'two doublings: one improvement, no more');
    assert.equal(creditOfGain(1.25, 8), 1, 'policy 8: one');
    assert.equal(creditOfGain(1.25, SEARCH_POLICY, { ablate: ['gain-weight'] }), 1, 'switched off');
    assert.equal(creditOfGain(1.25, SEARCH_POLICY, { objectiveName: 'score', objectiveUnit: '%' }), 1, 'a score gains by difference: one');
  });

  it('a first idea that founds another family gives that family its credit too (policy 8); policy 7 credited only the family asked', () => {
    // A stepping stone: a new edit that gains nothing (the seed's objective), in the next code-length bin.
    const code = `${SEED_CODE}${'# a longer program\n'.repeat(40)}`;
    const familiesAfterIdea = (policy: number, ablate?: RunSettings['ablate']) => {
      const state = freshState({ policy, ...(ablate && { ablate }) });
      const plan = state.plan();
      assert.equal(state.applyProposal(proposal(plan.job, code)), 'evaluate');
      state.applyEvaluation(measured(plan.job, code, 'first', 1), AT);
      const view = (state as unknown as { yieldView(): YieldView }).yieldView();
      assert.ok(view.firstIdea!(programId(code)), 'the stone is a first idea');
      const families = view.families!();
      const of = (program: Program) => families.find((family) => family.key === view.familyOf!(program))!;
      const seed = of(state.archive.get(plan.parent)!);
      const stone = of(state.archive.get(programId(code))!);
      assert.notEqual(stone.key, seed.key, 'the stone is in another family');
      return [seed.answers, seed.ideas, stone.answers, stone.ideas, stone.improvements];
    };
    assert.deepEqual(familiesAfterIdea(SEARCH_POLICY), [1, 1, 0, 1, 0], 'the seed asked and earned the idea; the stone starts with it');
    assert.deepEqual(familiesAfterIdea(7), [1, 1, 0, 0, 0], 'policy 7: the stone starts with nothing');
    assert.deepEqual(familiesAfterIdea(SEARCH_POLICY, ['founders']), [1, 1, 0, 0, 0], 'switched off');
  });

  it('replays a journal: every recorded plan is made again, and the state ends the same', () => {
    const live = freshState({ repairFailedChildren: true });
    const events = drive(live, 50);
    const replayed = new RunState(settings({ repairFailedChildren: true }));
    replayed.applySeed(seedProgram());
    for (const event of events) applyEvent(replayed, event, AT);
    assert.deepEqual(replayed.snapshot(), live.snapshot());
    assert.deepEqual(replayed.plan(), live.plan(), 'and it goes on to plan what the live run plans');
  });

  it('refuses a journal whose plan differs from the one the state makes', () => {
    const live = freshState();
    const events = drive(live, 5);
    const replayed = freshState();
    const tampered = events.map((event) => (event.type === 'plan' && event.job === 3 ? { ...event, seed: event.seed + 1 } : event));
    assert.throws(() => {
      for (const event of tampered) applyEvent(replayed, event, AT);
    }, /journal does not replay: job 3/);
  });

  it('continues from snapshot → JSON → new RunState(settings, snapshot) with identical plans, open jobs included', () => {
    const a = freshState({ repairFailedChildren: true });
    drive(a, 30);
    // A job in flight at the checkpoint: planned and proposed, not yet evaluated.
    const open = a.plan();
    const openChild = childOf(open, a.archive.get(open.parent));
    assert.equal(a.applyProposal(proposal(open.job, openChild.code)), 'evaluate');
    const snapshot = JSON.parse(JSON.stringify(a.snapshot())) as RunStateSnapshot;
    // A snapshot names its programs by id; the run's program store (here: a copy) supplies them.
    const store = new Map(a.archive.all().map((program) => [program.id, JSON.parse(JSON.stringify(program))]));
    const b = new RunState(settings({ repairFailedChildren: true }), snapshot, (id) => store.get(id)!);
    assert.deepEqual(b.openJobs().map((job) => job.plan), [open]);
    assert.equal(b.openJobs()[0]!.child?.id, programId(openChild.code));

    for (const state of [a, b]) {
      // Finished as the resumed run would: its first measurement, and no better than the best.
      const first = measured(open.job, openChild.code, 'first', null);
      assert.equal(state.applyEvaluation(first, AT), 'done');
    }
    assert.deepEqual(plansOf(drive(b, 40)), plansOf(drive(a, 40)));
    assert.deepEqual(b.snapshot(), a.snapshot());
  });

  for (const repairFailedChildren of [false, true]) {
    it(`never breeds from a failed child (repairFailedChildren ${repairFailedChildren}); only repair jobs take one up`, () => {
      const state = freshState({ repairFailedChildren, selector: 'ucb1' });
      const events = drive(state, 120);
      const failed = new Set(
        events.filter((event): event is EvaluationEvent => event.type === 'evaluation' && !event.evaluation.correct).map((event) => event.childId),
      );
      assert.ok(failed.size >= 10, `the script failed ${failed.size} children`);
      const plans = plansOf(events);
      for (const plan of plans.filter((p) => p.kind === 'improve')) {
        assert.ok(!failed.has(plan.parent), `job ${plan.job} breeds from the failed ${plan.parent.slice(0, 8)}`);
        for (const id of plan.inspirations) assert.ok(!failed.has(id), `job ${plan.job} is inspired by a failed program`);
      }
      const repairs = plans.filter((p) => p.kind === 'repair');
      if (repairFailedChildren) {
        assert.ok(repairs.length > 0, 'failed children are sent back for repair');
        for (const plan of repairs) assert.ok(failed.has(plan.parent), 'a repair job takes up a failed child');
      } else {
        assert.equal(repairs.length, 0);
      }
    });
  }

  it("a run whose selector a plugin provides uses the one it is handed, from the start and when continued", () => {
    // The plugin's selector always breeds from the seed, and says so in its arm.
    const seedOnly: SelectorPlugin = {
      name: 'seed-only',
      create: () => ({
        name: 'seed-only',
        select: (archive) => ({ parent: archive.get(seedProgram().id)!, inspirations: [], arm: 'seed-only', island: 0 }),
        feedback: () => {},
        state: () => ({}),
        restore: () => {},
      }),
    };
    assert.throws(() => new RunState(settings({ selector: 'seed-only' })), /unknown parent selector "seed-only": use one of epsilon-greedy/);
    const a = new RunState(settings({ selector: 'seed-only' }), undefined, undefined, [seedOnly]);
    a.applySeed(seedProgram());
    drive(a, 6);
    const snapshot = JSON.parse(JSON.stringify(a.snapshot())) as RunStateSnapshot;
    const store = new Map(a.archive.all().map((program) => [program.id, program]));
    const b = new RunState(settings({ selector: 'seed-only' }), snapshot, (id) => store.get(id)!, [seedOnly]);
    for (const state of [a, b]) {
      const plan = state.plan();
      assert.equal(plan.arm, 'seed-only');
      assert.equal(plan.parent, seedProgram().id);
    }
  });

  it('a merge event brings in the programs of another run it lacks; replayed or continued from a snapshot, the run plans the same', () => {
    const other = freshState({ seed: 7 });
    drive(other, 30);
    const events: RunEvent[] = [];
    const live = freshState();
    events.push(...drive(live, 10));
    // A job in flight whose child is one of the other run's programs: it is left to its measurement.
    const theirs = other.archive.all().filter((program) => !live.archive.has(program.id));
    const inFlight = theirs.find((program) => program.correct)!;
    const open = live.plan();
    const proposed = proposal(open.job, inFlight.code);
    assert.equal(live.applyProposal(proposed), 'evaluate');
    events.push(open, proposed);
    const bestBefore = live.best!;
    const merge: RunEvent = { type: 'merge', sources: [{ runId: 'other', dir: '/runs/other', programs: theirs.length }], programs: other.archive.all() };
    events.push(merge);
    applyEvent(live, merge, AT);

    for (const program of theirs) assert.equal(live.archive.has(program.id), program.id !== inFlight.id, `program ${program.id.slice(0, 8)}`);
    const expectedBest = Math.max(bestBefore.objective!, ...theirs.filter((program) => program.id !== inFlight.id && program.correct).map((program) => program.objective!));
    assert.equal(live.best!.objective, expectedBest, 'the best of both runs is the best');
    assert.notEqual(live.archive.get(other.best!.id), other.best, 'merged programs are copies');
    assert.deepEqual(live.merges, [{ at: AT, sources: [{ runId: 'other', programs: theirs.length }], programs: theirs.length - 1 }]);
    assert.deepEqual(
      live.drainAdmitted().filter((program) => theirs.some((their) => their.id === program.id)).map((program) => program.id).sort(),
      theirs.filter((program) => program.id !== inFlight.id).map((program) => program.id).sort(),
      'the merged programs go to the run\'s program store',
    );
    const first = measured(open.job, inFlight.code, 'first', null);
    live.applyEvaluation(first, AT);
    events.push(first);

    const snapshot = JSON.parse(JSON.stringify(live.snapshot())) as RunStateSnapshot;
    const store = new Map(live.archive.all().map((program) => [program.id, JSON.parse(JSON.stringify(program))]));
    const resumed = new RunState(settings(), snapshot, (id) => store.get(id)!);
    const replayed = new RunState(settings());
    replayed.applySeed(seedProgram());
    for (const event of events) applyEvent(replayed, event, AT);
    assert.deepEqual(replayed.snapshot(), live.snapshot());
    const after = plansOf(drive(live, 20));
    assert.ok(after.some((plan) => theirs.some((program) => program.id === plan.parent)), 'the run breeds from merged programs');
    assert.deepEqual(plansOf(drive(resumed, 20)), after);
    assert.deepEqual(plansOf(drive(replayed, 20)), after);
  });

  it('finishes a duplicate child without evaluating it: one already known, or one already in flight', () => {
    const state = freshState();
    const job0 = state.plan();
    // The mutator gave back the seed itself.
    assert.equal(state.applyProposal(proposal(job0.job, SEED_CODE)), 'done');
    assert.equal(state.counters.duplicates, 1);

    const job1 = state.plan();
    const job2 = state.plan();
    const same = `${SEED_CODE}# same child\n`;
    assert.equal(state.applyProposal(proposal(job1.job, same)), 'evaluate');
    assert.equal(state.applyProposal(proposal(job2.job, same)), 'done', 'the same child is in flight in job 1');
    assert.equal(state.counters.duplicates, 2);
    assert.deepEqual(state.openJobs().map((job) => job.plan.job), [job1.job], 'the duplicates are finished');
    assert.equal(state.applyEvaluation(measured(job1.job, same, 'first', 0.5), AT), 'done');

    const job3 = state.plan();
    assert.equal(state.applyProposal(proposal(job3.job, same)), 'done', 'and once evaluated it is known');
    assert.equal(state.counters.duplicates, 3);
    assert.equal(state.counters.evaluations, 1, 'only job 1 was evaluated');
    assert.throws(() => state.applyEvaluation(measured(job3.job, same, 'first', 9), AT), /unknown child/);
  });

  it('a would-be best is confirmed by a second measurement, and the lower of the two counts', () => {
    const state = freshState();
    const plan = state.plan();
    const child = `${SEED_CODE}# faster\n`;
    assert.equal(state.applyProposal(proposal(plan.job, child)), 'evaluate');
    assert.equal(state.applyEvaluation(measured(plan.job, child, 'first', 5), AT), 'confirm');
    assert.equal(state.best?.id, seedProgram().id, 'not the best before its confirmation');
    assert.equal(state.applyEvaluation(measured(plan.job, child, 'confirm', 4), AT), 'done');
    const best = state.best;
    assert.equal(best.id, programId(child));
    assert.equal(best.objective, 4);
    assert.deepEqual(best.measurements.map((m) => m.objective), [5, 4]);
    assert.equal(state.counters.confirmations, 1);

    // The other order: a lucky confirmation does not lift the first measurement.
    const next = state.plan();
    const other = `${SEED_CODE}# faster still\n`;
    state.applyProposal(proposal(next.job, other));
    assert.equal(state.applyEvaluation(measured(next.job, other, 'first', 6), AT), 'confirm');
    assert.equal(state.applyEvaluation(measured(next.job, other, 'confirm', 9), AT), 'done');
    assert.equal(state.best?.objective, 6);
  });

  it('a child below the best is not re-measured; a would-be best that fails its confirmation is a failed program', () => {
    const state = freshState();
    const slow = state.plan();
    const slowChild = `${SEED_CODE}# slower\n`;
    state.applyProposal(proposal(slow.job, slowChild));
    assert.equal(state.applyEvaluation(measured(slow.job, slowChild, 'first', 0.5), AT), 'done');
    assert.equal(state.archive.get(programId(slowChild))?.measurements.length, 1);

    const flaky = state.plan();
    const flakyChild = `${SEED_CODE}# right once\n`;
    state.applyProposal(proposal(flaky.job, flakyChild));
    assert.equal(state.applyEvaluation(measured(flaky.job, flakyChild, 'first', 50), AT), 'confirm');
    state.applyEvaluation(measured(flaky.job, flakyChild, 'confirm', null), AT);
    const program = state.archive.get(programId(flakyChild))!;
    assert.equal(program.correct, false);
    assert.equal(program.objective, null);
    assert.equal(state.best?.id, seedProgram().id);
    for (let i = 0; i < 30; i++) assert.notEqual(state.plan().parent, program.id);
  });

  // A stop (--target, --minutes, an error) cancels a job waiting for its confirmation: its
  // single measurement must not make the best.
  it('a would-be best whose confirmation is abandoned does not become the best unconfirmed', () => {
    const state = freshState();
    const plan = state.plan();
    const child = `${SEED_CODE}# lucky once\n`;
    state.applyProposal(proposal(plan.job, child));
    assert.equal(state.applyEvaluation(measured(plan.job, child, 'first', 50), AT), 'confirm');
    state.applyAbandon(plan.job);
    assert.equal(state.best?.id, seedProgram().id, 'an unconfirmed measurement made the program the best');
  });

  it('islands take turns: an empty island breeds from the archive, its children live there, and every island fills', () => {
    const state = freshState({ islands: 3 });
    const events = drive(state, 30);
    const plans = plansOf(events);
    assert.deepEqual(plans.slice(0, 6).map((plan) => plan.island), [0, 1, 2, 0, 1, 2]);
    for (const island of [0, 1, 2]) assert.ok(state.archive.best(island), `island ${island} has a correct program`);
  });

  it('minimize: the higher of two measurements counts', () => {
    const state = new RunState(settings({ direction: 'minimize' }));
    const seed = seedProgram(10);
    seed.evaluation = { ...seed.evaluation!, direction: 'minimize' };
    state.applySeed(seed);
    const plan = state.plan();
    const child = `${SEED_CODE}# less\n`;
    state.applyProposal(proposal(plan.job, child));
    assert.equal(state.applyEvaluation(measured(plan.job, child, 'first', 4), AT), 'confirm');
    state.applyEvaluation(measured(plan.job, child, 'confirm', 6), AT);
    assert.equal(state.best?.objective, 6);
  });

  it('a child whose normal form is known is not evaluated: a duplicate, counted apart from exact ones', () => {
    const state = freshState();
    const form = 'f'.repeat(64);
    const first = state.plan();
    const code = `${SEED_CODE}x = 1\n`;
    assert.equal(state.applyProposal({ ...proposal(first.job, code), normalizedId: form }), 'evaluate');
    state.applyEvaluation(measured(first.job, code, 'first', 0.9), AT);
    const second = state.plan();
    assert.equal(state.applyProposal({ ...proposal(second.job, `${SEED_CODE}x = 1  # the same\n`), normalizedId: form }), 'done');
    assert.deepEqual([state.counters.duplicates, state.counters.normalizedDuplicates, state.counters.evaluations], [1, 1, 1]);
    assert.deepEqual(state.snapshot().childrenOf?.[first.parent], [form], 'the form is what later jobs on this parent ask the mutator to avoid');
  });

  it('credits each call by kind from the proposal, and the parent\'s yield from the children its answers gave', () => {
    const state = freshState({ usesLlm: true, mutator: 'llm-patch' });
    const plan = state.plan();
    const code = `${SEED_CODE}x = 2\n`;
    const llmProposal: ProposalEvent = {
      ...proposal(plan.job, code),
      mutator: 'llm-patch',
      exchanges: ['a', 'b', 'c'],
      normalizedId: 'e'.repeat(64),
      attempts: [
        { kind: 'first', result: 'no_match' },
        { kind: 'format', result: 'known', child: 'd'.repeat(64) },
        { kind: 'known', result: 'child', child: 'e'.repeat(64) },
      ],
    };
    assert.equal(state.applyProposal(llmProposal), 'evaluate');
    const k = state.counters.callsByKind;
    assert.deepEqual([k.first, k.format, k.known], [{ calls: 1, successes: 0 }, { calls: 1, successes: 0 }, { calls: 1, successes: 1 }]);
    assert.equal(state.yields.answers(plan.parent), 2, 'two answers gave a program (a known one and a new one)');
    assert.equal(state.yields.distinct(plan.parent), 2);
    assert.ok(state.credit.get('known').successes > 0 && state.credit.get('first').successes === 0);
  });

  it("an answer the run already had from another parent counts as a repeat in that parent's novelty (policy 7; policy 6 counted it as new)", () => {
    const form = 'f'.repeat(64);
    const code = `${SEED_CODE}x = 1\n`;
    for (const [policy, novelty] of [
      [SEARCH_POLICY, 1 / 2],
      [6, 1],
    ] as const) {
      const state = freshState({ policy });
      const first = state.plan();
      assert.equal(state.applyProposal({ ...proposal(first.job, code), normalizedId: form }), 'evaluate');
      state.applyEvaluation(measured(first.job, code, 'first', 0.9), AT);
      let other = state.plan();
      for (let tries = 0; other.parent === first.parent && tries < 50; tries++) {
        state.applyAbandon(other.job);
        other = state.plan();
      }
      assert.notEqual(other.parent, first.parent, 'a second parent is planned');
      // The same program reached from the other parent (two edits made in the other order).
      assert.equal(state.applyProposal({ ...proposal(other.job, `${code}  # again\n`), normalizedId: form }), 'done');
      assert.equal(state.yields.novelty(other.parent), novelty, `policy ${policy}`);
    }
  });

  it('with an LLM, a job is granted its follow-up calls, never more than the calls left allow', () => {
    const state = freshState({ usesLlm: true, mutator: 'llm-patch' });
    for (let i = 0; i < 30; i++) {
      const allowance = 1 + (i % 4);
      const plan = state.plan({ allowance, repairAttempts: 2 });
      assert.ok(plan.calls, 'an LLM job carries its grants');
      assert.ok(1 + plan.calls.format + plan.calls.known <= allowance, `job ${plan.job}: ${JSON.stringify(plan.calls)} with ${allowance} calls left`);
      assert.ok(plan.calls.format <= 2 && plan.calls.known <= 2);
      state.applyAbandon(plan.job);
    }
    assert.equal(freshState().plan().calls, undefined, 'without an LLM there is nothing to grant');
  });

  it('replay takes the grants the journal recorded (they depended on the budget left), and refuses a journal of another policy', () => {
    const live = freshState({ usesLlm: true, mutator: 'llm-patch' });
    const plan = live.plan({ allowance: 1, repairAttempts: 2 });
    const replayed = freshState({ usesLlm: true, mutator: 'llm-patch' });
    applyEvent(replayed, plan, AT);
    assert.deepEqual(replayed.openJobs()[0]!.plan.calls, { format: 0, known: 0 });
    const old = freshState({ usesLlm: true, mutator: 'llm-patch', policy: undefined });
    assert.throws(() => applyEvent(old, plan, AT), new RegExp(`search policy 1 .* policies 5-${SEARCH_POLICY}: its journal can only be replayed or resumed by the Peagen version that made it`));
    // The policy before families (5) is still planned by, so a run made by the last version resumes.
    const madeBefore = freshState({ usesLlm: true, mutator: 'llm-patch', policy: 5 }).plan();
    assert.doesNotThrow(() => applyEvent(freshState({ usesLlm: true, mutator: 'llm-patch', policy: 5 }), madeBefore, AT));
  });
});
