/**
 * Why a run's children failed, grouped and counted from its journal: the evaluations that
 * gave no score (timed out, failed the project's tests, crashed), the proposals that gave no
 * child (the patch did not apply) and the jobs whose task failed. The end-of-run summary and
 * report.md name the top groups, so a user learns why without reading journal.jsonl.
 *
 * Grouping is by kind and the first line of the recorded message, with the parts that differ
 * between children of one cause (numbers, quoted names, paths) normalised away.
 */
import type { Evaluation } from '../../../shared/evaluation';

export interface FailureReasonGroup {
  /** One line a user reads: `the patch did not apply`, `tests failed: test_x`, `timed out after 300 s`. */
  reason: string;
  count: number;
  /** Where the children failed: their evaluation, their proposal, or the job's task. */
  stage: 'evaluation' | 'proposal' | 'task';
}

/** Longest reason shown; the journal keeps the whole message. */
const REASON_CHARS = 72;
/** Failing tests named per group; more are counted. */
const TESTS_NAMED = 3;

/** Proposal reasons (Mutator.ts) in the words of a person reading the summary. */
const PROPOSAL_REASONS: Record<string, string> = {
  no_match: 'the patch did not apply',
  ambiguous: 'the patch did not apply',
  bad_diff: 'the patch did not apply',
  outside_block: 'the patch did not apply',
  no_edit: 'the answer held no edit',
  identical: 'the edit changed nothing',
  known: 'the child repeated a known program',
  syntax: 'the child did not compile',
  no_mutation: 'the offline mutator found no edit to make',
  llm_error: 'the LLM call failed',
  prompt_error: 'the prompt could not be built',
};

/** Evaluation failures whose message is always the same sentence: named by the limit instead. */
const LIMIT_REASONS: Record<string, string> = {
  memory: 'exceeded its memory limit',
  pids: 'exceeded its process limit',
  output: 'flooded its output',
  cancelled: 'was cancelled',
};

/**
 * The first line with text, without control characters: a candidate's own words (an exception's
 * message) reach the user's terminal here, and an escape sequence must not act on it.
 */
function firstLine(text: string): string {
  return printable(text.split('\n').find((candidate) => candidate.trim() !== '') ?? '').trim();
}

function printable(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ');
}

function shorten(text: string): string {
  return text.length > REASON_CHARS ? `${text.slice(0, REASON_CHARS - 1)}…` : text;
}

/**
 * The part of a line that is the same for every child with this cause: quoted text, paths
 * and numbers (line numbers, sizes, input indexes) vary between them.
 */
export function normaliseReason(line: string): string {
  return line
    .replace(/(["'`])(?:(?!\1).){0,200}\1/g, '…')
    .replace(/(?:[A-Za-z]:)?(?:[\\/][\w.@+-]+){2,}/g, '<path>')
    .replace(/\b0x[0-9a-f]+\b/gi, 'N')
    .replace(/\d+(?:\.\d+)?/g, 'N')
    .replace(/\s+/g, ' ')
    .trim();
}

/** `the project's tests failed` with the failing tests' names (unittest's and node --test's `FAIL: name`), when given. */
function testsReason(message: string): string | undefined {
  if (!/the project's tests/i.test(firstLine(message))) return undefined;
  const names = [...new Set(Array.from(message.matchAll(/^(?:FAIL|ERROR|not ok \d+ -):? (\S+)/gm), (match) => printable(match[1]!)))].sort();
  if (names.length === 0) return "the project's tests failed";
  const shown = names.slice(0, TESTS_NAMED).join(', ');
  return `tests failed: ${shown}${names.length > TESTS_NAMED ? ` and ${names.length - TESTS_NAMED} more` : ''}`;
}

/** A seconds figure as people say it: `300 s`, `2.5 s`. */
function seconds(ms: number): string {
  const s = ms / 1000;
  return `${s >= 1 ? Math.round(s) : Number(s.toFixed(1))} s`;
}

interface Keyed {
  key: string;
  /** The reason as shown when the group has one member (its own words, numbers and all). */
  text: string;
  /** The reason as shown for a group of several (the normalised words). */
  groupText: string;
  stage: FailureReasonGroup['stage'];
}

/** The group of one failed evaluation. */
export function evaluationReason(evaluation: Pick<Evaluation, 'failure' | 'wallMs' | 'correct' | 'errorText'>): Keyed | undefined {
  if (evaluation.correct && !evaluation.failure) return undefined;
  const failure = evaluation.failure;
  const stage = 'evaluation' as const;
  if (!failure) {
    const line = firstLine(evaluation.errorText ?? '') || 'failed its evaluation';
    return { key: `evaluation:${normaliseReason(line)}`, text: shorten(line), groupText: shorten(normaliseReason(line)), stage };
  }
  if (failure.reason === 'timeout') {
    // The limit, not the message: every timed-out child ran to (about) the same deadline.
    const limit = `timed out after ${seconds(evaluation.wallMs)}`;
    return { key: `timeout:${limit}`, text: limit, groupText: limit, stage };
  }
  const limit = LIMIT_REASONS[failure.reason];
  if (limit) return { key: `limit:${failure.reason}`, text: limit, groupText: limit, stage };
  const tests = testsReason(failure.message);
  if (tests) return { key: `tests:${tests}`, text: tests, groupText: tests, stage };
  // The harness's own "input #3 (edge, n=2): " says which input, not why: the why follows it.
  const line = firstLine(failure.message).replace(/^input #\d+ \([^)]*\):\s*/, '') || failure.reason;
  // An exception is grouped by its kind: the names and lines in its message differ between children.
  const raised = /^(?:raised\s+)?(?:\w+\.)*([A-Z]\w*(?:Error|Exception|Exit|Interrupt))\b/.exec(line);
  if (raised) return { key: `raised:${raised[1]}`, text: `raised ${raised[1]}`, groupText: `raised ${raised[1]}`, stage };
  return { key: `${failure.reason}:${normaliseReason(line)}`, text: shorten(line), groupText: shorten(normaliseReason(line)), stage };
}

/** The group of one proposal that gave no child. */
export function proposalReason(reason: string | undefined, message: string | undefined): Keyed {
  const words = reason !== undefined ? PROPOSAL_REASONS[reason] : undefined;
  if (words && reason !== 'llm_error') return { key: `proposal:${words}`, text: words, groupText: words, stage: 'proposal' };
  const line = firstLine(message ?? '');
  const head = words ?? (reason ? `no child (${reason})` : 'no child');
  return {
    key: `proposal:${head}:${normaliseReason(line)}`,
    text: shorten(line ? `${head}: ${line}` : head),
    groupText: shorten(line ? `${head}: ${normaliseReason(line)}` : head),
    stage: 'proposal',
  };
}

/** The group of one job abandoned by a failed task; undefined for a job a stop cancelled (not a failure). */
export function abandonReason(reason: string): Keyed | undefined {
  if (/^stopped: /.test(reason)) return undefined;
  const line = firstLine(reason) || 'the task failed';
  return { key: `task:${normaliseReason(line)}`, text: shorten(line), groupText: shorten(normaliseReason(line)), stage: 'task' };
}

/**
 * Every failure a journal records, grouped, the most frequent first (ties: in the order they
 * first happened). Events it does not know are skipped: a journal is read, never trusted.
 */
export function failureReasonsOf(events: readonly unknown[]): FailureReasonGroup[] {
  const groups = new Map<string, { keyed: Keyed; count: number; order: number }>();
  const add = (keyed: Keyed | undefined): void => {
    if (!keyed) return;
    const group = groups.get(keyed.key);
    if (group) group.count++;
    else groups.set(keyed.key, { keyed, count: 1, order: groups.size });
  };
  for (const raw of events) {
    if (typeof raw !== 'object' || raw === null) continue;
    const event = raw as { type?: unknown; ok?: unknown; reason?: unknown; message?: unknown; evaluation?: unknown };
    if (event.type === 'evaluation' && isEvaluation(event.evaluation)) add(evaluationReason(event.evaluation));
    else if (event.type === 'proposal' && event.ok === false) add(proposalReason(stringOr(event.reason), stringOr(event.message)));
    else if (event.type === 'abandon' && typeof event.reason === 'string') add(abandonReason(event.reason));
  }
  return [...groups.values()]
    .sort((a, b) => b.count - a.count || a.order - b.order)
    .map(({ keyed, count }) => ({ reason: count === 1 ? keyed.text : keyed.groupText, count, stage: keyed.stage }));
}

function stringOr(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function isEvaluation(value: unknown): value is Pick<Evaluation, 'failure' | 'wallMs' | 'correct' | 'errorText'> {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as { correct?: unknown; wallMs?: unknown; failure?: unknown; errorText?: unknown };
  if (typeof candidate.correct !== 'boolean' || typeof candidate.wallMs !== 'number') return false;
  if (candidate.errorText !== undefined && typeof candidate.errorText !== 'string') return false;
  if (candidate.failure === undefined) return true;
  if (typeof candidate.failure !== 'object' || candidate.failure === null) return false;
  const failure = candidate.failure as { reason?: unknown; message?: unknown };
  return typeof failure.reason === 'string' && typeof failure.message === 'string';
}

/** Groups shown in the summary line; report.json keeps them all. */
export const TOP_REASONS = 3;

/** `12 the patch did not apply · 3 tests failed: test_x · 1 timed out after 300 s (and 4 more for 2 other reasons)`. */
export function reasonsLine(groups: readonly FailureReasonGroup[], top = TOP_REASONS): string {
  const shown = groups.slice(0, top).map((group) => `${group.count} ${group.reason}`);
  const rest = groups.slice(top);
  const more = rest.reduce((sum, group) => sum + group.count, 0);
  return `${shown.join(' · ')}${rest.length > 0 ? ` (and ${more} more for ${rest.length} other reason${rest.length === 1 ? '' : 's'})` : ''}`;
}
