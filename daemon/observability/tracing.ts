/**
 * Traces (OpenTelemetry, exported over OTLP/HTTP): one trace per evolution run, with a span
 * per mutate and evaluate job and, under each, the span of the task that served it, in
 * whatever process ran it (the task carries the trace: traceContext.ts).
 *
 * Off unless `observability.otlpEndpoint` (OTEL_EXPORTER_OTLP_ENDPOINT) is set: then the
 * spans below are @opentelemetry/api's no-ops and the SDK is never loaded. Tracing never
 * costs work: an unreachable collector drops spans (one warning line per process), and
 * shutdown waits for the last export a bounded time only.
 */
import * as os from 'node:os';
import { type Attributes, type Context, ROOT_CONTEXT, type Span, SpanKind, SpanStatusCode, trace, type Tracer } from '@opentelemetry/api';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { TaskOutcome, TaskTracer } from '../fabric/worker/runTask';
import { VERSION } from '../version';
import { contextOfCarrier } from './traceContext';

/**
 * Who exports: the daemon, a `peagen worker start` pool, a one-shot child running one task, a
 * CLI command running its own engine or evolution run (embedded, --sync, `evolve step`).
 */
export type TracingService = 'peagen-daemon' | 'peagen-worker' | 'peagen-task' | 'peagen-cli';

export interface TracingSettings {
  /** OTLP/HTTP base URL, e.g. http://127.0.0.1:4318; spans go to `<endpoint>/v1/traces`. */
  otlpEndpoint?: string | undefined;
}

interface Provider {
  shutdown(): Promise<void>;
}

let provider: Provider | undefined;
/** The last export failed: the collector is down, so the final flush is not waited for long. */
let exportsFailing = false;

/**
 * Starts exporting this process's spans when an endpoint is configured; otherwise does
 * nothing (and loads nothing). True when tracing is on.
 */
export async function startTracing(settings: TracingSettings, service: TracingService, options: { log?: (line: string) => void } = {}): Promise<boolean> {
  const endpoint = settings.otlpEndpoint;
  if (!endpoint) return false;
  if (provider) return true;
  const log = options.log ?? ((line: string) => void process.stderr.write(`${line}\n`));
  try {
    return await startProvider(endpoint, service, log);
  } catch (error) {
    log(`warning: tracing is off: it could not start (${error instanceof Error ? error.message : String(error)})`);
    return false;
  }
}

async function startProvider(endpoint: string, service: TracingService, log: (line: string) => void): Promise<boolean> {
  // Loaded only here: a process without tracing never pays for the SDK and the exporter.
  const sdk = await import('./tracingSdk');
  const { OTLPTraceExporter, resourceFromAttributes, ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } = sdk;
  // A one-shot child exits right after its task: each span is sent as it ends (and flushed
  // before exit), with a short timeout so a dead collector delays the exit little. It stays
  // silent about a dead collector: its parent, exporting to the same endpoint, says so once.
  const oneShot = service === 'peagen-task';
  const exporter = warnOnFailure(
    new OTLPTraceExporter({ url: tracesUrl(endpoint), timeoutMillis: oneShot ? ONE_SHOT_EXPORT_TIMEOUT_MS : EXPORT_TIMEOUT_MS }),
    oneShot ? undefined : log,
    endpoint,
  );
  const resource = resourceFromAttributes({
    [ATTR_SERVICE_NAME]: service,
    [ATTR_SERVICE_VERSION]: VERSION,
    // Incubating semantic conventions (process.pid, host.name): named literally, as the
    // stable entry point of @opentelemetry/semantic-conventions does not export them.
    'process.pid': process.pid,
    'host.name': os.hostname(),
  });
  const created = new sdk.BasicTracerProvider({
    resource,
    spanProcessors: [oneShot ? new sdk.SimpleSpanProcessor(exporter) : new sdk.BatchSpanProcessor(exporter, { scheduledDelayMillis: 1_000 })],
  });
  if (!trace.setGlobalTracerProvider(created)) {
    await created.shutdown();
    return false;
  }
  provider = created;
  return true;
}

/** Sends what is left (bounded by `limitMs`) and turns tracing off. */
export async function shutdownTracing(limitMs = SHUTDOWN_LIMIT_MS): Promise<void> {
  const stopping = provider;
  if (!stopping) return;
  provider = undefined;
  if (exportsFailing) limitMs = Math.min(limitMs, FAILING_SHUTDOWN_LIMIT_MS);
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    stopping.shutdown().catch(() => {}),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, limitMs);
      timer.unref();
    }),
  ]);
  clearTimeout(timer);
  trace.disable();
  exportsFailing = false;
}

/** How long the exporter waits for a collector (retries included) in a long-lived process. */
const EXPORT_TIMEOUT_MS = 5_000;
/** The same in a one-shot child, which waits for it before exiting. */
const ONE_SHOT_EXPORT_TIMEOUT_MS = 1_000;
/** Default bound on the final flush. */
export const SHUTDOWN_LIMIT_MS = 3_000;
const FAILING_SHUTDOWN_LIMIT_MS = 500;

function tracesUrl(endpoint: string): string {
  return new URL('v1/traces', endpoint.endsWith('/') ? endpoint : `${endpoint}/`).toString();
}

/** `ExportResultCode.SUCCESS` of @opentelemetry/core (not a direct dependency). */
const EXPORT_SUCCESS = 0;

/** The exporter, saying once per process that spans are being dropped (the collector is down). */
function warnOnFailure(exporter: SpanExporter, log: ((line: string) => void) | undefined, endpoint: string): SpanExporter {
  let warned = false;
  return {
    export(spans, done) {
      exporter.export(spans, (result) => {
        exportsFailing = result.code !== EXPORT_SUCCESS;
        if (exportsFailing && !warned && log) {
          warned = true;
          log(`warning: traces are dropped: the OTLP endpoint ${endpoint} did not take them (${result.error?.message ?? 'export failed'}); check OTEL_EXPORTER_OTLP_ENDPOINT (said once)`);
        }
        done(result);
      });
    },
    shutdown: () => exporter.shutdown(),
    ...(exporter.forceFlush && { forceFlush: () => exporter.forceFlush!() }),
  };
}

export function tracer(): Tracer {
  return trace.getTracer('peagen', VERSION);
}

/** The context whose active span is `parent` (the root context without one). */
export function contextOf(parent: Span | undefined): Context {
  return parent ? trace.setSpan(ROOT_CONTEXT, parent) : ROOT_CONTEXT;
}

/**
 * Runs `work` in a span under `parent` (a new trace without one): a thrown error is recorded
 * on the span and rethrown.
 */
export async function inSpan<T>(name: string, parent: Span | undefined, attributes: Attributes, work: (span: Span) => Promise<T>, kind = SpanKind.INTERNAL): Promise<T> {
  const span = tracer().startSpan(name, { attributes, kind }, contextOf(parent));
  try {
    return await work(span);
  } catch (error) {
    recordError(span, error);
    throw error;
  } finally {
    span.end();
  }
}

export function recordError(span: Span, error: unknown): void {
  span.recordException(error instanceof Error ? error : String(error));
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
}

/**
 * The worker's span for one task, a child of the span that submitted it (the task's
 * `trace`). `raw` is the task as delivered, before validation: a task that fails it still
 * gets its span.
 */
export function startTaskSpan(raw: unknown, workerId: string): Span {
  const fields = (typeof raw === 'object' && raw !== null ? raw : {}) as Partial<Record<'kind' | 'id' | 'attempts' | 'runId' | 'trace', unknown>>;
  const kind = typeof fields.kind === 'string' ? fields.kind.slice(0, 100) : 'unknown';
  const attributes: Attributes = {
    'peagen.task.kind': kind,
    'peagen.task.attempt': (typeof fields.attempts === 'number' ? fields.attempts : 0) + 1,
    'peagen.worker.id': workerId,
    ...(typeof fields.id === 'string' && { 'peagen.task.id': fields.id.slice(0, 200) }),
    ...(typeof fields.runId === 'string' && { 'peagen.run.id': fields.runId.slice(0, 200) }),
  };
  return tracer().startSpan(`task ${kind}`, { kind: SpanKind.CONSUMER, attributes }, contextOfCarrier(fields.trace));
}

/** Ends a task span with how the task ended: its status, and its error if any. */
export function endTaskSpan(span: Span, outcome: TaskOutcome): void {
  const status = outcome.kind === 'retry' ? 'retry' : outcome.result.status;
  const error = outcome.kind === 'retry' ? outcome.error : outcome.result.error;
  span.setAttribute('peagen.task.status', status);
  if (error) {
    span.setAttribute('peagen.task.error_code', error.code);
    if (status !== 'skip') {
      span.recordException({ name: error.code, message: error.message.slice(0, 4000) });
      span.setStatus({ code: SpanStatusCode.ERROR, message: `${error.code}: ${error.message.slice(0, 500)}` });
    }
  }
  span.end();
}

/** The fabric's task hook (runTask.ts): a span per task, as above. */
export const taskTracer: TaskTracer = {
  start(raw, workerId) {
    const span = startTaskSpan(raw, workerId);
    return {
      end: (outcome) => endTaskSpan(span, outcome),
      fail: (error) => {
        recordError(span, error);
        span.end();
      },
    };
  },
};
