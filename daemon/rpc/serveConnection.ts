/**
 * Serves the daemon's JSON-RPC methods (declared in shared/protocol.ts) on one connection:
 * the extension's pipe or one client of the local socket. Parameters are validated with
 * the shared schemas, so a malformed request gets an InvalidParams error and changes nothing.
 */
import { timingSafeEqual } from 'node:crypto';
import {
  CancellationToken,
  ErrorCodes,
  type ProtocolConnection,
  ResponseError,
} from 'vscode-languageserver-protocol/node';
import * as z from 'zod';
import {
  CancelTask,
  DeadLetters,
  EstimateRun,
  GetElites,
  GetProgram,
  GetResult,
  type MetricsEndpointStatus,
  type PluginStatus,
  ListRuns,
  MutateProgram,
  InitFunction,
  PrepareSelection,
  RunProgressUpdate,
  ScaffoldEvaluator,
  StartRun,
  StopRun,
  Handshake,
  PeagenErrorCodes,
  PROTOCOL_VERSION,
  ServerStatus,
  Shutdown,
  Status,
  SubmitTask,
  TaskUpdate,
} from '../../shared/protocol';
import type { Engine } from '../engine/Engine';
import { emptyPluginSet, type PluginSet } from '../plugins/loadPlugins';
import { ServerStatusReporter } from './serverStatus';
import { TaskFollowers } from './taskFollowers';
import type { RunManager } from '../evolution/controller/RunManager';
import { RunSetupError } from '../evolution/controller/prepareRun';
import { MutatorChoiceError } from '../evolution/controller/chooseMutator';
import { DamagedRunError } from '../evolution/controller/runDir';
import { scaffoldFor } from '../evaluation/scaffold/scaffoldExample';
import { InitError } from '../usecases/initExample';
import { initFunction, seedEvaluationOn } from '../usecases/initFunction';
import { mutateProgram } from '../usecases/mutateProgram';
import { RegionError } from '../usecases/selectionProgram';
import { prepareSelection, SelectionJobError } from '../usecases/selectionJob';

export interface DaemonInfo {
  version: string;
  startedAt: number;
  listen?: string;
  /** The metrics endpoint (set once it is bound, or known not to be). */
  metrics?: MetricsEndpointStatus;
  /** The daemon's evolution runs; without it the evolve methods answer that runs are not served. */
  runs?: RunManager;
  /** The allowed plugins the composition root loaded (none when absent). */
  plugins?: PluginSet;
  requestShutdown(drain: boolean): void;
}

export interface ServeOptions {
  /** When set, nothing but the handshake is served until the client proves it has this token. */
  token?: string;
  /** Called when a handshake with the right token has succeeded. */
  onAuthorized?(): void;
  /** Called on the LSP `exit` notification or when the peer goes away. */
  onExit(): void;
  log(line: string): void;
}

export function serveConnection(connection: ProtocolConnection, engine: Engine, daemon: DaemonInfo, options: ServeOptions): void {
  let authorized = options.token === undefined;
  let unsubscribe: (() => void) | undefined;
  const forwardUpdate = (update: TaskUpdate.Params): void => {
    void connection.sendNotification(TaskUpdate.type, update).catch(() => {});
  };
  const forwardProgress = (progress: RunProgressUpdate.Params): void => {
    void connection.sendNotification(RunProgressUpdate.type, progress).catch(() => {});
  };
  // Task updates go only to the connection that submitted the task (see TaskUpdate).
  const followers = TaskFollowers.of(engine);
  const subscribe = (): void => {
    if (unsubscribe) return;
    daemon.runs?.on('progress', forwardProgress);
    const stopStatus = ServerStatusReporter.of(engine).subscribe((status) => {
      void connection.sendNotification(ServerStatus.type, status).catch(() => {});
    });
    unsubscribe = () => {
      daemon.runs?.off('progress', forwardProgress);
      stopStatus();
    };
  };
  if (authorized) subscribe();

  function guard<T extends z.ZodType>(schema: T, params: unknown): z.infer<T> {
    if (!authorized) {
      throw new ResponseError(
        PeagenErrorCodes.Unauthorized,
        'unauthorized: send peagen/handshake with the token from the daemon token file first',
      );
    }
    const parsed = schema.safeParse(params);
    if (!parsed.success) throw new ResponseError(ErrorCodes.InvalidParams, `invalid params: ${z.prettifyError(parsed.error)}`);
    return parsed.data;
  }

  // The LSP lifecycle, so that vscode-languageclient can drive this connection.
  connection.onRequest('initialize', () => ({
    capabilities: {},
    serverInfo: { name: 'peagen-daemon', version: daemon.version },
  }));
  connection.onNotification('initialized', () => {});
  connection.onRequest('shutdown', () => null);
  connection.onNotification('exit', () => options.onExit());

  connection.onRequest(Handshake.method, (raw: unknown) => {
    const params = Handshake.params.safeParse(raw);
    if (!params.success) throw new ResponseError(ErrorCodes.InvalidParams, `invalid params: ${z.prettifyError(params.error)}`);
    if (options.token !== undefined && !tokensMatch(options.token, params.data.token)) {
      options.log(`refused a ${params.data.client} client: wrong or missing token`);
      throw new ResponseError(PeagenErrorCodes.Unauthorized, 'unauthorized: wrong or missing token (read it from the daemon token file)');
    }
    if (params.data.protocolVersion !== PROTOCOL_VERSION) {
      throw new ResponseError(
        PeagenErrorCodes.ProtocolMismatch,
        `protocol mismatch: the daemon speaks version ${PROTOCOL_VERSION}, the ${params.data.client} speaks ${params.data.protocolVersion}; restart the daemon with the same Peagen version`,
      );
    }
    authorized = true;
    options.onAuthorized?.();
    subscribe();
    return { daemonVersion: daemon.version, protocolVersion: PROTOCOL_VERSION, pid: process.pid } satisfies Handshake.Response;
  });

  connection.onRequest(Status.method, async (raw: unknown) => {
    guard(z.unknown(), raw);
    const [status, cluster] = await Promise.all([engine.status(), engine.cluster()]);
    return {
      daemonVersion: daemon.version,
      protocolVersion: PROTOCOL_VERSION,
      pid: process.pid,
      uptimeMs: Date.now() - daemon.startedAt,
      ...status,
      cluster,
      ...(daemon.listen && { listen: daemon.listen }),
      ...(daemon.metrics && { metrics: daemon.metrics }),
      ...pluginStatus(daemon.plugins),
    } satisfies Status.Response;
  });

  connection.onRequest(SubmitTask.method, async (raw: unknown) => {
    const spec = guard(SubmitTask.params, raw);
    // Followed before it is queued: the queue announces `queued` while enqueueing.
    let followed: string | undefined;
    try {
      const task = await engine.submit(spec, (created) => followers.follow((followed = created.id), forwardUpdate));
      return { taskId: task.id } satisfies SubmitTask.Response;
    } catch (error) {
      if (followed !== undefined) followers.unfollow(followed, forwardUpdate);
      throw error;
    }
  });

  connection.onRequest(GetResult.method, async (raw: unknown, token: CancellationToken) => {
    const params = guard(GetResult.params, raw);
    // Most results are in by the time they are asked for: answer those without setting up
    // a cancellable wait.
    const stored = await engine.result(params.taskId, 0);
    if (stored) return { result: stored } satisfies GetResult.Response;
    // An id the queue does not hold is not waited for: nothing will ever answer it.
    if (!(await engine.knows(params.taskId))) return { result: null, known: false } satisfies GetResult.Response;
    if (params.waitMs === 0) return { result: null, known: true } satisfies GetResult.Response;
    const abort = new AbortController();
    const listener = token.onCancellationRequested(() => abort.abort());
    try {
      const result = await engine.result(params.taskId, params.waitMs, abort.signal);
      return { result, ...(!result && { known: await engine.knows(params.taskId) }) } satisfies GetResult.Response;
    } finally {
      listener.dispose();
    }
  });

  connection.onRequest(CancelTask.method, async (raw: unknown) => {
    const params = guard(CancelTask.params, raw);
    return { cancelled: await engine.cancel(params.taskId) } satisfies CancelTask.Response;
  });

  connection.onRequest(DeadLetters.listMethod, async (raw: unknown) => {
    guard(z.unknown(), raw);
    return { entries: await engine.queue.listDead() };
  });

  connection.onRequest(DeadLetters.retryMethod, async (raw: unknown) => {
    const params = guard(DeadLetters.retryParams, raw);
    return { retried: await engine.queue.retryDead(params.taskId) };
  });

  const runs = (): RunManager => {
    if (!daemon.runs) throw new ResponseError(ErrorCodes.MethodNotFound, 'this daemon does not serve evolution runs');
    return daemon.runs;
  };
  /** A run request the daemon cannot act on is the client's to fix: InvalidParams, with the reason. */
  const asParamsError = (error: unknown): never => {
    const clients =
      error instanceof RunSetupError ||
      error instanceof SelectionJobError ||
      error instanceof RegionError ||
      error instanceof MutatorChoiceError ||
      error instanceof DamagedRunError;
    if (clients || (error instanceof Error && /^no run "/.test(error.message))) throw new ResponseError(ErrorCodes.InvalidParams, error.message);
    throw error;
  };

  connection.onRequest(StartRun.method, (raw: unknown) => {
    const params = guard(StartRun.params, raw);
    try {
      return runs().start(params) satisfies StartRun.Response;
    } catch (error) {
      return asParamsError(error);
    }
  });

  connection.onRequest(EstimateRun.method, (raw: unknown) => {
    const params = guard(EstimateRun.params, raw);
    try {
      return runs().estimate(params) satisfies EstimateRun.Response;
    } catch (error) {
      return asParamsError(error);
    }
  });

  connection.onRequest(StopRun.method, (raw: unknown) => {
    const params = guard(StopRun.params, raw);
    return { stopping: runs().stop(params.runId) } satisfies StopRun.Response;
  });

  connection.onRequest(ListRuns.method, (raw: unknown) => {
    const params = guard(ListRuns.params, raw);
    return { runs: runs().list(params) } satisfies ListRuns.Response;
  });

  connection.onRequest(GetElites.method, (raw: unknown) => {
    const params = guard(GetElites.params, raw);
    try {
      return { runId: params.runId, ...runs().elites(params.runId, params) } satisfies GetElites.Response;
    } catch (error) {
      return asParamsError(error);
    }
  });

  connection.onRequest(GetProgram.method, (raw: unknown) => {
    const params = guard(GetProgram.params, raw);
    let found;
    try {
      found = runs().program(params.runId, params, params.programId);
    } catch (error) {
      return asParamsError(error);
    }
    if (!found) throw new ResponseError(PeagenErrorCodes.NotFound, `run ${params.runId} has no program ${params.programId.slice(0, 12)}`);
    return found satisfies GetProgram.Response;
  });

  // The editor's use cases: content travels, never a path the daemon would have to open.
  connection.onRequest(PrepareSelection.method, (raw: unknown) => {
    const params = guard(PrepareSelection.params, raw);
    try {
      return prepareSelection(params, runs().home(params)) satisfies PrepareSelection.Response;
    } catch (error) {
      return asParamsError(error);
    }
  });

  connection.onRequest(MutateProgram.method, async (raw: unknown, token: CancellationToken) => {
    const params = guard(MutateProgram.params, raw);
    const abort = new AbortController();
    const listener = token.onCancellationRequested(() => abort.abort());
    try {
      return (await mutateProgram(engine, daemon.plugins ?? emptyPluginSet(), runs().home(params), params, abort.signal)) satisfies MutateProgram.Response;
    } catch (error) {
      return asParamsError(error);
    } finally {
      listener.dispose();
    }
  });

  // Unlike the requests above, init reads the client's files: initFunction refuses a daemon that does not share them.
  connection.onRequest(InitFunction.method, async (raw: unknown) => {
    const params = guard(InitFunction.params, raw);
    try {
      return (await initFunction(params, seedEvaluationOn(engine))) satisfies InitFunction.Response;
    } catch (error) {
      if (error instanceof InitError) throw new ResponseError(ErrorCodes.InvalidParams, error.message);
      throw error;
    }
  });

  connection.onRequest(ScaffoldEvaluator.method, (raw: unknown) => {
    const params = guard(ScaffoldEvaluator.params, raw);
    return scaffoldFor(params) satisfies ScaffoldEvaluator.Response;
  });

  connection.onRequest(Shutdown.method, (raw: unknown) => {
    const params = guard(Shutdown.params, raw);
    // Answer first; the daemon then stops on its own.
    setImmediate(() => daemon.requestShutdown(params.drain));
    return { stopping: true as const };
  });

  connection.onClose(() => {
    followers.forget(forwardUpdate);
    unsubscribe?.();
    options.onExit();
  });
}

function tokensMatch(expected: string, given: string | undefined): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The daemon's allowed plugins as `daemon status` shows them (loaded once; skips were logged then). */
function pluginStatus(plugins: PluginSet | undefined): { plugins?: PluginStatus[] } {
  const reports = plugins?.reports ?? [];
  if (reports.length === 0) return {};
  return {
    plugins: reports.map((report) => ({
      name: report.name,
      ...(report.version && { version: report.version }),
      loaded: report.loaded,
      provided: report.provided,
      ...(report.error && { error: report.error }),
    })),
  };
}
