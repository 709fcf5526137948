/**
 * Tracing in one process: the task's trace carrier (valid, malformed, absent), the task span
 * runTask makes under it, what reaches a real OTLP/HTTP receiver, and that a dead collector
 * neither breaks work nor holds shutdown.
 */
import * as assert from 'node:assert/strict';
import { setTimeout as delay } from 'node:timers/promises';
import { trace } from '@opentelemetry/api';
import * as z from 'zod';
import { HandlerRegistry } from '../../daemon/fabric/worker/HandlerRegistry';
import { runTask } from '../../daemon/fabric/worker/runTask';
import { HandlerError } from '../../daemon/fabric/worker/TaskHandler';
import { contextOfCarrier, spanContextOf, traceCarrierOf } from '../../daemon/observability/traceContext';
import { inSpan, shutdownTracing, startTracing, taskTracer, tracer } from '../../daemon/observability/tracing';
import { newTask, parseTask, TaskSchema } from '../../shared/task';
import { startOtlpReceiver, startSilentEndpoint, type OtlpReceiver } from '../fixtures/otlpReceiver';
import { freePort } from '../fixtures/freePort';

const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const SPAN_ID = 'b7ad6b7169203331';
const VALID = { traceparent: `00-${TRACE_ID}-${SPAN_ID}-01` };

function registry(): HandlerRegistry {
  return new HandlerRegistry()
    .register({ kind: 'echo', provides: ['cpu'], payloadSchema: z.unknown(), handle: async (task) => ({ status: 'ok', data: task.payload }) })
    .register({
      kind: 'fail',
      provides: ['cpu'],
      payloadSchema: z.unknown(),
      handle: async () => {
        throw new HandlerError('broken', 'this handler always fails');
      },
    });
}


describe('tracing: the task trace carrier', () => {
  it('round-trips a span context through a traceparent', () => {
    const remote = spanContextOf(VALID);
    assert.deepEqual(remote && { traceId: remote.traceId, spanId: remote.spanId, sampled: remote.traceFlags }, { traceId: TRACE_ID, spanId: SPAN_ID, sampled: 1 });
    const span = trace.wrapSpanContext(remote!);
    assert.deepEqual(traceCarrierOf(span), VALID);
    assert.equal(trace.getSpanContext(contextOfCarrier(VALID))?.spanId, SPAN_ID);
  });

  it('ignores a malformed carrier: the task still parses, without a trace', () => {
    const malformed: unknown[] = [
      'just a string',
      42,
      { traceparent: `01-${TRACE_ID}-${SPAN_ID}-01` },
      { traceparent: `00-${TRACE_ID.toUpperCase()}-${SPAN_ID}-01` },
      { traceparent: `00-${'0'.repeat(32)}-${SPAN_ID}-01` },
      { traceparent: `00-${TRACE_ID}-${'0'.repeat(16)}-01` },
      { traceparent: `00-${TRACE_ID}-${SPAN_ID}-01${'x'.repeat(10_000)}` },
      { traceparent: null },
    ];
    for (const carrier of malformed) {
      assert.equal(spanContextOf(carrier), undefined, JSON.stringify(carrier).slice(0, 80));
      assert.equal(trace.getSpanContext(contextOfCarrier(carrier)), undefined);
      const parsed = parseTask({ ...newTask({ kind: 'echo' }), trace: carrier });
      assert.ok(parsed.ok, 'a malformed trace is never an error');
      if (parsed.ok) assert.equal(parsed.task.trace, undefined);
    }
  });

  it('a task keeps a valid carrier from spec to record, and has none without one', () => {
    const traced = newTask({ kind: 'echo', trace: VALID });
    assert.deepEqual(TaskSchema.parse(JSON.parse(JSON.stringify(traced))).trace, VALID);
    assert.equal('trace' in newTask({ kind: 'echo' }), false);
  });

  it('with tracing off, spans are no-ops and nothing is carried', async () => {
    assert.equal(await startTracing({}, 'peagen-daemon'), false);
    await inSpan('mutate', undefined, {}, async (span) => {
      assert.equal(span.isRecording(), false);
      assert.equal(traceCarrierOf(span), undefined);
    });
  });
});

describe('tracing: export over OTLP/HTTP', function () {
  this.timeout(30_000);
  let receiver: OtlpReceiver;
  beforeEach(async () => (receiver = await startOtlpReceiver()));
  afterEach(async () => {
    await shutdownTracing();
    await receiver.close();
  });

  it('a task span hangs under the span that submitted it, with its kind, attempt and status; errors are recorded', async () => {
    assert.equal(await startTracing({ otlpEndpoint: receiver.url }, 'peagen-worker'), true);
    const signal = new AbortController().signal;
    let carrier: ReturnType<typeof traceCarrierOf>;
    await inSpan('evaluate', undefined, {}, async (span) => {
      carrier = traceCarrierOf(span);
      assert.ok(carrier, 'a recording span has a carrier');
      const ok = await runTask({ ...newTask({ kind: 'echo', payload: 1, trace: carrier }), attempts: 1 }, registry(), 'w/1', signal, undefined, taskTracer);
      assert.equal(ok.kind, 'result');
      const failed = await runTask(newTask({ kind: 'fail', trace: carrier }), registry(), 'w/1', signal, undefined, taskTracer);
      assert.equal(failed.kind, 'result');
    });
    await shutdownTracing();
    const parent = receiver.spans.find((span) => span.name === 'evaluate');
    const echo = receiver.spans.find((span) => span.name === 'task echo');
    const fail = receiver.spans.find((span) => span.name === 'task fail');
    assert.ok(parent && echo && fail, `spans received: ${receiver.spans.map((span) => span.name).join(', ')}`);
    assert.deepEqual(receiver.rejected, []);
    for (const task of [echo, fail]) {
      assert.equal(task.traceId, parent.traceId);
      assert.equal(task.parentSpanId, parent.spanId);
    }
    assert.equal(parent.parentSpanId, '', 'a span without a parent starts a trace');
    assert.deepEqual([echo.attributes['peagen.task.kind'], echo.attributes['peagen.task.attempt'], echo.attributes['peagen.task.status'], echo.statusCode], ['echo', 2, 'ok', 0]);
    assert.deepEqual([fail.attributes['peagen.task.status'], fail.attributes['peagen.task.error_code'], fail.statusCode], ['error', 'broken', 2]);
    assert.ok(fail.events.includes('exception'), 'the error is recorded on the span');
    assert.equal(echo.resource['service.name'], 'peagen-worker');
    assert.equal(echo.resource['process.pid'], process.pid);
  });

  it('a task with a malformed carrier runs and starts a trace of its own', async () => {
    await startTracing({ otlpEndpoint: receiver.url }, 'peagen-worker');
    const outcome = await runTask({ ...newTask({ kind: 'echo' }), trace: { traceparent: 'garbage' } }, registry(), 'w/1', new AbortController().signal, undefined, taskTracer);
    assert.equal(outcome.kind === 'result' && outcome.result.status, 'ok');
    await shutdownTracing();
    const span = receiver.spans.find((candidate) => candidate.name === 'task echo');
    assert.equal(span?.parentSpanId, '');
  });

  it('an unreachable collector: work goes on, one warning at most, shutdown is bounded', async () => {
    const lines: string[] = [];
    const endpoint = `http://127.0.0.1:${await freePort()}`;
    assert.equal(await startTracing({ otlpEndpoint: endpoint }, 'peagen-daemon', { log: (line) => lines.push(line) }), true);
    const signal = new AbortController().signal;
    const work = async (): Promise<void> => {
      await inSpan('evaluate', undefined, {}, async (span) => {
        const outcome = await runTask(newTask({ kind: 'echo', trace: traceCarrierOf(span)! }), registry(), 'w/1', signal, undefined, taskTracer);
        assert.equal(outcome.kind === 'result' && outcome.result.status, 'ok');
      });
    };
    // Batches go out (and fail, after the exporter's retries) while work continues.
    const until = Date.now() + 20_000;
    while (lines.length === 0 && Date.now() < until) {
      await work();
      await delay(100);
    }
    assert.equal(lines.length, 1, 'a dropped batch is said');
    assert.match(lines[0]!, new RegExp(`traces are dropped: the OTLP endpoint ${endpoint}`));
    for (let i = 0; i < 20; i++) {
      await work();
      tracer().startSpan('filler').end();
    }
    const started = performance.now();
    await shutdownTracing(3_000);
    const ms = performance.now() - started;
    console.log(`      shutdown with an unreachable collector took ${ms.toFixed(0)} ms; warnings: ${lines.length}`);
    assert.ok(ms < 10_000, `shutdown took ${ms} ms`);
    assert.equal(lines.length, 1, lines.join('\n'));
  });

  it('a collector that never answers holds the final flush no longer than its bound', async () => {
    const silent = await startSilentEndpoint();
    try {
      await startTracing({ otlpEndpoint: silent.url }, 'peagen-worker', { log: () => {} });
      for (let i = 0; i < 5; i++) tracer().startSpan('filler').end();
      const started = performance.now();
      await shutdownTracing(500);
      const ms = performance.now() - started;
      console.log(`      shutdown with a silent collector (bound 500 ms) took ${ms.toFixed(0)} ms`);
      // The exporter alone would wait its 5 s timeout.
      assert.ok(ms < 4_500, `shutdown took ${ms} ms`);
    } finally {
      await silent.close();
    }
  });
});
