/**
 * New candidates with no LLM call: a child split into its separate edits, the best without an
 * edit of its lineage that did not improve, and the best with an improving edit of another
 * lineage. And how the run plans them: before any
 * new call, journaled like any job, re-derived the same on replay.
 */
import * as assert from 'node:assert/strict';
import type { Evaluation } from '../../shared/evaluation';
import type { Program } from '../../shared/evolution';
import { applyEvent } from '../../daemon/evolution/controller/applyEvent';
import type { EvaluationEvent, PlanEvent, ProposalEvent, RunEvent } from '../../daemon/evolution/runEvents';
import type { RunSettings } from '../../shared/runManifest';
import { RunState, SEARCH_POLICY } from '../../daemon/evolution/controller/RunState';
import { freeProposal } from '../../daemon/evolution/controller/taskSpecs';
import { programId } from '../../shared/programId';
import { deletionsIn, editCount, withEdit, withoutEdit, withoutOneEdit } from '../../daemon/evolution/mutation/edits';

const lines = (...parts: string[]): string => parts.map((line) => `${line}\n`).join('');
const PARENT = lines('def a():', '    return 1', '', '', '', '', 'def b():', '    return 2', '', '', '', '', 'def c():', '    return 3');
/** Two separate edits: a() returns 10, c() returns 30. */
const CHILD = PARENT.replace('    return 1', '    return 10').replace('    return 3', '    return 30');

describe('edits', () => {
  it('counts separate edits; lines changed close together are one edit', () => {
    assert.equal(editCount(PARENT, CHILD), 2);
    assert.equal(editCount(PARENT, PARENT.replace('def b():\n    return 2', 'def b():\n    return 20')), 1);
    assert.equal(editCount(PARENT, PARENT.replace('def a():\n    return 1', 'def a():\n    x = 0\n    return 1 + x')), 1);
  });

  it('splits a child into the child without each of its edits', () => {
    assert.equal(withoutOneEdit(PARENT, CHILD, 0), PARENT.replace('    return 3', '    return 30'));
    assert.equal(withoutOneEdit(PARENT, CHILD, 1), PARENT.replace('    return 1', '    return 10'));
    assert.equal(withoutOneEdit(PARENT, CHILD, 2), undefined, 'no third edit');
    assert.equal(withoutOneEdit(PARENT, PARENT.replace('    return 3', '    return 30'), 0), undefined, 'without its only edit, a child is its parent: nothing new');
    const three = CHILD.replace('    return 2', '    return 20');
    assert.equal(withoutOneEdit(PARENT, three, 1), CHILD, 'the other edits stay together');
  });

  it('never splits off an edit that only rewrote a comment: the rest is the child but for a stale comment', () => {
    const child = PARENT.replace('    return 1', '    return 1  # the first').replace('    return 3', '    return 30');
    assert.equal(editCount(PARENT, child), 2);
    assert.equal(withoutOneEdit(PARENT, child, 0), undefined, 'without the comment: the same program as the child');
    assert.equal(withoutOneEdit(PARENT, child, 1), PARENT.replace('    return 1', '    return 1  # the first'));
    const commented = child.replace('def c():', '# c\ndef c():');
    assert.equal(withoutEdit(commented, child, commented), undefined, 'undoing a comment-only edit gives no new program');
  });

  it('undoes an edit of an ancestor in a descendant, when its lines are still there', () => {
    const renamed = PARENT.replace('def b():', 'def b_renamed():');
    const descendant = renamed.replace('    return 3', '    return 30');
    assert.equal(withoutEdit(descendant, PARENT, renamed), PARENT.replace('    return 3', '    return 30'));
    const changedAgain = descendant.replace('def b_renamed():', 'def b_final():');
    assert.equal(withoutEdit(changedAgain, PARENT, renamed), undefined, 'the edit was overwritten since: nothing to undo');
  });

  it('makes the edit of one lineage on a program of another, when its lines are there', () => {
    const a = PARENT.replace('    return 1', '    return 10');
    const c = PARENT.replace('    return 3', '    return 30');
    assert.equal(withEdit(a, PARENT, c), CHILD, 'c() returns 30 on the program where a() returns 10');
    assert.equal(withEdit(CHILD, PARENT, c), undefined, 'already made: nothing new');
    assert.equal(withEdit(a.replace('    return 3', '    return 33'), PARENT, c), undefined, 'its lines changed since: it does not apply');
    assert.equal(withEdit(a, PARENT, PARENT.replace('def c():', '# c\ndef c():')), undefined, 'a comment-only edit gives no new program');
    const neighbour = a.replace('def c():', 'def c_renamed():');
    assert.equal(withEdit(neighbour, PARENT, c), neighbour.replace('    return 3', '    return 30'), 'its own lines found when a neighbour changed');
  });

  it('undoes an edit whose neighbouring lines a later edit changed (its own lines are still there)', () => {
    const renamed = PARENT.replace('    return 2', '    return 20');
    const neighbour = renamed.replace('def b():', 'def b_renamed():');
    assert.equal(withoutEdit(neighbour, PARENT, renamed), PARENT.replace('def b():', 'def b_renamed():'));
  });
});

// ------------------------------------------------------------------ the run's free jobs

const AT = '2026-01-01T00:00:00.000Z';

function settings(): RunSettings {
  return { direction: 'maximize', objectiveName: 'speedup', islands: 1, selector: 'epsilon-greedy', mutator: 'offline', usesLlm: false, backends: [], routing: 'weighted', childrenPerGeneration: 1, inspirations: 0, repairFailedChildren: false, confirmBest: true, seed: 3, policy: SEARCH_POLICY };
}

function evaluation(objective: number | null): Evaluation {
  return { correct: objective !== null, objective, direction: 'maximize', metrics: {}, executor: 'test', exitCode: 0, wallMs: 1, ...(objective === null && { failure: { reason: 'incorrect' as const, message: 'wrong' } }) };
}

function seedProgram(code: string): Program {
  return { id: programId(code), code, lineage: { parents: [], generation: 0, mutator: 'seed', exchanges: [], seed: 3, repairs: 0, island: 0, createdAt: AT }, evaluation: evaluation(1), objective: 1, correct: true, measurements: [{ seed: 3, objective: 1, wallMs: 1 }], features: {} };
}

/** Plays one job: its proposal (given, or made with no call for split and revert jobs), then its measurements. */
function play(state: RunState, events: RunEvent[], code: string | undefined, first: number | null, confirm = first): PlanEvent {
  const plan = state.plan();
  events.push(plan);
  const proposal: ProposalEvent =
    code === undefined ? freeProposal(plan, state) : { type: 'proposal', job: plan.job, ok: true, childId: programId(code), code, patch: '', mutator: 'offline', exchanges: [], repairs: 0, usage: { inputTokens: 0, outputTokens: 0 }, costUsd: 0 };
  events.push(proposal);
  if (state.applyProposal(proposal) === 'done') return plan;
  const measured = (round: 'first' | 'confirm', objective: number | null): EvaluationEvent => ({ type: 'evaluation', job: plan.job, childId: proposal.childId!, round, seed: 1, evaluation: evaluation(objective) });
  events.push(measured('first', first));
  if (state.applyEvaluation(measured('first', first), AT) === 'confirm') {
    events.push(measured('confirm', confirm));
    state.applyEvaluation(measured('confirm', confirm), AT);
  }
  return plan;
}

/** Plays every job that makes no call, each child measured at `objective`; returns their plans. */
function playFreeJobs(state: RunState, events: RunEvent[], objective: number | null): PlanEvent[] {
  const plans: PlanEvent[] = [];
  while (state.nextJobIsFree()) plans.push(play(state, events, undefined, objective));
  return plans;
}

describe('the run plans splits, reverts and transplants before any new call', () => {
  it('a failed child with two edits is split; the child without the edit that broke it becomes the best, with no call', () => {
    const state = new RunState(settings());
    const events: RunEvent[] = [];
    state.applySeed(seedProgram(PARENT));
    play(state, events, CHILD, null);
    assert.ok(state.nextJobIsFree(), 'the split comes next');
    // The child without its first edit (a() returns 10) keeps c() returning 30: that one works.
    const split = play(state, events, undefined, 3);
    assert.equal(split.kind, 'split');
    play(state, events, undefined, null);
    assert.equal(state.best?.code, PARENT.replace('    return 3', '    return 30'));
    assert.deepEqual(state.counters.splits, { jobs: 2, improvements: 1 });
    assert.equal(state.counters.llmCalls, 0);
    assert.equal(state.nextJobIsFree(), false);

    const replayed = new RunState(settings());
    replayed.applySeed(seedProgram(PARENT));
    for (const event of events) applyEvent(replayed, event, AT);
    assert.deepEqual(replayed.snapshot(), state.snapshot(), 'split jobs replay from the journal');
  });

  it('an improving child keeps an edit that only deletes lines (the helper its rewrite left unused); a failed one is tried without it', () => {
    // The child rewrites c() and deletes a(), which it no longer needs: without the deletion it
    // is the same idea with dead code left in, in the way of the next edit's SEARCH text.
    const child = PARENT.replace('def a():\n    return 1\n', '').replace('    return 3', '    return 30');
    assert.equal(editCount(PARENT, child), 2);
    assert.equal(deletionsIn(PARENT, child, 0), 'all');
    assert.equal(deletionsIn(PARENT, child, 1), 'none');
    const improving = new RunState(settings());
    improving.applySeed(seedProgram(PARENT));
    play(improving, [], child, 2);
    const planned = playFreeJobs(improving, [], 1);
    assert.deepEqual(
      planned.filter((plan) => plan.kind === 'split').map((plan) => plan.split?.edit),
      [1],
      'only the rewrite is split off; the deletion stays with it',
    );

    const failed = new RunState(settings());
    failed.applySeed(seedProgram(PARENT));
    play(failed, [], child, null);
    const splits = playFreeJobs(failed, [], null);
    assert.deepEqual(splits.filter((plan) => plan.kind === 'split').map((plan) => plan.split?.edit), [0, 1], 'a failed child is tried without each edit');
  });

  it('an edit that deleted lines beside other changes is split off with its deletions kept, and (for a failed child) also whole', () => {
    // One edit deletes a() and renames b() four lines below (one edit: the lines between are
    // context); another makes c() return 30. The child fails.
    const child = PARENT.replace('def a():\n    return 1\n', '').replace('def b():', 'def b_fast():').replace('    return 3', '    return 30');
    assert.equal(editCount(PARENT, child), 2);
    assert.equal(deletionsIn(PARENT, child, 0), 'some');
    const thirty = PARENT.replace('    return 3', '    return 30');
    assert.equal(withoutOneEdit(PARENT, child, 0, true), thirty.replace('def a():\n    return 1\n', ''), 'the rename is taken out, a() stays deleted');
    assert.equal(withoutOneEdit(PARENT, child, 0), thirty, 'the whole edit taken out');
    assert.equal(withoutOneEdit(PARENT, child, 1, true), withoutOneEdit(PARENT, child, 1), 'an edit that deletes nothing: the same either way');

    const state = new RunState(settings());
    const events: RunEvent[] = [];
    state.applySeed(seedProgram(PARENT));
    play(state, events, child, null);
    const splits = playFreeJobs(state, events, null);
    assert.deepEqual(
      splits.map((plan) => plan.split),
      [
        { source: programId(child), edit: 0, keepDeletions: true },
        { source: programId(child), edit: 0 },
        { source: programId(child), edit: 1 },
      ],
      'the edit taken out with its deletions kept first, then whole (the deletion may be what broke it), then the other edit',
    );
    const replayed = new RunState(settings());
    replayed.applySeed(seedProgram(PARENT));
    for (const event of events) applyEvent(replayed, event, AT);
    assert.deepEqual(replayed.snapshot(), state.snapshot(), 'the split with its deletions kept replays from the journal');

    const improving = new RunState(settings());
    improving.applySeed(seedProgram(PARENT));
    play(improving, [], child, 2);
    const planned = playFreeJobs(improving, [], 1);
    assert.deepEqual(
      planned.filter((plan) => plan.kind === 'split').map((plan) => plan.split),
      [
        { source: programId(child), edit: 0, keepDeletions: true },
        { source: programId(child), edit: 1 },
      ],
      'an improving child is never tried with the lines it deleted back in',
    );
  });

  it('a new best is tried without the edits of its lineage that did not improve; the revert is kept when it is as good', () => {
    const state = new RunState(settings());
    const events: RunEvent[] = [];
    state.applySeed(seedProgram(PARENT));
    const renamed = PARENT.replace('def b():', 'def b_renamed():');
    // A rename measured a little higher: a tie within the noise, so the best now carries an edit that did not improve.
    play(state, events, renamed, 1.03, 1.02);
    assert.equal(state.best?.code, renamed);
    while (state.nextJobIsFree()) play(state, events, undefined, 1.0);
    const better = renamed.replace('    return 3', '    return 30');
    const improve = play(state, events, better, 2, 2);
    assert.equal(improve.parent, programId(renamed), 'bred from the best');
    assert.equal(state.best?.code, better);
    assert.ok(state.nextJobIsFree());
    const revert = play(state, events, undefined, 2.02, 2.01);
    assert.equal(revert.kind, 'revert');
    assert.equal(state.best?.code, PARENT.replace('    return 3', '    return 30'), 'the best without the rename');
    assert.equal(state.counters.reverts.kept, 1);
    assert.equal(state.counters.llmCalls, 0);
  });

  /** Two jobs planned from the seed before either is answered: two lineages. */
  function twoLineages(state: RunState, events: RunEvent[], first: { code: string; objective: number }, second: { code: string; objective: number }): void {
    const plans = [state.plan(), state.plan()];
    events.push(...plans);
    for (const [plan, child] of [[plans[0]!, first], [plans[1]!, second]] as const) {
      const proposal: ProposalEvent = { type: 'proposal', job: plan.job, ok: true, childId: programId(child.code), code: child.code, patch: '', mutator: 'offline', exchanges: [], repairs: 0, usage: { inputTokens: 0, outputTokens: 0 }, costUsd: 0 };
      events.push(proposal);
      state.applyProposal(proposal);
      for (const round of ['first', 'confirm'] as const) {
        const measured: EvaluationEvent = { type: 'evaluation', job: plan.job, childId: proposal.childId!, round, seed: 1, evaluation: evaluation(child.objective) };
        events.push(measured);
        if (state.applyEvaluation(measured, AT) !== 'confirm') break;
      }
    }
  }

  const A = PARENT.replace('    return 1', '    return 10');
  const C = PARENT.replace('    return 3', '    return 30');

  for (const [order, first, second] of [
    ['an edit that improved a program off the best is made on the best', { code: A, objective: 2 }, { code: C, objective: 1.5 }],
    ['a new best gets the improving edits of other lineages', { code: C, objective: 1.5 }, { code: A, objective: 2 }],
  ] as const) {
    it(`${order}, with no call, and replays from the journal`, () => {
      const state = new RunState(settings());
      const events: RunEvent[] = [];
      state.applySeed(seedProgram(PARENT));
      twoLineages(state, events, first, second);
      assert.equal(state.best?.code, A);
      assert.ok(state.nextJobIsFree(), 'the transplant comes before any call');
      const transplant = play(state, events, undefined, 3);
      assert.equal(transplant.kind, 'transplant');
      assert.equal(transplant.parent, programId(A));
      assert.equal(state.best?.code, CHILD, 'both improvements in one program');
      assert.deepEqual(state.counters.transplants, { jobs: 1, improvements: 1 });
      assert.equal(state.counters.llmCalls, 0);
      assert.equal(state.nextJobIsFree(), false, 'the edit is in the best now: nothing more to transplant');

      const replayed = new RunState(settings());
      replayed.applySeed(seedProgram(PARENT));
      for (const event of events) applyEvent(replayed, event, AT);
      assert.deepEqual(replayed.snapshot(), state.snapshot(), 'transplant jobs replay from the journal');
    });
  }

  it('transplants can be switched off (the bench measures what they change)', () => {
    const state = new RunState({ ...settings(), ablate: ['transplant'] });
    state.applySeed(seedProgram(PARENT));
    twoLineages(state, [], { code: A, objective: 2 }, { code: C, objective: 1.5 });
    assert.equal(state.nextJobIsFree(), false);
  });
});

describe('the other new children of a call that asked for several answers (siblings)', () => {
  const A = PARENT.replace('    return 1', '    return 10');
  const C = PARENT.replace('    return 3', '    return 30');

  it('are evaluated next, each once, as jobs that make no call, and replay from the journal', () => {
    const state = new RunState(settings());
    const events: RunEvent[] = [];
    state.applySeed(seedProgram(PARENT));
    const plan = state.plan();
    events.push(plan);
    const sibling = (code: string): NonNullable<ProposalEvent['siblings']>[number] => ({ childId: programId(code), code, patch: '' });
    const proposal: ProposalEvent = {
      type: 'proposal',
      job: plan.job,
      ok: true,
      childId: programId(A),
      code: A,
      patch: '',
      mutator: 'llm-patch',
      model: 'gpt-4o-mini',
      exchanges: ['0'.repeat(64)],
      repairs: 0,
      // The child again, a new one twice, and the parent: only the new one is worth an evaluation.
      siblings: [sibling(A), sibling(C), sibling(C), sibling(PARENT)],
      usage: { inputTokens: 10, outputTokens: 20 },
      costUsd: 0,
    };
    events.push(proposal);
    assert.equal(state.applyProposal(proposal), 'evaluate');
    const measure = (job: number, childId: string, objective: number): void => {
      for (const round of ['first', 'confirm'] as const) {
        const measured: EvaluationEvent = { type: 'evaluation', job, childId, round, seed: 1, evaluation: evaluation(objective) };
        events.push(measured);
        if (state.applyEvaluation(measured, AT) !== 'confirm') break;
      }
    };
    measure(plan.job, programId(A), 1.5);
    assert.ok(state.nextJobIsFree(), 'the sibling comes before any new call');
    const next = play(state, events, undefined, 2);
    assert.equal(next.kind, 'sibling');
    assert.equal(next.parent, programId(PARENT), 'a child of the same parent');
    assert.equal(next.calls, undefined, 'it makes no call');
    assert.equal(state.best?.code, C);
    assert.equal(state.best?.lineage.mutator, 'sibling');
    assert.equal(state.best?.lineage.model, 'gpt-4o-mini', 'its lineage names the model that wrote it');
    assert.deepEqual(state.counters.siblings, { jobs: 1, improvements: 1 });
    assert.equal(state.counters.llmCalls, 1);
    assert.equal(state.counters.evaluations, 2, 'two evaluations for one call');
    assert.ok(state.snapshot().childrenOf?.[programId(PARENT)]?.includes(programId(C)), 'the parent\'s next call is asked to avoid it');

    const replayed = new RunState(settings());
    replayed.applySeed(seedProgram(PARENT));
    for (const event of events) applyEvent(replayed, event, AT);
    assert.deepEqual(replayed.snapshot(), state.snapshot(), 'sibling jobs replay from the journal');
  });
});
