/**
 * What the status bar says about the cluster: where the work goes (mode and host, from the
 * daemon's own Status once it answers, from the settings before) and, when the daemon could
 * not be reached, why and what to fix (probing Redis, or reading the daemon address failure).
 */
import * as vscode from 'vscode';
import type { DaemonConnection } from '../daemonConnection';
import { type ClusterTarget, type ConnectionProblem, describeTarget, explainProblem, queueHost } from './clusterTarget';
import { probeRedis } from './redisProbe';

/** What the status bar reads (statusBar.ts); fires when either changes. */
export interface ClusterView {
  readonly target: ClusterTarget;
  /** What is wrong with the connection and what to do, while the daemon cannot serve. */
  readonly problem: string | undefined;
  readonly onDidChange: vscode.Event<void>;
}

export class ClusterStatus implements ClusterView, vscode.Disposable {
  private daemonQueue: { backend: string; url: string } | undefined;
  private problemValue: ConnectionProblem | undefined;
  /** Bumped on every state change: an answer that arrives after a newer change is dropped. */
  private generation = 0;
  private readonly changeEmitter = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changeEmitter.event;
  private readonly subscriptions: vscode.Disposable[];

  constructor(
    private readonly daemon: DaemonConnection,
    private readonly redisPassword: () => Thenable<string | undefined>,
  ) {
    this.subscriptions = [
      daemon.onDidChangeState(() => void this.update()),
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (!event.affectsConfiguration('peagen.queue') && !event.affectsConfiguration('peagen.daemon')) return;
        this.problemValue = undefined;
        this.changeEmitter.fire();
      }),
      this.changeEmitter,
    ];
    void this.update();
  }

  get target(): ClusterTarget {
    const settings = vscode.workspace.getConfiguration('peagen');
    return describeTarget({
      configuredAddress: settings.get<string>('daemon.address', ''),
      queueUrlSetting: settings.get<string>('queue.url', ''),
      ...(this.daemonQueue && { daemonQueue: this.daemonQueue }),
    });
  }

  get problem(): string | undefined {
    return this.problemValue && explainProblem(this.problemValue);
  }

  dispose(): void {
    for (const subscription of this.subscriptions) subscription.dispose();
  }

  private async update(): Promise<void> {
    const generation = ++this.generation;
    const state = this.daemon.state;
    if (state === 'running' || state === 'busy') {
      this.problemValue = undefined;
      if (!this.daemonQueue) {
        // The queue of a daemon never changes while it runs: ask once per daemon.
        const status = await this.daemon.status().catch(() => undefined);
        if (generation !== this.generation) return;
        if (status) this.daemonQueue = { backend: status.queue.backend, url: status.queue.url };
      }
      this.changeEmitter.fire();
      return;
    }
    this.daemonQueue = undefined;
    // Starting keeps the last diagnosis: during restarts it stays the useful thing to show.
    if (state !== 'error') {
      this.changeEmitter.fire();
      return;
    }
    const problem = await this.diagnose();
    if (generation !== this.generation) return;
    this.problemValue = problem;
    this.changeEmitter.fire();
  }

  private async diagnose(): Promise<ConnectionProblem | undefined> {
    const settings = vscode.workspace.getConfiguration('peagen');
    const address = settings.get<string>('daemon.address', '').trim();
    if (address) return { kind: 'daemon-unreachable', where: address, detail: this.daemon.stateDetail.replace(/^the daemon did not start: /, '') };
    // Only a daemon this window spawns uses this window's queue setting.
    if (this.daemon.where !== 'spawned by this window') return undefined;
    const url = settings.get<string>('queue.url', '').trim();
    if (!queueHost(url)) return undefined;
    return probeRedis(url, await this.redisPassword());
  }
}
