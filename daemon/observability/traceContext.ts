/**
 * W3C Trace Context for tasks: the `traceparent` a task carries (shared/task.ts `trace`) from
 * the span that submitted it to the worker that runs it, in any process or host.
 *
 * Written here rather than taken from W3CTraceContextPropagator: that lives in
 * @opentelemetry/core, which is not a direct dependency, and a task carries one explicit field
 * rather than a header map.
 */
import {
  type Context,
  isSpanContextValid,
  ROOT_CONTEXT,
  type Span,
  type SpanContext,
  trace,
  TraceFlags,
} from '@opentelemetry/api';
import { TraceCarrierSchema, type TraceCarrier } from '../../shared/task';

/** The carrier of a task submitted under `span`; undefined when the span is a no-op (tracing off). */
export function traceCarrierOf(span: Span | undefined): TraceCarrier | undefined {
  const context = span?.spanContext();
  if (!context || !isSpanContextValid(context)) return undefined;
  const flags = (context.traceFlags & 0xff).toString(16).padStart(2, '0');
  return { traceparent: `00-${context.traceId}-${context.spanId}-${flags}` };
}

/**
 * The remote parent a carrier names, or undefined for anything malformed: a bad carrier costs
 * the task its place in the trace, never its run.
 */
export function spanContextOf(carrier: unknown): SpanContext | undefined {
  const parsed = TraceCarrierSchema.safeParse(carrier);
  if (!parsed.success) return undefined;
  const [, traceId, spanId, flags] = parsed.data.traceparent.split('-') as [string, string, string, string];
  const context: SpanContext = { traceId, spanId, traceFlags: Number.parseInt(flags, 16) & TraceFlags.SAMPLED, isRemote: true };
  return isSpanContextValid(context) ? context : undefined;
}

/** A context whose parent is the carrier's span; the root context when there is none. */
export function contextOfCarrier(carrier: unknown): Context {
  const remote = spanContextOf(carrier);
  return remote ? trace.setSpanContext(ROOT_CONTEXT, remote) : ROOT_CONTEXT;
}
