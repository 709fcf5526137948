/**
 * Where this window's work goes, in words for the status bar: the mode (embedded: the daemon's
 * private in-memory queue; cluster: a shared Redis queue) and the host (the Redis host, or the
 * daemon address the settings name). What to do when the connection fails. No vscode import:
 * unit-tested in test/unit/clusterTarget.test.ts.
 */
import { parseRedisAddress } from '../../shared/redisAddress';

export type ClusterMode = 'embedded' | 'cluster';

export interface ClusterTarget {
  mode: ClusterMode;
  /** `redis 10.0.0.5:6379` or `daemon tcp:10.0.0.5:7781`; never a password. */
  host?: string;
  /** What the status bar shows after the state: `cluster redis 10.0.0.5:6379`. */
  label: string;
}

export interface TargetInputs {
  /** `peagen.daemon.address` (empty: this window's own daemon or the user's shared one). */
  configuredAddress: string;
  /** `peagen.queue.url` (empty: memory://). */
  queueUrlSetting: string;
  /** The queue the daemon reports (Status.Response.queue), once it answered: it wins. */
  daemonQueue?: { backend: string; url: string };
}

/**
 * `host:port` of a redis:// or rediss:// URL (`cluster host:port,host:port` of a
 * redis+cluster:// one), without user or password; undefined otherwise.
 */
export function queueHost(url: string): string | undefined {
  if (/^rediss?\+cluster:/i.test(url.trim())) {
    try {
      const address = parseRedisAddress(url.trim(), {});
      const nodes = (address.cluster?.nodes ?? []).map((node) => (node.host.includes(':') ? `[${node.host}]:${node.port}` : `${node.host}:${node.port}`));
      return `${address.connection.tls ? 'rediss ' : ''}cluster ${nodes.join(',')}`;
    } catch {
      return undefined;
    }
  }
  let parsed: URL;
  try {
    parsed = new URL(url.trim());
  } catch {
    return undefined;
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') return undefined;
  if (!parsed.hostname) return undefined;
  const tls = parsed.protocol === 'rediss:' ? 'rediss ' : '';
  return `${tls}${parsed.hostname}:${parsed.port || '6379'}`;
}

export function describeTarget(inputs: TargetInputs): ClusterTarget {
  const address = inputs.configuredAddress.trim();
  const url = inputs.daemonQueue ? inputs.daemonQueue.url : inputs.queueUrlSetting;
  const redisHost = queueHost(url);
  const backend = inputs.daemonQueue?.backend ?? (redisHost ? 'redis' : 'memory');
  const mode: ClusterMode = backend === 'memory' ? 'embedded' : 'cluster';
  const host = address ? `daemon ${address}` : redisHost ? `redis ${redisHost}` : undefined;
  return { mode, ...(host !== undefined && { host }), label: host ? `${mode} ${host}` : mode };
}

/** Why the daemon could not serve this window, found out by {@link ../redisProbe}. */
export type ConnectionProblem =
  | { kind: 'redis-unreachable'; where: string; detail: string }
  | { kind: 'redis-password-required'; where: string }
  | { kind: 'redis-password-refused'; where: string; detail: string }
  | { kind: 'redis-not-cluster'; where: string; detail: string }
  | { kind: 'redis-cluster-down'; where: string; detail: string }
  /** A master the cluster announces (at `where`), as the seed node `seed` listed it. */
  | { kind: 'redis-node-unreachable'; where: string; detail: string; seed: string }
  | { kind: 'queue-url-invalid'; detail: string }
  | { kind: 'daemon-unreachable'; where: string; detail: string };

/** One sentence: what is wrong, then what to do (in the words of the settings and commands). */
export function explainProblem(problem: ConnectionProblem): string {
  const redisFix = 'check peagen.queue.url / run Peagen: Set Redis Password';
  switch (problem.kind) {
    case 'redis-unreachable':
      return `Redis at ${problem.where} is unreachable (${problem.detail}): ${redisFix}`;
    case 'redis-password-required':
      return `Redis at ${problem.where} requires a password: ${redisFix}`;
    case 'redis-password-refused':
      return `Redis at ${problem.where} refused the password (${problem.detail}): ${redisFix}`;
    case 'redis-not-cluster':
      return `Redis at ${problem.where} is not a cluster node (${problem.detail}): use redis://host:port for a single Redis, or check peagen.queue.url`;
    case 'redis-cluster-down':
      return `the Redis Cluster at ${problem.where} does not serve (${problem.detail}): every slot needs a live master (redis-cli --cluster check ${problem.where})`;
    case 'redis-node-unreachable':
      return `the Redis Cluster (seen from ${problem.seed}) announces a master at ${problem.where}, which is unreachable from here (${problem.detail}): the daemon connects to the addresses the cluster announces: set cluster-announce-ip on its nodes, or check the network`;
    case 'queue-url-invalid':
      return `peagen.queue.url is not a Redis address (${problem.detail}): check peagen.queue.url`;
    case 'daemon-unreachable':
      return `the daemon at ${problem.where} is unreachable (${problem.detail}): check peagen.daemon.address (and peagen.daemon.tokenFile)`;
  }
}
