/** Cluster settings and secrets, for tests and other extensions. Never a secret's value. */
import type { ClusterTarget } from './clusterTarget';
import type { SecretKey } from './daemonEnvironment';

export interface ClusterApi {
  /** The SecretStorage keys that hold a value (e.g. `peagen.redisPassword`); never the values. */
  secretKeysSet(): Promise<SecretKey[]>;
  /** Where the work goes, as the status bar shows it: mode (embedded / cluster) and host. */
  readonly target: ClusterTarget;
  /** While the daemon cannot serve: what is wrong and what to fix; otherwise undefined. */
  readonly problem: string | undefined;
  /** This extension's log folder (the Peagen output channel's log file is in it). */
  readonly logDirectory: string;
}
