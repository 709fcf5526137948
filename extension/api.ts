/** What the extension exports to other extensions and to its own end-to-end tests. */
import type { Status } from '../shared/protocol';
import type { Result, TaskSpec } from '../shared/task';

export type DaemonState = 'starting' | 'running' | 'busy' | 'error' | 'stopped';

export interface PeagenApi {
  readonly state: DaemonState;
  status(): Promise<Status.Response>;
  statusBarText(): string;
  submitAndWait(spec: Pick<TaskSpec, 'kind' | 'payload' | 'requires'>, waitMs: number): Promise<Result | null>;
}
