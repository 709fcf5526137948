/**
 * The task model shared by every part of Peagen: what is queued, what comes back.
 *
 * Zod objects strip unknown keys, which is the brief's rule for forward compatibility:
 * a worker ignores fields it does not know, but refuses a task of a higher *major* schema.
 */
import * as z from 'zod';

/** major.minor; a worker answers a task of a higher major with an error. */
export const TASK_SCHEMA_VERSION = '1.0';

export const CapabilitySchema = z
  .string()
  .regex(/^[a-z0-9][a-z0-9._-]*$/, 'a capability is a lower-case tag such as cpu, llm, docker, gpu');
export type Capability = z.infer<typeof CapabilitySchema>;

/**
 * The trace a task belongs to (W3C Trace Context), so the worker's span for it hangs under
 * the span that submitted it, in whatever process or host it runs. Only with tracing on.
 */
export const TraceCarrierSchema = z.object({
  /** `00-<trace id>-<parent span id>-<flags>`, lower-case hex (https://www.w3.org/TR/trace-context/). */
  traceparent: z
    .string()
    .max(55)
    // All-zero ids are invalid by the spec.
    .regex(/^00-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}$/),
});
export type TraceCarrier = z.infer<typeof TraceCarrierSchema>;

/** Telemetry must never cost a task its run: a malformed carrier is dropped, not an error. */
const traceField = TraceCarrierSchema.optional().catch(undefined);

export const TaskSchema = z.object({
  id: z.string().min(1),
  kind: z.string().min(1),
  payload: z.unknown(),
  requires: z.array(CapabilitySchema).default([]),
  attempts: z.number().int().nonnegative().default(0),
  createdAt: z.string().datetime(),
  schemaV: z.string().regex(/^\d+\.\d+$/, 'schemaV is "major.minor"'),
  runId: z.string().optional(),
  parentId: z.string().optional(),
  /** Epoch milliseconds after which the task is no longer worth running. */
  deadline: z.number().int().positive().optional(),
  trace: traceField,
  /**
   * `v1:<hex>`: an HMAC-SHA256 of the task's content with the cluster's task secret
   * (PEAGEN_TASK_SECRET), set by the process that queued it. Workers that hold the secret run
   * no task without a valid one (daemon/fabric/taskSignature.ts); others ignore it.
   */
  signature: z.string().max(200).optional(),
});
export type Task = z.infer<typeof TaskSchema>;

export const ResultStatusSchema = z.enum(['ok', 'error', 'skip']);
export type ResultStatus = z.infer<typeof ResultStatusSchema>;

/**
 * The error code of a result the queue gives for a task it no longer holds (a Redis that
 * restarted without its data): no worker will finish it, and its submitter submits it again.
 */
export const TASK_LOST = 'task_lost';

export const TaskErrorSchema = z.object({
  /** Stable machine-readable reason, e.g. `timeout`, `schema_version`, `invalid_payload`. */
  code: z.string().min(1),
  message: z.string(),
  retryable: z.boolean(),
});
export type TaskError = z.infer<typeof TaskErrorSchema>;

export const ResultSchema = z.object({
  taskId: z.string().min(1),
  status: ResultStatusSchema,
  data: z.unknown().optional(),
  error: TaskErrorSchema.optional(),
  attempts: z.number().int().nonnegative(),
  startedAt: z.string().datetime().optional(),
  finishedAt: z.string().datetime().optional(),
  durationMs: z.number().nonnegative().optional(),
  workerId: z.string().optional(),
});
export type Result = z.infer<typeof ResultSchema>;

/** Fields a caller gives when submitting; the rest is filled by {@link newTask}. */
export const TaskSpecSchema = z.object({
  kind: z.string().min(1),
  payload: z.unknown().default({}),
  requires: z.array(CapabilitySchema).optional(),
  runId: z.string().optional(),
  parentId: z.string().optional(),
  deadline: z.number().int().positive().optional(),
  trace: traceField,
});
export type TaskSpec = z.input<typeof TaskSpecSchema>;

let sequence = 0;
/** Sortable, unique within a process and practically unique across hosts. */
export function newTaskId(now = Date.now()): string {
  sequence = (sequence + 1) % 0x100000;
  const random = Math.floor(Math.random() * 0x1000000).toString(16).padStart(6, '0');
  return `t-${now.toString(36)}-${sequence.toString(36)}-${random}`;
}

export function newTask(spec: TaskSpec): Task {
  const parsed = TaskSpecSchema.parse(spec);
  return {
    id: newTaskId(),
    kind: parsed.kind,
    payload: parsed.payload,
    requires: parsed.requires ?? [],
    attempts: 0,
    createdAt: new Date().toISOString(),
    schemaV: TASK_SCHEMA_VERSION,
    ...(parsed.runId !== undefined && { runId: parsed.runId }),
    ...(parsed.parentId !== undefined && { parentId: parsed.parentId }),
    ...(parsed.deadline !== undefined && { deadline: parsed.deadline }),
    ...(parsed.trace !== undefined && { trace: parsed.trace }),
  };
}

export function majorOf(version: string): number {
  return Number.parseInt(version.split('.')[0] ?? '', 10);
}

export type TaskParse =
  | { ok: true; task: Task }
  | { ok: false; taskId: string | undefined; error: TaskError };

/**
 * Turns untrusted input (a queue entry, an RPC parameter) into a Task, or says why not.
 * The id is recovered when possible so that the failure can still be reported against it.
 */
export function parseTask(raw: unknown, knownSchema = TASK_SCHEMA_VERSION): TaskParse {
  const id =
    typeof raw === 'object' && raw !== null && typeof (raw as { id?: unknown }).id === 'string'
      ? (raw as { id: string }).id
      : undefined;
  const parsed = TaskSchema.safeParse(raw);
  if (!parsed.success) {
    return {
      ok: false,
      taskId: id,
      error: { code: 'invalid_task', message: z.prettifyError(parsed.error), retryable: false },
    };
  }
  if (majorOf(parsed.data.schemaV) > majorOf(knownSchema)) {
    return {
      ok: false,
      taskId: id,
      error: {
        code: 'schema_version',
        message: `task schema ${parsed.data.schemaV} is newer than this worker understands (${knownSchema}); upgrade the worker`,
        retryable: false,
      },
    };
  }
  return { ok: true, task: parsed.data };
}

// What the queue reports about tasks: shared by every adapter and every client.

export const TaskStateSchema = z.enum(['queued', 'running', 'retrying', 'done', 'dead', 'cancelled']);
export type TaskState = z.infer<typeof TaskStateSchema>;

export interface QueueStats {
  /** Ready to be claimed now. */
  pending: number;
  /** Claimed by a worker and not yet acked (under lease). */
  inFlight: number;
  /** Waiting for a retry back-off to pass. */
  delayed: number;
  dead: number;
  /**
   * Keys the queue found damaged and skipped (e.g. a stream key that something else wrote as
   * a string), each with how to fix it. Absent when there is none.
   */
  problems?: string[];
}

/** A worker pool as the queue's cluster directory knows it; renewed by heartbeat. */
export interface WorkerRecord {
  /** The pool's id (its slots claim as `${id}/N`). */
  id: string;
  host: string;
  pid: number;
  caps: string[];
  /** Task kinds its handlers serve with these caps. */
  kinds: string[];
  /**
   * What it claims: each kind with the capabilities its handler provides (a worker with the
   * `llm` cap but no model serves mutate tasks that need no model only). Absent in records of
   * older versions.
   */
  accepts?: { kind: string; provides: readonly string[] }[];
  mode: 'in-process' | 'one-shot' | 'warm';
  /** Tasks it may run at once (for a warm spawner: its maximum of workers). */
  slots: number;
  busy: number;
  /** Live worker processes (one-shot children, warm or running); 0 when scaled to zero. */
  processes?: number;
  /**
   * The slots of a CLI command's own process (an `evolve run`, an `eval --sync`): they serve
   * while that command runs and leave with it, so no run counts on them to serve its tasks.
   */
  passing?: boolean;
  startedAt: number;
  /** Epoch ms of the last heartbeat. */
  seenAt: number;
}

/** Queue depth for one kind of task and requirement set: what each kind of worker could take. */
export interface RequirementSetDepth {
  kind: string;
  /** Sorted. */
  requires: string[];
  pending: number;
  inFlight: number;
  delayed: number;
  /** How long the oldest pending task has waited to be claimed, in ms; 0 when none waits. */
  oldestPendingMs: number;
}

export const DeadLetterSchema = z.object({
  task: TaskSchema,
  reason: z.string(),
  failedAt: z.string(),
});
export type DeadLetter = z.infer<typeof DeadLetterSchema>;
