/** What the extension exports to other extensions and to its own end-to-end tests. */
import type { Status } from '../shared/protocol';
import type { Result, TaskSpec } from '../shared/task';

export type DaemonState = 'starting' | 'running' | 'busy' | 'error' | 'stopped';

export interface PeagenApi {
  readonly state: DaemonState;
  status(): Promise<Status.Response>;
  /** Where the daemon in use is: its socket address, or "spawned by this window". */
  readonly daemonAddress: string;
  /** Disconnects (stopping the daemon if this window spawned it); Restart Daemon reconnects. */
  stopDaemon(): Promise<void>;
  statusBarText(): string;
  submitAndWait(spec: Pick<TaskSpec, 'kind' | 'payload' | 'requires'>, waitMs: number): Promise<Result | null>;
}
