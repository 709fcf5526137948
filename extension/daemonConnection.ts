/**
 * The extension's link to the daemon: a vscode-languageclient client that either spawns
 * the bundled daemon over IPC (the default) or connects to the daemon socket named in
 * `peagen.daemon.address`. It tracks the daemon's state and restarts it, a bounded number
 * of times, when it dies.
 */
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import {
  CloseAction,
  type CloseHandlerResult,
  ErrorAction,
  type ErrorHandlerResult,
  LanguageClient,
  type ServerOptions,
  State,
  TransportKind,
} from 'vscode-languageclient/node';
import { GetResult, Handshake, PROTOCOL_VERSION, Status, SubmitTask, TaskUpdate } from '../shared/protocol';
import type { Result, TaskSpec } from '../shared/task';
import type { DaemonState } from './api';

/** Restarts allowed within RESTART_WINDOW_MS before the extension gives up and says so. */
const MAX_RESTARTS = 4;
const RESTART_WINDOW_MS = 3 * 60_000;

export class DaemonConnection implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private stateValue: DaemonState = 'stopped';
  private detail = '';
  private readonly running = new Set<string>();
  private restarts: number[] = [];
  private readonly stateEmitter = new vscode.EventEmitter<DaemonState>();
  readonly onDidChangeState = this.stateEmitter.event;

  constructor(
    private readonly context: vscode.ExtensionContext,
    readonly output: vscode.LogOutputChannel,
  ) {}

  get state(): DaemonState {
    return this.stateValue;
  }

  /** Why the daemon is in its state, for tooltips (e.g. the last error). */
  get stateDetail(): string {
    return this.detail;
  }

  get runningTasks(): number {
    return this.running.size;
  }

  async start(): Promise<void> {
    if (this.client) return;
    this.setState('starting', '');
    const address = vscode.workspace.getConfiguration('peagen').get<string>('daemon.address', '').trim();
    const client = new LanguageClient('peagen', 'Peagen Daemon', address ? this.socketServer(address) : this.bundledServer(), {
      documentSelector: [],
      outputChannel: this.output,
      errorHandler: {
        error: (): ErrorHandlerResult => ({ action: ErrorAction.Continue }),
        closed: (): CloseHandlerResult => this.onClosed(),
      },
    });
    this.client = client;
    client.onDidChangeState((event) => {
      if (event.newState === State.Running) void this.handshake(client);
      else if (event.newState === State.Stopped && this.stateValue !== 'error') this.setState('stopped', 'the daemon is not running');
    });
    client.onNotification(TaskUpdate.type, (update) => {
      if (update.state === 'running') this.running.add(update.taskId);
      else this.running.delete(update.taskId);
      if (this.stateValue === 'running' || this.stateValue === 'busy') this.setState(this.running.size > 0 ? 'busy' : 'running', this.detail);
    });
    try {
      await client.start();
    } catch (error) {
      this.client = undefined;
      this.setState('error', `the daemon did not start: ${(error as Error).message}`);
      throw error;
    }
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.running.clear();
    if (client) await client.stop(5_000).catch(() => {});
    this.setState('stopped', 'stopped by request');
  }

  async restart(): Promise<void> {
    this.restarts = [];
    await this.stop();
    await this.start();
  }

  async status(): Promise<Status.Response> {
    return this.ready().sendRequest(Status.type);
  }

  async submitAndWait(spec: Pick<TaskSpec, 'kind' | 'payload' | 'requires'>, waitMs: number): Promise<Result | null> {
    const client = this.ready();
    const { taskId } = await client.sendRequest(SubmitTask.type, spec);
    return (await client.sendRequest(GetResult.type, { taskId, waitMs })).result;
  }

  dispose(): void {
    void this.stop();
    this.stateEmitter.dispose();
  }

  private ready(): LanguageClient {
    if (!this.client || !this.client.isRunning()) {
      throw new Error('the Peagen daemon is not running; run "Peagen: Restart Daemon"');
    }
    return this.client;
  }

  private bundledServer(): ServerOptions {
    const module = this.context.asAbsolutePath(path.join('dist', 'daemon.js'));
    const cwd = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? os.homedir();
    return { module, transport: TransportKind.ipc, options: { cwd } };
  }

  private socketServer(address: string): ServerOptions {
    return () =>
      new Promise((resolve, reject) => {
        const target = address.startsWith('unix:')
          ? { path: address.slice('unix:'.length) }
          : { host: address.replace(/^tcp:/, '').replace(/:\d+$/, ''), port: Number(address.split(':').pop()) };
        const socket = net.connect(target, () => resolve({ reader: socket, writer: socket }));
        socket.once('error', (error) => reject(new Error(`cannot reach the daemon at ${address}: ${error.message}`)));
      });
  }

  private async handshake(client: LanguageClient): Promise<void> {
    try {
      const reply = await client.sendRequest(Handshake.type, {
        protocolVersion: PROTOCOL_VERSION,
        client: `vscode ${vscode.version}`,
        ...this.tokenParam(),
      });
      this.running.clear();
      this.setState('running', `daemon ${reply.daemonVersion}, pid ${reply.pid}`);
    } catch (error) {
      this.setState('error', (error as Error).message);
      this.output.error(`handshake failed: ${(error as Error).message}`);
    }
  }

  /** The socket needs the daemon's token; a spawned daemon's pipe does not. */
  private tokenParam(): { token?: string } {
    const settings = vscode.workspace.getConfiguration('peagen');
    if (!settings.get<string>('daemon.address', '').trim()) return {};
    const home = process.env.PEAGEN_HOME ?? path.join(os.homedir(), '.peagen');
    const file = settings.get<string>('daemon.tokenFile', '').trim() || path.join(home, 'daemon.token');
    try {
      return { token: fs.readFileSync(file, 'utf8').trim() };
    } catch {
      this.output.warn(`no daemon token at ${file}; set peagen.daemon.tokenFile`);
      return {};
    }
  }

  private onClosed(): CloseHandlerResult {
    const now = Date.now();
    this.restarts = this.restarts.filter((at) => now - at < RESTART_WINDOW_MS);
    this.running.clear();
    if (this.restarts.length >= MAX_RESTARTS) {
      this.setState('error', `the daemon stopped ${MAX_RESTARTS + 1} times in 3 minutes; not restarting it again`);
      void vscode.window
        .showErrorMessage('The Peagen daemon keeps stopping. See the log for why.', 'Show Log', 'Restart Daemon')
        .then((choice) => {
          if (choice === 'Show Log') this.output.show();
          if (choice === 'Restart Daemon') void vscode.commands.executeCommand('peagen.restartDaemon');
        });
      return { action: CloseAction.DoNotRestart, handled: true };
    }
    this.restarts.push(now);
    this.setState('error', `the daemon stopped unexpectedly; restarting it (${this.restarts.length}/${MAX_RESTARTS})`);
    return { action: CloseAction.Restart, handled: true };
  }

  private setState(state: DaemonState, detail: string): void {
    const changed = state !== this.stateValue || detail !== this.detail;
    this.stateValue = state;
    this.detail = detail;
    if (changed) this.stateEmitter.fire(state);
  }
}
