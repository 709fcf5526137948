/**
 * The extension's link to the daemon: a vscode-languageclient client that connects to the
 * daemon socket named in `peagen.daemon.address`, else to the daemon already running for this
 * user (the one `peagen daemon start` or another window started, so the CLI and every window
 * share one queue), else spawns the bundled daemon over IPC, which opens the shared socket
 * for the others. Its state comes from the daemon's `peagen/serverStatus` messages; when the
 * daemon dies it is restarted (or reconnected), a bounded number of times.
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
import { isAlive } from '../shared/processes';
import { readLiveRecord, readToken, stateDir, TOKEN_FILE } from '../shared/discovery';
import { connectOptions, parseAddress } from '../shared/address';
import type { RequestType, RequestType0 } from 'vscode-languageserver-protocol';
import type { RunProgress } from '../shared/evolution';
import { GetResult, Handshake, PROTOCOL_VERSION, RunProgressUpdate, ServerStatus, Status, SubmitTask } from '../shared/protocol';
import type { Result, TaskSpec } from '../shared/task';

/** Restarts allowed within RESTART_WINDOW_MS before the extension gives up and says so. */
const MAX_RESTARTS = 4;
const RESTART_WINDOW_MS = 3 * 60_000;

/** The daemon connection's state, as the status bar and the extension's API show it. */
export type DaemonState = 'starting' | 'running' | 'busy' | 'error' | 'stopped';

export class DaemonConnection implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private stateValue: DaemonState = 'stopped';
  private detail = '';
  private serverStatus: ServerStatus.Params | undefined;
  /** Where the current client goes: a socket address, or undefined for the spawned daemon. */
  private target: { address: string; token: string | undefined } | undefined;
  private restarts: number[] = [];
  private spawnedPid: number | undefined;
  private retiredPid: number | undefined;
  private readonly stateEmitter = new vscode.EventEmitter<DaemonState>();
  readonly onDidChangeState = this.stateEmitter.event;
  private readonly progressEmitter = new vscode.EventEmitter<RunProgress>();
  /** Every evolution run's progress, from whichever client started it (the CLI included). */
  readonly onRunProgress = this.progressEmitter.event;
  private readonly serverStatusEmitter = new vscode.EventEmitter<ServerStatus.Params>();
  readonly onServerStatus = this.serverStatusEmitter.event;

  /**
   * @param environment variables for a daemon this window spawns (queue URL, secrets from
   *   SecretStorage): handed over in the child's environment, never written anywhere.
   */
  constructor(
    private readonly context: vscode.ExtensionContext,
    readonly output: vscode.LogOutputChannel,
    private readonly environment: () => Promise<Record<string, string>> = () => Promise.resolve({}),
  ) {}

  get state(): DaemonState {
    return this.stateValue;
  }

  /** Why the daemon is in its state, for tooltips (e.g. the last error). */
  get stateDetail(): string {
    return this.detail;
  }

  get runningTasks(): number {
    return this.serverStatus?.running ?? 0;
  }

  /** The last status the daemon pushed (queue depth, health), if any yet. */
  get lastServerStatus(): ServerStatus.Params | undefined {
    return this.serverStatus;
  }

  /** The daemon's own account of its health (warning: e.g. no isolating sandbox). */
  get health(): ServerStatus.Params['health'] | undefined {
    return this.serverStatus?.health;
  }

  /** Where the window's daemon is: its socket address, or "spawned by this window". */
  get where(): string {
    return this.target?.address ?? 'spawned by this window';
  }

  async start(): Promise<void> {
    if (this.client) return;
    this.setState('starting', '');
    this.target = this.findDaemon();
    if (this.target) {
      // Reach the socket first: the language client would report a refused connection as a
      // notification with a stack trace; the user needs one line saying which setting to fix.
      const unreachable = await reachable(this.target.address);
      if (unreachable && this.target.address === this.configuredAddress()) {
        const message = `cannot reach the daemon at ${this.target.address} (${unreachable}): check peagen.daemon.address (and peagen.daemon.tokenFile)`;
        this.setState('error', message);
        throw new Error(message);
      }
      // The daemon found running for this user went away meanwhile: start our own.
      if (unreachable) this.target = undefined;
    }
    const serverOptions = this.target ? this.socketServer(this.target.address) : this.bundledServer(await this.environment());
    const client = new LanguageClient('peagen', 'Peagen Daemon', serverOptions, {
      documentSelector: [],
      outputChannel: this.output,
      errorHandler: {
        error: (): ErrorHandlerResult => ({ action: ErrorAction.Continue }),
        // A replaced client (a restart while it was failing) must not restart or flip the state of its successor.
        closed: (): CloseHandlerResult => (this.client === client ? this.onClosed() : { action: CloseAction.DoNotRestart, handled: true }),
      },
    });
    this.client = client;
    client.onDidChangeState((event) => {
      if (this.client !== client) return; // a client being replaced
      if (event.newState === State.Running) void this.handshake(client);
      else if (event.newState === State.Stopped && this.stateValue !== 'error') this.setState('stopped', 'the daemon is not running');
    });
    client.onNotification(RunProgressUpdate.type, (progress) => {
      if (this.client === client) this.progressEmitter.fire(progress);
    });
    client.onNotification(ServerStatus.type, (status) => {
      this.serverStatus = status;
      this.serverStatusEmitter.fire(status);
      if (this.stateValue === 'running' || this.stateValue === 'busy') this.setState(status.quiescent ? 'running' : 'busy', status.message);
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
    // Our own daemon may take a moment to exit after this; never mistake it for a shared one.
    this.retiredPid = this.spawnedPid;
    this.spawnedPid = undefined;
    this.serverStatus = undefined;
    if (client) await client.stop(5_000).catch(() => {});
    // Until our daemon has exited it holds the state directory: a daemon started now would
    // serve this window alone and the CLI would lose the shared socket when the old one goes.
    for (const giveUpAt = Date.now() + 10_000; this.retiredPid !== undefined && isAlive(this.retiredPid) && Date.now() < giveUpAt; ) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    this.setState('stopped', 'stopped by request');
  }

  /** One restart at a time: overlapping ones (a setting and a secret changed together) would race for the daemon. */
  restart(): Promise<void> {
    const next = this.restarting.catch(() => {}).then(async () => {
      this.restarts = [];
      await this.stop();
      await this.start();
    });
    this.restarting = next;
    return next;
  }
  private restarting: Promise<void> = Promise.resolve();

  async status(): Promise<Status.Response> {
    return this.ready().sendRequest(Status.type);
  }

  /** A typed request (shared/protocol.ts); the token's cancellation reaches the daemon. */
  request<P, R>(type: RequestType<P, R, void>, params: P, token?: vscode.CancellationToken): Promise<R> {
    // The client's overloads want its own param wrapper type; the value is P as declared.
    const client = this.ready();
    return client.sendRequest(type, params as Parameters<typeof client.sendRequest<P, R, void>>[1], token);
  }

  request0<R>(type: RequestType0<R, void>, token?: vscode.CancellationToken): Promise<R> {
    return token ? this.ready().sendRequest(type, token) : this.ready().sendRequest(type);
  }

  get isRunning(): boolean {
    return this.client?.isRunning() ?? false;
  }

  async submitAndWait(spec: Pick<TaskSpec, 'kind' | 'payload' | 'requires'>, waitMs: number): Promise<Result | null> {
    const client = this.ready();
    const { taskId } = await client.sendRequest(SubmitTask.type, spec);
    return (await client.sendRequest(GetResult.type, { taskId, waitMs })).result;
  }

  dispose(): void {
    void this.stop();
    this.stateEmitter.dispose();
    this.progressEmitter.dispose();
    this.serverStatusEmitter.dispose();
  }

  private ready(): LanguageClient {
    if (!this.client || !this.client.isRunning()) {
      throw new Error('the Peagen daemon is not running; run "Peagen: Restart Daemon"');
    }
    return this.client;
  }

  private bundledServer(environment: Record<string, string>): ServerOptions {
    const module = this.context.asAbsolutePath(path.join('dist', 'daemon.js'));
    const cwd = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? os.homedir();
    return { module, transport: TransportKind.ipc, options: { cwd, env: { ...process.env, ...environment } } };
  }

  /**
   * The socket to use: the configured address (with its token file), else the daemon running
   * for this user, if any; undefined: spawn the bundled one.
   */
  private findDaemon(): { address: string; token: string | undefined } | undefined {
    const settings = vscode.workspace.getConfiguration('peagen');
    const home = stateDir();
    const configured = this.configuredAddress();
    if (configured) {
      const file = settings.get<string>('daemon.tokenFile', '').trim() || path.join(home, TOKEN_FILE);
      let token: string | undefined;
      try {
        token = fs.readFileSync(file, 'utf8').trim();
      } catch {
        this.output.warn(`no daemon token at ${file}; set peagen.daemon.tokenFile`);
      }
      return { address: configured, token };
    }
    const running = readLiveRecord(home);
    if (!running || running.pid === this.retiredPid) return undefined;
    this.output.info(`using the daemon already running for this user (pid ${running.pid}, ${running.address})`);
    return { address: running.address, token: readToken(home) };
  }

  private socketServer(address: string): ServerOptions {
    return () =>
      new Promise((resolve, reject) => {
        let options: net.NetConnectOpts;
        try {
          options = connectOptions(parseAddress(address));
        } catch (error) {
          reject(new Error(`peagen.daemon.address: ${(error as Error).message}`));
          return;
        }
        const socket = net.connect(options, () => resolve({ reader: socket, writer: socket }));
        socket.once('error', (error) => reject(new Error(`cannot reach the daemon at ${address}: ${error.message}`)));
      });
  }

  private async handshake(client: LanguageClient): Promise<void> {
    try {
      const reply = await client.sendRequest(Handshake.type, {
        protocolVersion: PROTOCOL_VERSION,
        client: `vscode ${vscode.version}`,
        ...(this.target?.token !== undefined && { token: this.target.token }),
      });
      this.spawnedPid = this.target ? undefined : reply.pid;
      const status = this.serverStatus;
      this.setState(status && !status.quiescent ? 'busy' : 'running', status?.message ?? `daemon ${reply.daemonVersion}, pid ${reply.pid}`);
    } catch (error) {
      this.output.error(`handshake failed: ${(error as Error).message}`);
      if (this.client !== client) return; // a replaced client's failure is not the current state
      this.setState('error', (error as Error).message);
    }
  }

  private onClosed(): CloseHandlerResult {
    const now = Date.now();
    this.restarts = this.restarts.filter((at) => now - at < RESTART_WINDOW_MS);
    this.serverStatus = undefined;
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
    if (!this.target || this.target.address === this.configuredAddress()) return { action: CloseAction.Restart, handled: true };
    // A shared daemon went away: look again (another may have taken over, or spawn our own).
    void this.reconnect();
    return { action: CloseAction.DoNotRestart, handled: true };
  }

  private async reconnect(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    await client?.dispose().catch(() => {});
    await this.start().catch((error: Error) => this.output.error(error.message));
  }

  private configuredAddress(): string {
    return vscode.workspace.getConfiguration('peagen').get<string>('daemon.address', '').trim();
  }

  private setState(state: DaemonState, detail: string): void {
    const changed = state !== this.stateValue || detail !== this.detail;
    this.stateValue = state;
    this.detail = detail;
    if (changed) this.stateEmitter.fire(state);
  }
}

/** Undefined when a connection to `address` opens (and is closed again at once), else why not. */
function reachable(address: string, timeoutMs = 3_000): Promise<string | undefined> {
  return new Promise((resolve) => {
    let options: net.NetConnectOpts;
    try {
      options = connectOptions(parseAddress(address));
    } catch (error) {
      resolve((error as Error).message);
      return;
    }
    const socket = net.connect(options);
    const done = (why: string | undefined): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(why);
    };
    const timer = setTimeout(() => done(`no answer within ${timeoutMs} ms`), timeoutMs);
    socket.once('connect', () => done(undefined));
    socket.once('error', (error: NodeJS.ErrnoException) => done(error.code ?? error.message));
  });
}
