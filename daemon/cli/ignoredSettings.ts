/**
 * Settings a running daemon ignores: it was configured when it started, so a QUEUE_URL or
 * WORKER_CONCURRENCY in the caller's environment (or peagen.json) that differs from what the
 * daemon runs with has no effect on work sent through it. The caller is told, not left to
 * wonder why the setting did nothing.
 */
import type { Status } from '../../shared/protocol';
import type { LoadedConfig, SettingPath } from '../config';
import { dockerEndpoint } from '../sandbox/docker/endpoint';

export interface IgnoredSetting {
  /** `QUEUE_URL`, or `peagen.json worker.concurrency`. */
  source: string;
  /** What the caller asked for. */
  wanted: string;
  /** What the daemon runs with. */
  daemonHas: string;
}

const masked = (url: string): string => url.replace(/\/\/[^@/]*@/, '//***@');
const sameSet = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((item) => b.includes(item));

/**
 * Compares only what the caller set explicitly (defaults say nothing about intent) with what
 * `peagen/status` reports: queue url, worker caps, count and mode, sandbox executor, and the
 * docker engine when the daemon uses docker (its reason names the engine's address).
 */
export function findIgnoredSettings({ config, sources }: LoadedConfig, status: Status.Response): IgnoredSetting[] {
  const ignored: IgnoredSetting[] = [];
  const check = (key: SettingPath, wanted: string, daemonHas: string, differs: boolean): void => {
    const source = sources[key];
    if (source && differs) ignored.push({ source, wanted, daemonHas });
  };
  check('queue.url', masked(config.queue.url), masked(status.queue.url), config.queue.url !== status.queue.url);
  if (status.workers.count > 0) {
    // The daemon adds the capabilities its executor proves (docker), as the engine does.
    const proven = status.sandbox.executor === 'docker' ? ['docker'] : [];
    const expectedCaps = [...new Set([...config.worker.caps, ...proven])];
    check('worker.caps', config.worker.caps.join(','), status.workers.caps.join(','), !sameSet(expectedCaps, status.workers.caps));
    check('worker.concurrency', String(config.worker.concurrency), String(status.workers.count), config.worker.concurrency !== status.workers.count);
    check('worker.mode', config.worker.mode, status.workers.mode, config.worker.mode !== status.workers.mode);
  }
  const executor = config.sandbox.executor;
  check('sandbox.executor', executor, status.sandbox.executor, executor !== 'auto' && executor !== status.sandbox.executor);
  if (status.sandbox.executor === 'docker' && config.sandbox.dockerHost) {
    const wanted = dockerEndpoint(config.sandbox.dockerHost).display;
    check('sandbox.dockerHost', wanted, 'another engine (see `peagen daemon status`)', !status.sandbox.reason.includes(wanted));
  }
  return ignored;
}

/** One line: each ignored setting with the daemon's value, and how to apply them. */
export function describeIgnoredSettings(ignored: readonly IgnoredSetting[], pid: number, alternative?: string): string {
  const settings = ignored.map((setting) => `${setting.source}=${setting.wanted} (it uses ${setting.daemonHas})`).join(', ');
  const apply = `to apply ${ignored.length === 1 ? 'it' : 'them'}, restart the daemon (\`peagen daemon stop\`, then \`peagen daemon start\`)${alternative ? ` or ${alternative}` : ''}`;
  return `peagen: warning: the running daemon (pid ${pid}) ignores ${settings}; ${apply}`;
}
