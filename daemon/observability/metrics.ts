/**
 * The metric objects of docs/metrics.md, one set per registry. A process serves one registry
 * ({@link processMetrics}); tests build their own with {@link createPeagenMetrics}. Names,
 * types and labels here are the documented contract: dashboards and alert rules use them.
 *
 * Gauges whose value lives elsewhere (the queue, the warm spawner) are read at scrape time
 * from the sources registered with {@link PeagenMetrics.addSource}, so a scrape shows the
 * state now, never a value cached since the last event.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Seconds: from a few milliseconds (a warm sandbox, an echo task) to the longest evaluations. */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];
/** Seconds one LLM request takes. */
const LLM_BUCKETS = [0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120];

/** Something that contributes scrape-time gauge values (a queue, a spawner). */
export interface MetricSource {
  /** Called once per scrape, before the gauges are read; it sets the gauges it owns. */
  collect(metrics: PeagenMetrics): Promise<void> | void;
}

export type PeagenMetrics = ReturnType<typeof createPeagenMetrics>;

export function createPeagenMetrics(registry = new Registry(), options: { processMetrics?: boolean } = {}) {
  const registers = [registry];
  const sources = new Set<MetricSource>();
  const scrapedGauges: Gauge<string>[] = [];
  // One collection per scrape for all scrape-time gauges: each source is asked once and sets
  // every gauge it owns (queue depth answers pending, in-flight and delayed in one call).
  let collecting: Promise<void> | undefined;
  const collectSources = (): Promise<void> => {
    collecting ??= (async () => {
      try {
        // A label set nobody reports any more (a drained requirement set) disappears.
        for (const gauge of scrapedGauges) gauge.reset();
        await Promise.allSettled([...sources].map(async (source) => source.collect(metrics)));
      } finally {
        // Every gauge of one scrape asks in the same tick, so they share this collection;
        // the next scrape collects again.
        collecting = undefined;
      }
    })();
    return collecting;
  };
  const scraped = (name: string, help: string, labelNames: string[]): Gauge<string> => {
    const gauge = new Gauge({
      name,
      help,
      labelNames,
      registers,
      async collect() {
        await collectSources().catch(() => undefined);
      },
    });
    scrapedGauges.push(gauge);
    return gauge;
  };

  const metrics = {
    registry,
    sources,
    /** Registers a scrape-time source; returns its removal. */
    addSource(source: MetricSource): () => void {
      sources.add(source);
      return () => sources.delete(source);
    },

    queuePending: scraped('peagen_queue_pending', 'Tasks waiting for a worker, by kind and requirement set.', ['kind', 'requires']),
    queueInFlight: scraped('peagen_queue_in_flight', 'Tasks claimed and running, by kind and requirement set.', ['kind', 'requires']),
    queueDelayed: scraped('peagen_queue_delayed', 'Tasks waiting for a retry back-off, by kind and requirement set.', ['kind', 'requires']),
    queueDead: scraped('peagen_queue_dead', 'Tasks in the dead-letter store.', []),
    queueOldestPendingAge: scraped(
      'peagen_queue_oldest_pending_age_seconds',
      'Age of the oldest task waiting for a worker (0 when none), by kind and requirement set.',
      ['kind', 'requires'],
    ),
    clusterWorkers: scraped('peagen_cluster_workers', 'Worker pools announced on the queue, by capability set.', ['caps']),
    clusterWorkerSlots: scraped('peagen_cluster_worker_slots', 'Task slots of the worker pools announced on the queue, by capability set.', ['caps']),
    clusterWorkerBusySlots: scraped(
      'peagen_cluster_worker_busy_slots',
      'Of those task slots, the ones running a task at the pools\' last heartbeat, by capability set.',
      ['caps'],
    ),
    queueCapableSlots: scraped(
      'peagen_queue_capable_slots',
      'Task slots of the announced pools able to run a requirement set (their caps include it and they serve the kind).',
      ['kind', 'requires'],
    ),
    queueCapableBusySlots: scraped(
      'peagen_queue_capable_busy_slots',
      'Of those task slots, the ones running a task (of any kind) at the pools\' last heartbeat.',
      ['kind', 'requires'],
    ),

    tasksStarted: new Counter({ name: 'peagen_tasks_started_total', help: "Tasks claimed by this process's slots.", labelNames: ['kind'], registers }),
    tasksFinished: new Counter({
      name: 'peagen_tasks_finished_total',
      help: 'Tasks this process finished, by status (succeeded, failed, cancelled, lease_lost, released).',
      labelNames: ['kind', 'status'],
      registers,
    }),
    handlerDuration: new Histogram({
      name: 'peagen_handler_duration_seconds',
      help: 'Claim to result of a task.',
      labelNames: ['kind', 'status'],
      buckets: DURATION_BUCKETS,
      registers,
    }),
    sandboxStart: new Histogram({
      name: 'peagen_sandbox_start_seconds',
      help: 'Sandbox requested (created, or a prepared one taken) to program started.',
      labelNames: ['executor'],
      buckets: DURATION_BUCKETS,
      registers,
    }),
    sandboxRun: new Histogram({
      name: 'peagen_sandbox_run_seconds',
      help: 'Program started to exit in a sandbox.',
      labelNames: ['executor'],
      buckets: DURATION_BUCKETS,
      registers,
    }),

    warmLive: scraped('peagen_warm_pool_live_workers', 'One-shot worker processes alive (ready or busy).', ['caps']),
    warmReady: scraped('peagen_warm_pool_ready_workers', 'One-shot worker processes waiting for a task.', ['caps']),
    workerSpawns: new Counter({ name: 'peagen_worker_spawns_total', help: 'One-shot worker processes started.', labelNames: ['caps'], registers }),
    workerExits: new Counter({ name: 'peagen_worker_exits_total', help: 'One-shot worker processes ended, by reason.', labelNames: ['reason'], registers }),

    llmRequests: new Counter({ name: 'peagen_llm_requests_total', help: 'LLM requests, by model and outcome (ok, error).', labelNames: ['model', 'outcome'], registers }),
    llmTokens: new Counter({ name: 'peagen_llm_tokens_total', help: 'LLM tokens, by model and direction (input, output).', labelNames: ['model', 'direction'], registers }),
    llmCost: new Counter({ name: 'peagen_llm_cost_usd_total', help: 'Estimated LLM spend in USD, by model.', labelNames: ['model'], registers }),
    llmLatency: new Histogram({ name: 'peagen_llm_latency_seconds', help: 'Time of one LLM request.', labelNames: ['model'], buckets: LLM_BUCKETS, registers }),

    evolveEvaluations: new Counter({
      name: 'peagen_evolve_evaluations_total',
      help: 'Evaluations of candidates (confirmations included), by run and outcome (ok, failed).',
      labelNames: ['run', 'outcome'],
      registers,
    }),
    evolvePatches: new Counter({
      name: 'peagen_evolve_patches_total',
      help: 'Mutator answers, by run and outcome (applied, rejected); yield = applied / all.',
      labelNames: ['run', 'outcome'],
      registers,
    }),
    evolveBestObjective: new Gauge({ name: 'peagen_evolve_best_objective', help: 'Best objective of a run so far.', labelNames: ['run'], registers }),
    evolveTokensUsed: new Gauge({ name: 'peagen_evolve_tokens_used', help: 'Tokens a run has spent.', labelNames: ['run'], registers }),
    evolveTokenBudget: new Gauge({ name: 'peagen_evolve_token_budget', help: 'Token budget of a run (absent when unlimited).', labelNames: ['run'], registers }),
    evolveCost: new Gauge({ name: 'peagen_evolve_cost_usd', help: 'Estimated USD a run has spent.', labelNames: ['run'], registers }),
    evolveCostBudget: new Gauge({ name: 'peagen_evolve_cost_budget_usd', help: 'USD budget of a run (absent when unlimited).', labelNames: ['run'], registers }),
    evolveRunsActive: new Gauge({ name: 'peagen_evolve_runs_active', help: 'Evolution runs in progress.', registers }),
  };
  if (options.processMetrics !== false) collectDefaultMetrics({ register: registry, prefix: 'peagen_' });
  return metrics;
}

let shared: PeagenMetrics | undefined;

/** This process's metrics: what its /metrics endpoint serves. */
export function processMetrics(): PeagenMetrics {
  shared ??= createPeagenMetrics();
  return shared;
}

/** A capability set as a label value: sorted, joined by `,` (`cpu,llm`). */
export function capsLabel(caps: readonly string[]): string {
  return [...new Set(caps)].sort().join(',');
}
