/**
 * The daemon's health as one `peagen/serverStatus` message, recomputed when tasks change state
 * (and now and then, for changes made by workers elsewhere) and pushed to every client only
 * when it differs from the last one sent.
 */
import { isDeepStrictEqual } from 'node:util';
import type { ServerStatus } from '../../shared/protocol';
import type { Engine, EngineStatus } from '../engine/Engine';

/** Task updates come in bursts; one recomputation per burst is enough. */
const SETTLE_MS = 100;
const REFRESH_MS = 5_000;

export function summarize(status: EngineStatus): ServerStatus.Params {
  const { queue, workers, sandbox } = status;
  const running = workers.busy;
  const quiescent = running === 0 && queue.pending === 0 && queue.inFlight === 0 && queue.delayed === 0;
  const waiting = queue.pending + queue.delayed;
  const activity = quiescent ? 'idle' : `${running} running, ${waiting} waiting`;
  const attention = [
    ...(sandbox.isolates ? [] : [`the ${sandbox.executor} sandbox does not isolate candidates`]),
    ...(queue.dead > 0 ? [`${queue.dead} dead-lettered (peagen queue dlq list)`] : []),
  ];
  return {
    health: attention.length > 0 ? 'warning' : 'ok',
    quiescent,
    running,
    queue: { pending: queue.pending, inFlight: queue.inFlight, delayed: queue.delayed, dead: queue.dead },
    message: [activity, ...attention].join('; '),
  };
}

export class ServerStatusReporter {
  private static readonly reporters = new WeakMap<Engine, ServerStatusReporter>();
  private readonly listeners = new Set<(status: ServerStatus.Params) => void>();
  private last: ServerStatus.Params | undefined;
  private settling: NodeJS.Timeout | undefined;
  private refresh: NodeJS.Timeout | undefined;
  private readonly onUpdate = (): void => this.schedule();

  /** One reporter per engine, however many clients listen. */
  static of(engine: Engine): ServerStatusReporter {
    let reporter = ServerStatusReporter.reporters.get(engine);
    if (!reporter) ServerStatusReporter.reporters.set(engine, (reporter = new ServerStatusReporter(engine)));
    return reporter;
  }

  private constructor(private readonly engine: Engine) {}

  /**
   * Sends `listener` the current status at once, then every change; the engine is watched
   * only while someone listens.
   */
  subscribe(listener: (status: ServerStatus.Params) => void): () => void {
    if (this.listeners.size === 0) {
      this.engine.on('update', this.onUpdate);
      this.refresh = setInterval(this.onUpdate, REFRESH_MS).unref();
    }
    this.listeners.add(listener);
    void this.engine.status().then(
      (status) => {
        const next = summarize(status);
        // A change nobody was told of yet goes to everyone, not only to the newcomer.
        const changed = !isDeepStrictEqual(next, this.last);
        this.last = next;
        for (const each of changed ? [...this.listeners] : [listener]) if (this.listeners.has(each)) each(next);
      },
      () => {},
    );
    return () => {
      if (!this.listeners.delete(listener) || this.listeners.size > 0) return;
      this.engine.off('update', this.onUpdate);
      clearInterval(this.refresh);
      clearTimeout(this.settling);
      this.settling = undefined;
    };
  }

  private schedule(): void {
    if (this.settling) return;
    this.settling = setTimeout(() => {
      this.settling = undefined;
      void this.engine.status().then(
        (status) => {
          const next = summarize(status);
          if (isDeepStrictEqual(next, this.last)) return;
          this.last = next;
          for (const listener of this.listeners) listener(next);
        },
        () => {}, // the engine is stopping: nothing left to report
      );
    }, SETTLE_MS);
  }
}
