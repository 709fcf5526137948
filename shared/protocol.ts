/**
 * Every JSON-RPC message between the extension, the CLI and the daemon, declared once.
 * Both sides import these namespaces (the vscode-eslint pattern), so a method cannot be
 * renamed on one side only; the zod schemas let the daemon reject malformed parameters with
 * an InvalidParams error instead of acting on them.
 */
import { NotificationType, RequestType, RequestType0 } from 'vscode-languageserver-protocol';
import * as z from 'zod';
import type { FeatureDescriptor } from './evaluation';
import type { Evaluation } from './evaluation';
import { type NicheElite, type Program, ProgramIdSchema, type RunProgress, RunIdSchema, type RunSummary } from './evolution';
import { StopConditionsSchema } from './runManifest';
import { MAX_EVAL_TIMEOUT_MS } from './payloads';
import { ExampleFilesSchema, LineRegionSchema, type SelectionRecord } from './selection';
import { type DeadLetter, type QueueStats, type RequirementSetDepth, ResultSchema, TaskSpecSchema, type TaskState, type WorkerRecord } from './task';

/** Bumped on any incompatible change to the messages below; checked by {@link Handshake}. */
export const PROTOCOL_VERSION = 2;

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
    /** Without a result: false when the queue holds no task by that id (nor its result). */
    known?: boolean;
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
 * Which workspace a request is about. `projectDir` is the client's path of it. `workspaceId`
 * is the id the client keeps in that directory's `.peagen/workspace-id`: a daemon that reads
 * the same id there shares the client's files and keeps the runs in `<projectDir>/.peagen/runs/`
 * as the CLI does; any other daemon (another host, a container, another mount) keeps them in
 * its own state directory under that id, and never opens the client's paths. Without an id
 * the path is the daemon's own (the CLI, beside its daemon).
 */
export const WorkspaceIdSchema = z.string().regex(/^[A-Za-z0-9_-]{8,64}$/, 'a workspace id is 8 to 64 letters, digits, _ or -');
export const WorkspaceParams = { projectDir: z.string().min(1), workspaceId: WorkspaceIdSchema.optional() };
export interface WorkspaceRef {
  projectDir: string;
  workspaceId?: string | undefined;
}
/** Where the client keeps its workspace's id, relative to the folder. */
export const WORKSPACE_ID_FILE = '.peagen/workspace-id';
/** A selection job's name in its workspace (`<file>-<hash>`). */
export const SelectionJobIdSchema = z.string().regex(/^[A-Za-z0-9_-]{1,120}$/, 'a selection job id is letters, digits, _ or -');

/**
 * Evolve/Mutate Selection's first step: the marked program for a region of a document, and,
 * when an example is sent (its files, by content), the daemon's job that evaluates it: a copy
 * of the example whose program is the marked text. The same text, region and example give the
 * same job.
 */
export namespace PrepareSelection {
  export const method = 'peagen/selection/prepare';
  export const params = z.object({
    ...WorkspaceParams,
    /** The document's path as the client names it: kept in the job to map programs back. */
    sourceFile: z.string().min(1).max(4096),
    languageId: z.string().min(1).max(100),
    text: z.string().max(4_000_000),
    region: LineRegionSchema,
    example: z.object({ dir: z.string().min(1).max(4096), files: ExampleFilesSchema }).optional(),
  });
  export type Params = z.infer<typeof params>;
  export interface Response {
    /** The program to evolve: the text with EVOLVE-BLOCK markers around the region. */
    code: string;
    /** The source lines the evolved block's inner text replaces. */
    replaceRange: { startLine: number; endLine: number };
    blockIndex: number;
    markersAdded: boolean;
    /** Present when an example was sent: the job to start a run on or evaluate with. */
    job?: { jobId: string; record: SelectionRecord; name: string; objectiveName: string; direction: 'maximize' | 'minimize' };
  }
  export const type = new RequestType<Params, Response, void>(method);
}

/**
 * One mutation of a program (and its evaluation when a selection job is named), the same use
 * case as `peagen mutate`: the mutator is chosen as for a run (`auto`: an LLM when the daemon
 * has one).
 */
export namespace MutateProgram {
  export const method = 'peagen/mutate';
  export const params = z.object({
    ...WorkspaceParams,
    code: z.string().min(1).max(4_000_000),
    languageId: z.string().min(1).max(100),
    /** A name for the task in prompts (e.g. the file name); a job's example gives its own. */
    name: z.string().min(1).max(200),
    /** The job whose example evaluates the child; absent: not evaluated. */
    selection: SelectionJobIdSchema.optional(),
    mutator: z.string().min(1).optional(),
    seed: z.number().int().nonnegative().optional(),
  });
  export type Params = z.infer<typeof params>;
  export interface Response {
    /** The mutator that answered (`llm-patch`, `offline` or a plugin's). */
    mutator: string;
    proposal: { ok: true; code: string; patch: string; model?: string } | { ok: false; reason: string; message: string };
    /** Present when a job was named and the proposal gave a child. */
    evaluation?: Evaluation;
    /** Why a child that should have been evaluated has no verdict (the evaluate task itself failed). */
    evaluationError?: string;
    objectiveName: string;
  }
  export const type = new RequestType<Params, Response, void>(method);
}

/**
 * The files of a starting-point example for the function a region is about (an evaluator
 * built on the harness, a reference copy of the file, peagen.example.json), for the client to
 * write beside the file and the user to review. `refused` says what to write by hand instead.
 */
export namespace ScaffoldEvaluator {
  export const method = 'peagen/scaffold';
  export const params = z.object({
    fileName: z.string().min(1).max(255).regex(/^[^/\\]+$/, 'a file name, not a path'),
    languageId: z.string().min(1).max(100),
    text: z.string().max(4_000_000),
    region: LineRegionSchema,
  });
  export type Params = z.infer<typeof params>;
  export interface Response {
    /** The files by name (beside the source file), and which of them is the evaluator. */
    scaffold?: { functionName: string; evaluator: string; files: Record<string, string> };
    /** Why nothing was scaffolded, and what to write by hand. */
    refused?: string;
  }
  export const type = new RequestType<Params, Response, void>(method);
}

/**
 * `peagen init --objective tests` for one function of a file of the client's workspace (the
 * editor's "Evolve this function"): the same use case as the CLI, run by a daemon that shares
 * the workspace's files (a daemon elsewhere refuses, saying what to run instead). The example
 * goes where the CLI puts it (`<projectDir>/.peagen/examples/<file>-<function>/`); one made
 * there before for the same tests is used again (`reused`).
 */
export namespace InitFunction {
  export const method = 'peagen/init';
  export const params = z.object({
    ...WorkspaceParams,
    /** The folder the tests run in (init copies it into the example), inside the workspace. */
    testsDir: z.string().min(1).max(4096),
    /** The source file, absolute, inside `testsDir`. */
    sourceFile: z.string().min(1).max(4096),
    functionName: z.string().min(1).max(200).regex(/^[A-Za-z_$][\w$]*$/, 'a function name'),
    /** The tests' shell command, run in `testsDir`. */
    tests: z.string().min(1).max(1000),
  });
  export type Params = z.infer<typeof params>;
  export interface Response {
    exampleDir: string;
    reused: boolean;
    /** What the new example evolves for: speed (the tests pass), or the tests (some fail); absent when reused. */
    objective?: 'speed' | 'tests';
    /** The tests its evaluation leaves out, in a sentence: they fail on the user's code only in the sandbox. */
    leftOut?: string;
  }
  export const type = new RequestType<Params, Response, void>(method);
}

/**
 * Evolution runs served by the daemon: the controller runs there, its tasks on the daemon's
 * fabric, and any client (the extension's Evolution view, the CLI) starts, follows and
 * inspects them.
 */
export namespace StartRun {
  export const method = 'peagen/evolve/start';
  export const params = z
    .object({
      /** The example directory (peagen.example.json), as the daemon sees it: the CLI's way. */
      exampleDir: z.string().min(1).optional(),
      /** A selection job of this workspace (PrepareSelection's `jobId`): the editor's way, which needs no shared files. */
      selection: SelectionJobIdSchema.optional(),
      ...WorkspaceParams,
      /** What the run's run.json records as its stop conditions. */
      stop: StopConditionsSchema.default({}),
      workers: z.number().int().min(1).max(256).default(2),
      childrenPerGeneration: z.number().int().positive().optional(),
      selector: z.string().optional(),
      /** auto, llm-patch, offline, or an allowed plugin's mutator. */
      mutator: z.string().min(1).optional(),
      seed: z.number().int().nonnegative().optional(),
      quick: z.boolean().optional(),
      /** The id of a run of this workspace to continue (the CLI turns a run directory into one). */
      resume: RunIdSchema.optional(),
      /** Evaluations to spend, as the run ends, reducing the best to its smallest diff from the seed (0: none; absent: the default). */
      reduceBudget: z.number().int().nonnegative().max(1000).optional(),
      /** Each evaluation's time limit in ms (`--eval-timeout`), replacing the example's own. */
      evalTimeoutMs: z.number().int().positive().max(MAX_EVAL_TIMEOUT_MS).optional(),
    })
    .refine((params) => (params.exampleDir === undefined) !== (params.selection === undefined) || (params.resume !== undefined && params.selection === undefined), {
      message: 'give exactly one of exampleDir and selection (or resume a run)',
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
  export const params = z.object(WorkspaceParams);
  export type Params = z.infer<typeof params>;
  export interface Response {
    runs: RunSummary[];
  }
  export const type = new RequestType<Params, Response, void>(method);
}

/** The elite of every niche of a run: the Evolution view's tree. */
export namespace GetElites {
  export const method = 'peagen/evolve/elites';
  export const params = z.object({ runId: RunIdSchema, ...WorkspaceParams });
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

/**
 * A run of a selection job maps its programs to the selected lines of the client's file (the
 * job's record and the text it was made from); any other run to its example's program file,
 * or for a multi-file program (its code a bundle: shared/programFiles.ts) to each of its
 * files, `programFiles` relative to `exampleDir` (absent for one file).
 */
export type ProgramPlacement =
  | { kind: 'selection'; record: SelectionRecord; baseText: string }
  | { kind: 'example'; exampleDir: string; program: string; programFiles?: string[] };

/** One program with its source and its ancestry (seed first), e.g. to show its diff. */
export namespace GetProgram {
  export const method = 'peagen/evolve/program';
  export const params = z.object({ runId: RunIdSchema, ...WorkspaceParams, programId: ProgramIdSchema });
  export type Params = z.infer<typeof params>;
  export interface Response {
    program: Program;
    /** Ancestors from the seed to the parent, without their code. */
    ancestors: Omit<Program, 'code' | 'evaluation'>[];
    objectiveName: string;
    /** The example's objective unit (`x`, `%`), when it declares one: proposal titles show values in it. */
    objectiveUnit?: string;
    /** Where the run's programs belong in the client's workspace. */
    placement: ProgramPlacement;
  }
  export const type = new RequestType<Params, Response, void>(method);
}
