/**
 * The observability endpoint of one process: `/metrics` (Prometheus text), `/healthz` (the
 * process is up) and `/readyz` (its queue answers and its executor is usable; 503 with the
 * reasons otherwise). A bind failure (port in use, no such address) is a warning and the
 * process goes on without the endpoint; a worker pool whose port is taken tries the next few.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { MetricsEndpointStatus } from '../../shared/protocol';
import type { QueueAdmin } from '../fabric/queue/TaskQueue';
import type { Executor } from '../sandbox/Executor';
import { type PeagenMetrics, processMetrics } from './metrics';

export type { MetricsEndpointStatus };

export interface MetricsEndpoint {
  readonly status: MetricsEndpointStatus;
  close(): Promise<void>;
}

export interface MetricsServerOptions {
  /** `host:port` (port 0: any free port) or `off`. */
  listen: string;
  /** Problems that make this process not ready; none: ready. */
  readiness(): Promise<string[]>;
  metrics?: PeagenMetrics;
  /** Further ports tried, one after another, when the port is in use (worker pools: a few). */
  extraPorts?: number;
  /** Names the process in the warning (`daemon`, `worker pool`). */
  what: string;
  log(line: string): void;
}

/** `host:port` split; IPv6 hosts in brackets (`[::1]:9464`). */
export function parseListen(listen: string): { host: string; port: number } {
  const match = /^(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9._-]+)):(\d{1,5})$/.exec(listen);
  const port = Number(match?.[3]);
  if (!match || port > 65_535) throw new Error(`expected host:port (e.g. 127.0.0.1:9464) or "off", got "${listen}"`);
  return { host: match[1] ?? match[2]!, port };
}

function formatHostPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/** Starts the endpoint; never throws: a failure is in `status.error` and logged once. */
export async function startMetricsServer(options: MetricsServerOptions): Promise<MetricsEndpoint> {
  const { listen } = options;
  const off = (error: string): MetricsEndpoint => ({ status: { listen, error }, close: async () => {} });
  if (listen === 'off') return off('turned off (observability metrics listen is "off")');
  let host: string;
  let port: number;
  try {
    ({ host, port } = parseListen(listen));
  } catch (error) {
    const message = `not serving metrics: ${(error as Error).message}`;
    options.log(`warning: ${options.what} ${message}`);
    return off(message);
  }
  const registry = (options.metrics ?? processMetrics()).registry;
  const server = http.createServer((request, response) => void answer(request, response));
  const answer = async (request: http.IncomingMessage, response: http.ServerResponse): Promise<void> => {
    const path = (request.url ?? '/').split('?')[0];
    const send = (status: number, body: string, type = 'text/plain; charset=utf-8'): void => {
      response.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
      response.end(request.method === 'HEAD' ? undefined : body);
    };
    if (request.method !== 'GET' && request.method !== 'HEAD') return send(405, 'only GET and HEAD\n');
    try {
      if (path === '/metrics') return send(200, await registry.metrics(), registry.contentType);
      if (path === '/healthz') return send(200, 'ok\n');
      if (path === '/readyz') {
        const problems = await options.readiness();
        return problems.length === 0 ? send(200, 'ready\n') : send(503, `not ready: ${problems.join('; ')}\n`);
      }
      send(404, 'not found: try /metrics, /healthz or /readyz\n');
    } catch (error) {
      send(500, `${(error as Error).message}\n`);
    }
  };

  const attempts = port === 0 ? 1 : 1 + (options.extraPorts ?? 0);
  let lastError: NodeJS.ErrnoException | undefined;
  for (let attempt = 0; attempt < attempts && port + attempt <= 65_535; attempt++) {
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen({ host, port: port + attempt }, () => {
          server.off('error', reject);
          resolve();
        });
      });
      const bound = server.address() as AddressInfo;
      const address = formatHostPort(host, bound.port);
      if (attempt > 0) options.log(`${options.what}: metrics port ${port} is in use; serving on ${address} instead`);
      return {
        status: { listen, address, url: `http://${address}/metrics` },
        close: () =>
          new Promise<void>((resolve) => {
            server.close(() => resolve());
            server.closeAllConnections();
          }),
      };
    } catch (error) {
      lastError = error as NodeJS.ErrnoException;
      if (lastError.code !== 'EADDRINUSE') break;
    }
  }
  const tried = attempts > 1 ? ` (ports ${port} to ${port + attempts - 1})` : '';
  const reason =
    lastError?.code === 'EADDRINUSE'
      ? `${listen} is in use${tried}; set observability.${options.what === 'daemon' ? 'metricsListen' : 'workerMetricsListen'} or --metrics-listen to a free host:port, or "off"`
      : `cannot listen on ${listen}: ${lastError?.message ?? 'unknown error'}`;
  options.log(`warning: ${options.what} is not serving /metrics, /healthz or /readyz: ${reason}`);
  return off(reason);
}

/** How long a readiness check may take before it counts as not answering. */
const CHECK_TIMEOUT_MS = 3_000;
/** A usable executor is checked again after this long (its probe may start a process). */
const EXECUTOR_OK_FOR_MS = 30_000;

/** Readiness of a process that serves a queue (and, with an executor, runs sandboxes). */
export function queueAndExecutorReadiness(queue: QueueAdmin, executor?: () => Executor | undefined): () => Promise<string[]> {
  let executorOkUntil = 0;
  return async () => {
    const problems: string[] = [];
    const checks: Promise<void>[] = [
      withTimeout(queue.stats(), `the queue (${queue.url}) did not answer within ${CHECK_TIMEOUT_MS / 1000} s`).then(
        () => undefined,
        (error: unknown) => void problems.push(`queue ${queue.url} unreachable: ${(error as Error).message}`),
      ),
    ];
    const chosen = executor?.();
    if (chosen && Date.now() >= executorOkUntil) {
      checks.push(
        withTimeout(chosen.available(), `the ${chosen.name} executor did not answer within ${CHECK_TIMEOUT_MS / 1000} s`).then(
          (availability) => {
            if (availability.ok) executorOkUntil = Date.now() + EXECUTOR_OK_FOR_MS;
            else problems.push(`the ${chosen.name} executor is unusable: ${availability.reason}`);
          },
          (error: unknown) => void problems.push(`the ${chosen.name} executor is unusable: ${(error as Error).message}`),
        ),
      );
    }
    await Promise.all(checks);
    return problems;
  };
}

function withTimeout<T>(work: Promise<T>, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(message)), CHECK_TIMEOUT_MS);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
