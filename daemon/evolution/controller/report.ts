/**
 * The run's report (report.md for people, report.json for scripts): what improved, by how
 * much, and how it was verified. Figures only from what the run measured.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as z from 'zod';
import type { EnvironmentUse } from '../../../shared/evaluation';
import { type BestReduction, GAIN, GainConfirmationSchema, type GainConfirmation, type Program, type RunProgress, type StopReason } from '../../../shared/evolution';
import { confidenceText, confirmationLine } from '../../../shared/gainText';
import { nicheLabel } from '../../../shared/nicheLabel';
import { testsPassedText } from '../../../shared/testsPassed';
import { unbundleProgram } from '../../../shared/programFiles';
import { unifiedDiff } from '../mutation/patch/unifiedDiff';
import { comparesByFactor, difference, objectiveValue, seedComparison, type ObjectiveTerms } from '../../../shared/objectiveText';
import { bestFirst } from '../selection/archiveQueries';
import type { TimelinePoint } from './loadRunState';
import { bestReductionOf } from '../reduce/bestReduction';
import type { RunManifest } from '../../../shared/runManifest';
import { DamagedRunError, type RunDir } from './runDir';
import type { MergeRecord, RunState, Tally } from './RunState';
import { readJournal } from '../evodb/journal';
import { type FailureReasonGroup, failureReasonsOf } from './failureReasons';
import { MODEL_SETUP_LINES, OFFLINE_MUTATOR_LIMITS, offlineFoundNothing } from './modelAdvice';

export interface RunReport {
  runId: string;
  example: string;
  objectiveName: string;
  /** The objective's unit (`x`, `%`, `ms`), when the example declares one; absent from older reports. */
  objectiveUnit?: string;
  direction: 'maximize' | 'minimize';
  stopReason: StopReason;
  mutator: string;
  executor?: string;
  /** The example's installed libraries (requirements.txt, package.json) as the seed's evaluation found them. */
  environments?: EnvironmentUse[];
  /** `tests`: "tests passed 5/6" when the evaluator ran the project's tests (shared/testsPassed.ts). */
  seed: { id: string; objective: number | null; tests?: string };
  /** The best measured again against the seed, interleaved, as the run ended (confirm/): only a `gain` is offered. Absent when not confirmed. */
  confirmation?: GainConfirmation;
  best: {
    id: string;
    file: string;
    /**
     * A multi-file program's changes against the seed, one unified diff per changed file
     * (paths relative to the example); absent for a single-file program.
     */
    fileChanges?: { path: string; bestFile: string; diff: string }[];
    objective: number;
    tests?: string;
    /** Every measurement: the first and the confirmation (another seed) of a new best. */
    measurements: { seed: number; objective: number | null }[];
    generation: number;
    /** Best ÷ seed for maximize, seed ÷ best for minimize. */
    improvement: number | null;
    lineage: { id: string; mutator: string; model?: string; objective: number | null; generation: number }[];
  } | null;
  progress: RunProgress;
  /**
   * The occupied niches, strongest first: each with its label in the example's units (`speedup
   * 4–8x · loops 2 · 1–2 built-ins · recursive`), on how many islands it is held, and its strongest elite.
   * Absent from the reports of runs made before it was added.
   */
  niches?: { key: string; label: string; islands: number; best: { id: string; objective: number | null } }[];
  /** Share of improve-jobs whose parent was the best program so far. */
  parentWasBestShare: number;
  /** Share of evaluations spent on children that failed. */
  failedEvaluationShare: number;
  duplicatesSkipped: number;
  failedProposals: number;
  /** Share of LLM answers that became an applied child, per model: at the first try and after repair. */
  patchYieldByModel: { model: string; answers: number; firstTry: number; afterRepair: number }[];
  /** When the best first reached 2x, 5x, 10x, 25x, 50x, 100x the seed (only for an objective compared by factor, not a score). */
  milestones: { factor: number; elapsedMs: number; evaluations: number; llmCalls: number }[];
  timeline: TimelinePoint[];
  /** The controller's own time per candidate (planning, bookkeeping, journal, checkpoints). */
  engineOverheadMsPerCandidate: number;
  /** Where the LLM calls went and what they bought. */
  economics: CallEconomics;
  /** Other runs merged into this one (`evolve merge`), oldest first. */
  merges?: MergeRecord[];
  /**
   * The best reduced to its smallest diff from the seed that keeps most of its gain: `file`
   * (best/) holds the reduced program and best.file (best-full/) the full best. Absent when the best was not
   * reduced (no reduction budget, a run that did not end, runs made before there was one).
   */
  reduction?: BestReduction & {
    /** Where the reduced program is (best/); best.file is then the full best (best-full/). */
    file?: string;
    /** The reduced and the full best's improvement over the seed (as best.improvement). */
    improvement: { reduced: number | null; best: number | null };
    /** One line: "speedup 2.6x with 3 changed lines, 2.7x with all 14". */
    summary: string;
  };
  /** What the reader must know about how programs were judged (the run manifest's cautions). */
  cautions?: string[];
  /**
   * Why children failed, grouped from the journal, the most frequent first (failureReasons.ts).
   * Absent when the journal could not be read, and from reports made before it was added.
   */
  failureReasons?: FailureReasonGroup[];
}

/** Where a run's LLM calls went and what they bought: what report.md's "Calls" section says. */
export interface CallEconomics {
  /** LLM calls per first evaluation of a child (a peer that evaluates every answer spends 1). */
  callsPerEvaluation: number | null;
  /**
   * Calls by kind: opening answers, format repairs (the answer did not apply or did not
   * compile) and re-asks (it repeated a known program), whose success is a new child; and
   * evaluation repairs (a failed child sent back with the evaluator's words), whose success
   * is a correct child.
   */
  callsByKind: { first: Tally; format: Tally; known: Tally; evaluation: Tally };
  /** Children not evaluated because they were known: exactly, or after normalisation (comments, layout). */
  duplicates: { exact: number; normalized: number };
  /** Children with several edits tried without each (no call); how many beat the child they came from. */
  splits: { jobs: number; improvements: number };
  /** Bests tried without an edit of their lineage that did not improve (no call); how many were as good. */
  reverts: { jobs: number; kept: number };
  /** Improving edits of other lineages made on the best (no call); how many improved it. */
  transplants: { jobs: number; improvements: number };
  /** Other new children of a call that asked for several answers (no call of their own); how many beat their parent. */
  siblings: { jobs: number; improvements: number };
  /** Calls whose answers brought nothing new to evaluate (known children, no change, no usable edit) (absent from older reports). */
  barrenCalls?: number;
  /** Doublings of the objective (log2 of best ÷ seed, for minimize seed ÷ best) per 100 calls and per US dollar. */
  doublingsPer100Calls: number | null;
  doublingsPerUsd: number | null;
  /** Best − seed per 100 calls, in the objective's unit: the figure for a score (absent from older reports). */
  gainPer100Calls?: number | null;
}

export function improvementOf(direction: 'maximize' | 'minimize', seed: number | null, value: number | null): number | null {
  if (seed === null || value === null || seed <= 0 || value <= 0) return null;
  return direction === 'maximize' ? value / seed : seed / value;
}

function lineageOf(state: RunState, best: Program): RunReport['best'] extends infer B ? (B extends { lineage: infer L } ? L : never) : never {
  const chain: { id: string; mutator: string; model?: string; objective: number | null; generation: number }[] = [];
  for (let program: Program | undefined = best; program; program = program.lineage.parents[0] ? state.archive.get(program.lineage.parents[0]) : undefined) {
    chain.push({ id: program.id, mutator: program.lineage.mutator, ...(program.lineage.model && { model: program.lineage.model }), objective: program.objective, generation: program.lineage.generation });
    if (chain.length > 1000) break;
  }
  return chain.reverse();
}

function testsOf(program: Program | undefined): { tests?: string } {
  const tests = program?.evaluation ? testsPassedText(program.evaluation.metrics) : undefined;
  return tests ? { tests } : {};
}

export function buildReport(manifest: RunManifest, runDir: RunDir, state: RunState, progress: RunProgress, stopReason: StopReason, timeline: TimelinePoint[], engineMs = 0): RunReport {
  const seed = state.seedId ? state.archive.get(state.seedId) : undefined;
  const best = state.best;
  const direction = manifest.settings.direction;
  // From the state, not the progress handed in: a merge may have replaced the best that was reduced.
  const reduced = state.bestReduction;
  const bestReduction = reduced && best ? bestReductionOf(reduced, best) : undefined;
  const c = state.counters;
  const improvePlans = c.plans - c.repairPlans - (c.splits?.jobs ?? 0) - (c.reverts?.jobs ?? 0) - (c.transplants?.jobs ?? 0) - (c.siblings?.jobs ?? 0);
  const terms: ObjectiveTerms = { name: manifest.settings.objectiveName, direction, unit: manifest.settings.objectiveUnit };
  const milestones: RunReport['milestones'] = [];
  // "Twice the seed" is a milestone for a speedup or a time; for a score it depends on where the scale starts.
  for (const factor of comparesByFactor(terms) ? [2, 5, 10, 25, 50, 100] : []) {
    const point = timeline.find((entry) => (improvementOf(direction, seed?.objective ?? null, entry.objective) ?? 0) >= factor);
    if (point) milestones.push({ factor, elapsedMs: point.elapsedMs, evaluations: point.evaluations, llmCalls: point.llmCalls });
  }
  return {
    runId: manifest.runId,
    example: manifest.exampleName,
    objectiveName: manifest.settings.objectiveName,
    ...(manifest.settings.objectiveUnit && { objectiveUnit: manifest.settings.objectiveUnit }),
    direction,
    stopReason,
    mutator: manifest.settings.mutator,
    ...(best?.evaluation?.executor && { executor: best.evaluation.executor }),
    ...(seed?.evaluation?.environments && { environments: seed.evaluation.environments }),
    seed: { id: seed?.id ?? '', objective: seed?.objective ?? null, ...testsOf(seed) },
    best:
      best && best.objective !== null
        ? {
            id: best.id,
            // With a reduction, best/ holds the reduced program: the full best is beside it (a multi-file program: its folder).
            file: manifest.programFiles
              ? path.join(runDir.dir, bestReduction?.reduced ? 'best-full' : 'best')
              : bestReduction?.reduced
                ? runDir.bestFullFile(manifest.program)
                : runDir.bestFile(manifest.program),
            ...(manifest.programFiles &&
              seed && { fileChanges: fileChangesOf(manifest.programFiles, runDir.bestFiles(manifest, bestReduction?.reduced ? 'best-full' : 'best'), seed.code, best.code) }),
            objective: best.objective,
            ...testsOf(best),
            measurements: best.measurements.map((m) => ({ seed: m.seed, objective: m.objective })),
            generation: best.lineage.generation,
            improvement: improvementOf(direction, seed?.objective ?? null, best.objective),
            lineage: lineageOf(state, best),
          }
        : null,
    progress: withReduction(progress, bestReduction),
    niches: nichesOf(manifest, state),
    parentWasBestShare: improvePlans > 0 ? c.parentWasBest / improvePlans : 0,
    failedEvaluationShare: c.evaluations > 0 ? c.failedEvaluations / c.evaluations : 0,
    duplicatesSkipped: c.duplicates,
    patchYieldByModel: Object.entries(c.yieldByModel ?? {}).map(([model, y]) => ({ model, answers: y.answers, firstTry: y.answers > 0 ? y.firstTry / y.answers : 0, afterRepair: y.answers > 0 ? y.afterRepair / y.answers : 0 })),
    failedProposals: c.failedProposals,
    milestones,
    timeline,
    engineOverheadMsPerCandidate: c.proposals > 0 ? engineMs / c.proposals : 0,
    economics: economicsOf(state, improvementOf(direction, seed?.objective ?? null, best?.objective ?? null), gainOf(direction, seed?.objective ?? null, best?.objective ?? null)),
    merges: structuredClone(state.merges),
    ...(bestReduction && { reduction: reductionOf(manifest, runDir, bestReduction, seed?.objective ?? null) }),
    ...(state.bestConfirmation && { confirmation: structuredClone(state.bestConfirmation) }),
    ...(manifest.cautions && manifest.cautions.length > 0 && { cautions: [...manifest.cautions] }),
    ...failureReasonsField(runDir),
  };
}

/** The journal's failures, grouped; nothing when it cannot be read (the report is still written). */
function failureReasonsField(runDir: RunDir): Pick<RunReport, 'failureReasons'> {
  try {
    return { failureReasons: failureReasonsOf(readJournal(runDir.journalFile).events) };
  } catch {
    return {};
  }
}

function withReduction(progress: RunProgress, reduction: BestReduction | undefined): RunProgress {
  const { reduction: _previous, ...rest } = progress;
  void _previous;
  return reduction ? { ...rest, reduction } : rest;
}

function reductionOf(manifest: RunManifest, runDir: RunDir, reduction: BestReduction, seedObjective: number | null): NonNullable<RunReport['reduction']> {
  const direction = manifest.settings.direction;
  const improvement = { reduced: improvementOf(direction, seedObjective, reduction.reduced?.objective ?? null), best: improvementOf(direction, seedObjective, reduction.bestObjective) };
  return {
    ...structuredClone(reduction),
    ...(reduction.reduced && { file: manifest.programFiles ? path.join(runDir.dir, 'best') : runDir.bestFile(manifest.program) }),
    improvement,
    summary: reductionSummary({ name: manifest.settings.objectiveName, direction, unit: manifest.settings.objectiveUnit }, reduction, improvement),
  };
}

/** "speedup 2.6x with 3 changed lines, 2.7x with all 14" (objective values when there is no factor over the seed). */
export function reductionSummary(terms: ObjectiveTerms, reduction: BestReduction, improvement: { reduced: number | null; best: number | null }): string {
  const objectiveName = terms.name;
  // A speedup reads as its factor over the seed (2.6x; below 2, to two decimals: a gain of 4%
  // read "1.0x"); a score as its value (67.688%).
  const factorText = (factor: number): string => `${factor.toFixed(factor < 2 ? 2 : 1)}x`;
  const figure = (factor: number | null, value: number): string => (factor !== null && comparesByFactor(terms) ? factorText(factor) : objectiveValue(value, terms));
  const lines = (n: number): string => `${n} changed line${n === 1 ? '' : 's'}`;
  const best = figure(improvement.best, reduction.bestObjective);
  if (!reduction.reduced) {
    const why = reduction.changes < 2 ? 'one change, nothing to drop' : reduction.evaluations === 0 ? 'the reduction budget allowed no trial' : `no change could be dropped in ${reduction.evaluations} evaluations`;
    return `${objectiveName} ${best} with ${lines(reduction.bestChangedLines)} (${why})`;
  }
  return `${objectiveName} ${figure(improvement.reduced, reduction.reduced.objective)} with ${lines(reduction.reduced.changedLines)}, ${best} with all ${reduction.bestChangedLines}`;
}

/** The archive's niches over all islands, each by its strongest elite, strongest first. */
function nichesOf(manifest: RunManifest, state: RunState): NonNullable<RunReport['niches']> {
  const { settings } = manifest;
  // The archive's own axes (the defaults when the example declares none): the edges its keys count.
  const axes = { objectiveName: settings.objectiveName, objectiveUnit: settings.objectiveUnit, features: state.archive.space.descriptors };
  const order = bestFirst(settings.direction);
  const byKey = new Map<string, { strongest: Program; islands: number }>();
  for (const niche of state.archive.niches()) {
    const entry = byKey.get(niche.key);
    if (!entry) byKey.set(niche.key, { strongest: niche.elite, islands: 1 });
    else {
      entry.islands++;
      if (order(niche.elite, entry.strongest) < 0) entry.strongest = niche.elite;
    }
  }
  return [...byKey]
    .sort(([, a], [, b]) => order(a.strongest, b.strongest))
    .map(([key, { strongest, islands }]) => ({ key, label: nicheLabel(key, axes), islands, best: { id: strongest.id, objective: strongest.objective } }));
}

/** How much better the best is than the seed, in the objective's unit (positive when better). */
function gainOf(direction: 'maximize' | 'minimize', seed: number | null, best: number | null): number | null {
  if (seed === null || best === null) return null;
  return direction === 'maximize' ? best - seed : seed - best;
}

function economicsOf(state: RunState, improvement: number | null, gain: number | null): CallEconomics {
  const c = state.counters;
  const doublings = improvement !== null && improvement > 0 ? Math.log2(improvement) : null;
  return {
    callsPerEvaluation: c.evaluations > 0 && c.llmCalls > 0 ? c.llmCalls / c.evaluations : null,
    callsByKind: structuredClone(c.callsByKind),
    duplicates: { exact: c.duplicates - c.normalizedDuplicates, normalized: c.normalizedDuplicates },
    splits: { ...c.splits },
    reverts: { ...c.reverts },
    transplants: { ...c.transplants },
    siblings: { ...(c.siblings ?? { jobs: 0, improvements: 0 }) },
    barrenCalls: c.barrenCalls ?? 0,
    doublingsPer100Calls: doublings !== null && c.llmCalls > 0 ? (100 * doublings) / c.llmCalls : null,
    doublingsPerUsd: doublings !== null && c.costUsd > 0 ? doublings / c.costUsd : null,
    gainPer100Calls: gain !== null && c.llmCalls > 0 ? (100 * gain) / c.llmCalls : null,
  };
}

const fmt = (value: number | null | undefined, digits = 3): string => (value === null || value === undefined ? '—' : value.toFixed(digits));
const minutes = (ms: number): string => `${(ms / 60_000).toFixed(1)} min`;
const pct = (share: number): string => `${(share * 100).toFixed(1)}%`;

/** The report's objective in the example's terms (older reports have no unit: a speedup stays one). */
function termsOf(report: RunReport): ObjectiveTerms {
  return { name: report.objectiveName, direction: report.direction, unit: report.objectiveUnit };
}

export function renderReportMarkdown(report: RunReport): string {
  const p = report.progress;
  const terms = termsOf(report);
  const value = (objective: number | null | undefined): string => objectiveValue(objective, terms);
  const lines = [`# Peagen run ${report.runId}`, '', `Example **${report.example}**, objective **${report.objectiveName}** (${report.direction}); mutator **${report.mutator}**; stopped by **${report.stopReason}**.`, ''];
  for (const use of report.environments ?? []) {
    lines.push(`Environment: \`${use.file}\` (sha256 ${use.sha256.slice(0, 12)}…), cached at \`${use.dir}\`, ${use.installed ? 'installed for this run' : 'reused from the cache'}.`, '');
  }
  const cautions = report.cautions ?? [];
  if (cautions.length > 0) lines.push('## Caveats', '', ...cautions.map((caution) => `- **Warning:** ${caution}`), '');
  if (report.best) {
    const b = report.best;
    lines.push(
      '## Result',
      '',
      `- Seed: ${report.objectiveName} ${value(report.seed.objective)}${report.seed.tests ? ` (${report.seed.tests})` : ''}.`,
      `- Best: ${report.objectiveName} ${value(b.objective)}${b.tests ? ` (${b.tests})` : ''}${bestVersusSeed(report, terms)}${report.confirmation ? ` ${confidenceText(report.confirmation)}` : ''} (generation ${b.generation}), in \`${b.file}\`.`,
      ...(report.confirmation ? [`- ${report.confirmation.verdict === GAIN ? 'Measured again' : '**Measured again**'}: ${confirmationLine(report.objectiveName, report.confirmation)}.`] : []),
      `- Measurements of the best: ${b.measurements.map((m) => `${value(m.objective)} (seed ${m.seed})`).join(', ')}${b.measurements.length > 1 ? `; the ${report.direction === 'maximize' ? 'lower' : 'higher'} counts` : ' (not re-measured: it was not a new best when measured, or the run stopped first)'}.`,
      cautions.length > 0
        ? `- Scored by the example's evaluator in a fresh ${report.executor ?? ''} sandbox, which passed it on every measurement; that evaluator is not hardened (see Caveats).`
        : comparesByFactor(terms)
        ? `- Verified by the example's evaluator in a fresh ${report.executor ?? ''} sandbox: its correctness checks (fixed edge cases and held-out inputs) passed on every measurement, and every timed output was checked.`
        : `- Verified by the example's evaluator in a fresh ${report.executor ?? ''} sandbox: the ${report.objectiveName} is what the evaluator computed from the program's answers, and its checks passed on every measurement.`,
      '',
      ...reductionLines(report),
      ...fileChangeLines(b.fileChanges),
      '## Lineage of the best',
      '',
      `| generation | mutator | model | ${report.objectiveName} | program |`,
      '| --- | --- | --- | --- | --- |',
      ...b.lineage.map((step) => `| ${step.generation} | ${step.mutator} | ${step.model ?? ''} | ${value(step.objective)} | ${step.id.slice(0, 12)} |`),
      '',
    );
  } else {
    lines.push('## Result', '', 'No correct program beyond the seed.', '');
  }
  lines.push(
    '## The search',
    '',
    `- ${p.evaluations} evaluations (${pct(report.failedEvaluationShare)} on children that failed), ${fmt(p.evaluationsPerMinute, 1)} per minute, ${minutes(p.elapsedMs)}.`,
    `- Children identical to a known program, not evaluated again: ${report.duplicatesSkipped}; proposals that gave no child: ${report.failedProposals}.`,
    `- Parent was the best so far in ${pct(report.parentWasBestShare)} of improve steps.`,
    `- The controller's own overhead: ${report.engineOverheadMsPerCandidate.toFixed(2)} ms per candidate.`,
    `- LLM: ${p.llmCalls} calls, ${p.tokens.inputTokens} input + ${p.tokens.outputTokens} output tokens, $${p.costUsd.toFixed(4)}.`,
    p.patchYield.answers > 0
      ? `- Patch yield: ${pct(p.patchYield.firstTry)} of answers applied at the first try, ${pct(p.patchYield.afterRepair)} after repair (${p.patchYield.answers} proposals).`
      : '- Patch yield: no LLM answers in this run.',
    ...report.patchYieldByModel.map((y) => `  - ${y.model}: ${pct(y.firstTry)} first try, ${pct(y.afterRepair)} after repair (${y.answers} proposals)`),
    '',
  );
  lines.push(...failureReasonLines(report), ...offlineAdviceLines(report));
  if (report.niches && report.niches.length > 0) lines.push(...nicheLines(report, report.niches), '');
  if (report.merges && report.merges.length > 0) {
    lines.push('## Merged runs', '', ...report.merges.map((merge) => `- Merged in on ${merge.at}: ${merge.programs} programs, from ${merge.sources.map((source) => `run ${source.runId} (${source.programs})`).join(', ')}`), '');
  }
  if (p.llmCalls > 0) lines.push(...economicsLines(report), '');
  if (report.milestones.length > 0) {
    lines.push('## Time to reach', '', '| factor | time | evaluations | LLM calls |', '| --- | --- | --- | --- |');
    for (const m of report.milestones) lines.push(`| ${m.factor}x | ${minutes(m.elapsedMs)} | ${m.evaluations} | ${m.llmCalls} |`);
    lines.push('');
  }
  return `${lines.join('\n')}\n`;
}

/** Each file the best changed against the seed, with its diff (files are matched by path). */
function fileChangesOf(paths: readonly string[], bestFiles: readonly string[], seedCode: string, bestCode: string): NonNullable<NonNullable<RunReport['best']>['fileChanges']> {
  const textsOf = (code: string): Map<string, string> => {
    try {
      return new Map(unbundleProgram(code).map((file) => [file.path, file.text]));
    } catch {
      return new Map();
    }
  };
  const before = textsOf(seedCode);
  const after = textsOf(bestCode);
  return paths.flatMap((file, i) => {
    const old = before.get(file) ?? '';
    const now = after.get(file) ?? '';
    return old === now ? [] : [{ path: file, bestFile: bestFiles[i]!, diff: unifiedDiff(old, now, file) }];
  });
}

/** report.md's per-file diffs of a multi-file best. */
function fileChangeLines(changes: NonNullable<RunReport['best']>['fileChanges']): string[] {
  if (!changes) return [];
  if (changes.length === 0) return ['The best changes no file of the seed.', ''];
  const lines = [`## Changes of the best (${changes.length} file${changes.length === 1 ? '' : 's'})`];
  for (const change of changes) {
    // A fence longer than any backtick run of the diff, so the diff cannot close it.
    const fence = '`'.repeat(Math.max(3, ...Array.from(change.diff.matchAll(/`+/g), (run) => run[0].length + 1)));
    lines.push('', `### ${change.path}`, '', `In \`${change.bestFile}\`.`, '', `${fence}diff`, change.diff.trimEnd(), fence);
  }
  lines.push('');
  return lines;
}

/** report.md's lines on the reduced best: both figures, where each program is, what it cost. */
function reductionLines(report: RunReport): string[] {
  const r = report.reduction;
  if (!r) return [];
  const lines = ['## The smallest diff that keeps the gain', '', `- **${r.summary}**.`];
  if (r.reduced) {
    lines.push(
      `- The reduced program (${r.reduced.id.slice(0, 12)}) is in \`${r.file ?? ''}\`, the full best (${r.bestId.slice(0, 12)}) in \`${report.best?.file ?? ''}\`.`,
      `- The reduced program passed the evaluator's checks on each of its ${r.reduced.measured.length} measurements (${r.reduced.measured.map((value) => fmt(value)).join(', ')})${Object.keys(r.reduced.checks).length > 0 ? ` (${Object.entries(r.reduced.checks).map(([name, value]) => `${name} ${value}`).join(', ')})` : ''}.`,
    );
  }
  lines.push(`- Found by dropping the best's changes one at a time and measuring each trial (kept when correct and at least 90% of the gain): ${r.evaluations} evaluations.`, '');
  return lines;
}

/** Reasons listed in report.md; report.json has them all. */
const REASON_ROWS = 10;

/** report.md's "Why children failed": each reason with its count, the most frequent first. */
function failureReasonLines(report: RunReport): string[] {
  const groups = report.failureReasons;
  if (!groups || groups.length === 0) return [];
  const stage = { evaluation: 'evaluation', proposal: 'no child', task: 'task failed' } as const;
  const shown = groups.slice(0, REASON_ROWS);
  return [
    '## Why children failed',
    '',
    '| children | reason | where |',
    '| --- | --- | --- |',
    ...shown.map((group) => `| ${group.count} | ${group.reason.replaceAll('|', '\\|')} | ${stage[group.stage]} |`),
    ...(groups.length > shown.length ? ['', `… and ${groups.slice(shown.length).reduce((sum, group) => sum + group.count, 0)} more for ${groups.length - shown.length} other reasons, in report.json.`] : []),
    '',
    'Every failure, with its full text, is an event of `journal.jsonl` (`evaluation`, `proposal` or `abandon`).',
    '',
  ];
}

/** report.md's "Without a model": a run of the offline mutator that found nothing says what it cannot do and how to add a model. */
function offlineAdviceLines(report: RunReport): string[] {
  if (!offlineFoundNothing(report)) return [];
  return ['## Without a model', '', OFFLINE_MUTATOR_LIMITS, '', 'To evolve with a model, set one of these and run again:', '', ...MODEL_SETUP_LINES.map((line) => `- ${line.replace(/(\{"llm".*?\}\]\}\})/, '`$1`')}`), ''];
}

/** A long run fills many niches; the strongest tell the story, and report.json has them all. */
const NICHE_ROWS = 20;

/** report.md's "Niches" section: where the archive's elites are, in the example's units. */
function nicheLines(report: RunReport, niches: NonNullable<RunReport['niches']>): string[] {
  const bestId = report.best?.id;
  const shown = niches.slice(0, NICHE_ROWS);
  return [
    '## Niches',
    '',
    `${niches.length} niche${niches.length === 1 ? '' : 's'} hold an elite, the strongest first${bestId ? ' (★: the best program)' : ''}.`,
    '',
    `| niche | ${report.objectiveName} | islands | program |`,
    '| --- | --- | --- | --- |',
    ...shown.map((niche) => `| ${niche.best.id === bestId ? '★ ' : ''}${niche.label} | ${objectiveValue(niche.best.objective, termsOf(report))} | ${niche.islands} | ${niche.best.id.slice(0, 12)} |`),
    ...(niches.length > shown.length ? ['', `… and ${niches.length - shown.length} more in report.json.`] : []),
  ];
}

/** `**2.6x** the seed` (a speedup, a time), `+7.183 points over the seed's 61.517%` (a score), or nothing. */
function bestVersusSeed(report: RunReport, terms: ObjectiveTerms): string {
  const b = report.best;
  if (!b) return '';
  if (comparesByFactor(terms)) return b.improvement !== null ? `, **${b.improvement.toFixed(1)}x** the seed` : '';
  const text = seedComparison(terms, report.seed.objective, b.objective);
  return text ? `, **${text}**` : '';
}

/** Doublings per 100 calls for a speedup or a time; for a score, what 100 calls added to it. */
function improvementPerCall(report: RunReport): string {
  const e = report.economics;
  const terms = termsOf(report);
  if (!comparesByFactor(terms)) {
    const gain = e.gainPer100Calls;
    if (gain === null || gain === undefined) return '—';
    return `${difference(gain, terms)} of ${report.objectiveName} per 100 calls`;
  }
  return `${e.doublingsPer100Calls !== null ? `${e.doublingsPer100Calls.toFixed(2)} doublings of the ${report.objectiveName} per 100 calls` : '—'}${e.doublingsPerUsd !== null ? `; ${e.doublingsPerUsd.toFixed(1)} doublings per US dollar` : ''}`;
}

/** report.md's "Calls" section: where the money went. */
function economicsLines(report: RunReport): string[] {
  const e = report.economics;
  const calls = report.progress.llmCalls;
  const k = e.callsByKind;
  const row = (label: string, tally: { calls: number; successes: number }, success: string): string =>
    `| ${label} | ${tally.calls} | ${pct(calls > 0 ? tally.calls / calls : 0)} | ${tally.calls > 0 ? `${pct(tally.successes / tally.calls)} ${success}` : '—'} |`;
  return [
    '## Calls',
    '',
    `- ${calls} LLM calls for ${report.progress.evaluations} evaluations: ${e.callsPerEvaluation !== null ? e.callsPerEvaluation.toFixed(2) : '—'} calls per evaluation.`,
    `- Improvement per call: ${improvementPerCall(report)}.`,
    ...(e.barrenCalls !== undefined ? [`- Calls that brought nothing new to evaluate (known children, no change, no usable edit): ${e.barrenCalls} (${pct(calls > 0 ? e.barrenCalls / calls : 0)}).`] : []),
    `- Children not evaluated because they were known: ${e.duplicates.exact} exactly, ${e.duplicates.normalized} after normalisation (comments or layout only).`,
    `- Children with several edits tried without one of them (no call): ${e.splits.jobs}, of which ${e.splits.improvements} beat the child they came from.`,
    `- Bests tried without an edit of their lineage that did not improve (no call): ${e.reverts.jobs}, of which ${e.reverts.kept} were as good.`,
    `- Improving edits of other lineages made on the best (no call): ${e.transplants.jobs}, of which ${e.transplants.improvements} improved it.`,
    `- Other new children of a call that asked for several answers (no call of their own): ${e.siblings.jobs}, of which ${e.siblings.improvements} beat their parent.`,
    '',
    '| calls | number | share | success |',
    '| --- | --- | --- | --- |',
    row('opening answers', k.first, 'gave a new child'),
    row('format repairs (did not apply or compile)', k.format, 'gave a new child'),
    row('re-asks (repeated a known program)', k.known, 'gave a new child'),
    row('evaluation repairs (failed child sent back)', k.evaluation, 'gave a correct child'),
  ];
}

/**
 * What the readers of report.json (`evolve list|show|best`, the daemon's run list) rely on,
 * checked when it is read back: the rest is only printed. Loose objects: newer fields pass.
 */
const ReportOutlineSchema = z.looseObject({
  stopReason: z.string(),
  seed: z.looseObject({ objective: z.number().nullable().optional() }),
  best: z.looseObject({ objective: z.number(), improvement: z.number().nullable().optional() }).nullable(),
  progress: z.looseObject({ evaluations: z.number() }),
  reduction: z.looseObject({ summary: z.string().optional() }).optional(),
  confirmation: GainConfirmationSchema.optional(),
});

/**
 * The run's report.json, or undefined while it has none (running, or killed).
 * @throws DamagedRunError when it is there but is not a report this Peagen wrote.
 */
export function readReport(runDir: RunDir): RunReport | undefined {
  let text: string;
  try {
    text = fs.readFileSync(runDir.reportJsonFile, 'utf8');
  } catch {
    return undefined;
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    // A report cut short by a crash between its write and its rename cannot be left: writeWhole renames whole files.
    throw new DamagedRunError(runDir.reportJsonFile, 'is not JSON', REPORT_ADVICE);
  }
  const outline = ReportOutlineSchema.safeParse(raw);
  if (!outline.success) throw new DamagedRunError(runDir.reportJsonFile, `is not a run report this Peagen can read (${outline.error.issues[0]?.message ?? 'wrong form'} at ${outline.error.issues[0]?.path.join('.') ?? 'the top'})`, REPORT_ADVICE);
  return raw as RunReport;
}

/** A report is a summary of the journal: without it the run is listed as not finished, and nothing is lost. */
const REPORT_ADVICE = "it sums up the run's journal, which keeps everything: delete it (or restore it from a copy of the run)";

export function writeReport(runDir: RunDir, report: RunReport): void {
  writeWhole(runDir.reportJsonFile, `${JSON.stringify(report, null, 2)}\n`);
  writeWhole(runDir.reportFile, renderReportMarkdown(report));
}

/** Replaces a file by renaming a complete copy over it: a crash leaves the old report or the new one, never half of one. */
function writeWhole(file: string, text: string): void {
  const temp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temp, text);
  fs.renameSync(temp, file);
}
