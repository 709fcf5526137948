/**
 * Every JSON-RPC message between the extension, the CLI and the daemon, declared once.
 * Both sides import these namespaces (the vscode-eslint pattern), so a method cannot be
 * renamed on one side only; the zod schemas let the daemon reject malformed parameters with
 * an InvalidParams error instead of acting on them.
 */
import { NotificationType, RequestType, RequestType0 } from 'vscode-languageserver-protocol';
import * as z from 'zod';
import type { FeatureDescriptor } from './evaluation';
import { type NicheElite, type Program, ProgramIdSchema, type RunProgress, RunIdSchema, type RunSummary } from './evolution';
import { type DeadLetter, type QueueStats, type RequirementSetDepth, ResultSchema, TaskSpecSchema, type TaskState, type WorkerRecord } from './task';

/** Bumped on any incompatible change to the messages below; checked by {@link Handshake}. */
export const PROTOCOL_VERSION = 1;

/** JSON-RPC error codes of our own, in the range the spec leaves to servers. */
export const PeagenErrorCodes = {
  Unauthorized: -32001,
  ProtocolMismatch: -32002,
  NotFound: -32003,
} as const;

export namespace Handshake {
  export const method = 'peagen/handshake';
  export const params = z.object({
    protocolVersion: z.number().int(),
    client: z.string().min(1),
    /** Required on the shared socket (from the daemon's token file); not on a spawned pipe. */
    token: z.string().optional(),
  });
  export type Params = z.infer<typeof params>;
  export interface Response {
    daemonVersion: string;
    protocolVersion: number;
    pid: number;
  }
  export const type = new RequestType<Params, Response, void>(method);
}

export interface WorkerPoolStatus {
  count: number;
  busy: number;
  caps: string[];
  mode: 'in-process' | 'one-shot';
}

export interface SandboxStatus {
  /** docker, bwrap, process, or none. */
  executor: string;
  isolates: boolean;
  /** Why this executor (and why not the stronger ones). */
  reason: string;
}

export interface ClusterStatus {
  workers: WorkerRecord[];
  depth: RequirementSetDepth[];
}

/** A process's /metrics, /healthz and /readyz endpoint: where it answers, or why it does not. */
export interface MetricsEndpointStatus {
  /** As configured: `host:port` or `off`. */
  listen: string;
  /** The address bound (`127.0.0.1:9464`; with port 0, the port chosen). */
  address?: string;
  /** `http://address/metrics`. */
  url?: string;
  /** Why there is no endpoint (turned off, or the bind failed). */
  error?: string;
}

/** One allow-list entry of the daemon's plugins (docs/plugins.md): what it provides, or why it was skipped. */
export interface PluginStatus {
  name: string;
  version?: string;
  loaded: boolean;
  /** Names it provides, by plug point (`mutators`, `handlers`, ...). */
  provided: Record<string, string[]>;
  error?: string;
}

export namespace Status {
  export const method = 'peagen/status';
  export interface Response {
    daemonVersion: string;
    protocolVersion: number;
    pid: number;
    uptimeMs: number;
    queue: { backend: string; url: string } & QueueStats;
    workers: WorkerPoolStatus;
    sandbox: SandboxStatus;
    /**
     * Every worker serving this queue, on any host (heartbeat records), and the queue's depth
     * per requirement set. With a memory queue: this daemon's own pool only.
     */
    cluster: ClusterStatus;
    /** Where other clients (the CLI, another editor) can connect. */
    listen?: string;
    /** The metrics and health endpoint (docs/metrics.md). */
    metrics?: MetricsEndpointStatus;
    /** The allowed plugins, loaded or skipped (absent: none allowed). */
    plugins?: PluginStatus[];
  }
  export const type = new RequestType0<Response, void>(method);
}

export namespace SubmitTask {
  export const method = 'peagen/submitTask';
  export const params = TaskSpecSchema;
  export type Params = z.input<typeof params>;
  export interface Response {
    taskId: string;
  }
  export const type = new RequestType<Params, Response, void>(method);
}

export namespace GetResult {
  export const method = 'peagen/getResult';
  export const params = z.object({
    taskId: z.string().min(1),
    /** How long to wait for the result; 0 answers at once. */
    waitMs: z.number().int().nonnegative().max(3_600_000).default(0),
  });
  export type Params = z.input<typeof params>;
  export interface Response {
    result: z.infer<typeof ResultSchema> | null;
  }
  export const type = new RequestType<Params, Response, void>(method);
}

export namespace CancelTask {
  export const method = 'peagen/cancelTask';
  export const params = z.object({ taskId: z.string().min(1) });
  export type Params = z.infer<typeof params>;
  export interface Response {
    /** False when the task had already finished or was unknown. */
    cancelled: boolean;
  }
  export const type = new RequestType<Params, Response, void>(method);
}

export namespace DeadLetters {
  export const listMethod = 'peagen/dlq/list';
  export const list = new RequestType0<{ entries: DeadLetter[] }, void>(listMethod);

  export const retryMethod = 'peagen/dlq/retry';
  export const retryParams = z.object({ taskId: z.string().min(1) });
  export const retry = new RequestType<z.infer<typeof retryParams>, { retried: boolean }, void>(retryMethod);
}

export namespace Shutdown {
  export const method = 'peagen/shutdown';
  export const params = z.object({ drain: z.boolean().default(true) }).default({ drain: true });
  export type Params = z.input<typeof params>;
  export const type = new RequestType<Params, { stopping: true }, void>(method);
}


/**
 * A task's state changed. Sent to the connection that submitted the task, from `queued` to
 * its final state (`done`, `dead` or `cancelled`); other clients are not sent it.
 */
export namespace TaskUpdate {
  export const method = 'peagen/taskUpdate';
  export interface Params {
    taskId: string;
    kind: string;
    state: TaskState;
    attempts: number;
    /** Why, for `retrying`, `dead` and `cancelled`. State only: clients fetch the result itself. */
    reason?: string;
  }
  export const type = new NotificationType<Params>(method);
}

/**
 * The daemon's health in one message, pushed whenever it changes (rust-analyzer's
 * `experimental/serverStatus`): clients show it as it is instead of deriving it from task
 * updates, so every client agrees and none has to count.
 */
export namespace ServerStatus {
  export const method = 'peagen/serverStatus';
  export interface Params {
    /** `warning`: works, but something needs the user's attention (e.g. no real sandbox). */
    health: 'ok' | 'warning' | 'error';
    /** Nothing running, nothing waiting. */
    quiescent: boolean;
    /** Tasks running on this daemon's workers. */
    running: number;
    queue: QueueStats;
    /** One line for a tooltip: what is going on, and what needs attention. */
    message: string;
  }
  export const type = new NotificationType<Params>(method);
}

/**
 * Evolution runs served by the daemon: the controller runs there, its tasks on the daemon's
 * fabric, and any client (the extension's Evolution view, the CLI) starts, follows and
 * inspects them.
 */
export namespace StartRun {
  export const method = 'peagen/evolve/start';
  export const params = z.object({
    /** Absolute path of the example directory (peagen.example.json). */
    exampleDir: z.string().min(1),
    /** Absolute path of the project; the run is kept in its .peagen/runs/. */
    projectDir: z.string().min(1),
    stop: z
      .object({
        generations: z.number().int().positive().optional(),
        evaluations: z.number().int().positive().optional(),
        wallMs: z.number().int().positive().optional(),
        target: z.number().optional(),
        noImprovement: z.number().int().positive().optional(),
        budgetTokens: z.number().int().positive().optional(),
        budgetUsd: z.number().positive().optional(),
        maxLlmCalls: z.number().int().positive().optional(),
      })
      .default({}),
    workers: z.number().int().min(1).max(256).default(2),
    childrenPerGeneration: z.number().int().positive().optional(),
    selector: z.string().optional(),
    /** auto, llm-patch, offline, or an allowed plugin's mutator. */
    mutator: z.string().min(1).optional(),
    seed: z.number().int().nonnegative().optional(),
    quick: z.boolean().optional(),
    /** The id of a run under projectDir to continue (the CLI turns a run directory into one). */
    resume: RunIdSchema.optional(),
  });
  export type Params = z.input<typeof params>;
  export interface Response {
    runId: string;
    runDir: string;
    /** What the user should know before it runs: the mutator, the worst-case spend. */
    notes: string[];
  }
  export const type = new RequestType<Params, Response, void>(method);
}

/**
 * What StartRun with the same parameters would do, without starting it or creating anything:
 * which mutator, the worst-case LLM spend and the notes StartRun would answer. Clients show it
 * (and ask for confirmation of a costly run) before starting.
 */
export namespace EstimateRun {
  export const method = 'peagen/evolve/estimate';
  export const params = StartRun.params;
  export type Params = StartRun.Params;
  export interface Response {
    notes: string[];
    /** `llm-patch` or `offline`. */
    mutator: string;
    /** Every call answering with max_tokens; null when no LLM is used or nothing bounds the calls. */
    worstCase: { calls: number; tokens: number; usd: number } | null;
  }
  export const type = new RequestType<Params, Response, void>(method);
}

export namespace StopRun {
  export const method = 'peagen/evolve/stop';
  export const params = z.object({ runId: RunIdSchema });
  export type Params = z.infer<typeof params>;
  export interface Response {
    /** False when no such run is active in this daemon. */
    stopping: boolean;
  }
  export const type = new RequestType<Params, Response, void>(method);
}

/** Pushed on every change of an active run's progress (and once when it ends). */
export namespace RunProgressUpdate {
  export const method = 'peagen/evolve/progress';
  export type Params = RunProgress;
  export const type = new NotificationType<Params>(method);
}

export namespace ListRuns {
  export const method = 'peagen/evolve/list';
  export const params = z.object({ projectDir: z.string().min(1) });
  export type Params = z.infer<typeof params>;
  export interface Response {
    runs: RunSummary[];
  }
  export const type = new RequestType<Params, Response, void>(method);
}

/** The elite of every niche of a run: the Evolution view's tree. */
export namespace GetElites {
  export const method = 'peagen/evolve/elites';
  export const params = z.object({ runId: RunIdSchema, projectDir: z.string().min(1) });
  export type Params = z.infer<typeof params>;
  export interface Response {
    runId: string;
    objectiveName: string;
    /** The example's objective unit (`x`), when it declares one. */
    objectiveUnit?: string;
    direction: 'maximize' | 'minimize';
    /**
     * The axes the run's archive bins by, with their edges: what niche labels turn keys into
     * ranges with. Absent from an older daemon; labels then name the bins.
     */
    features?: FeatureDescriptor[];
    bestId: string | null;
    elites: NicheElite[];
  }
  export const type = new RequestType<Params, Response, void>(method);
}

/** One program with its source and its ancestry (seed first), e.g. to show its diff. */
export namespace GetProgram {
  export const method = 'peagen/evolve/program';
  export const params = z.object({ runId: RunIdSchema, projectDir: z.string().min(1), programId: ProgramIdSchema });
  export type Params = z.infer<typeof params>;
  export interface Response {
    program: Program;
    /** Ancestors from the seed to the parent, without their code. */
    ancestors: Omit<Program, 'code' | 'evaluation'>[];
  }
  export const type = new RequestType<Params, Response, void>(method);
}
