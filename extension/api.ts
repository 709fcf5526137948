/** What the extension exports to other extensions and to its own end-to-end tests. */
import type { Status } from '../shared/protocol';
import type { Result, TaskSpec } from '../shared/task';
import type { ClusterApi } from './cluster/api';
import type { DashboardApi } from './dashboard/api';
import type { EvolutionViewApi } from './evolutionView/api';
import type { EvolveApi } from './evolve/api';
import type { ProposalsApi } from './proposals/api';
import type { DaemonState } from './daemonConnection';

export type { DaemonState };

export interface PeagenApi {
  readonly state: DaemonState;
  status(): Promise<Status.Response>;
  /** Where the daemon in use is: its socket address, or "spawned by this window". */
  readonly daemonAddress: string;
  /** Disconnects (stopping the daemon if this window spawned it); Restart Daemon reconnects. */
  stopDaemon(): Promise<void>;
  statusBarText(): string;
  /** The status bar item's tooltip as Markdown source (command links included). */
  statusBarTooltip(): string;
  submitAndWait(spec: Pick<TaskSpec, 'kind' | 'payload' | 'requires'>, waitMs: number): Promise<Result | null>;
  readonly proposals: ProposalsApi;
  readonly evolve: EvolveApi;
  readonly evolution: EvolutionViewApi;
  readonly dashboard: DashboardApi;
  readonly cluster: ClusterApi;
}
