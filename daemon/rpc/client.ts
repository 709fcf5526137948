/** The client side of the daemon socket, used by the CLI (and by tests). */
import * as net from 'node:net';
import {
  createProtocolConnection,
  type NotificationHandler,
  type ProtocolConnection,
  type RequestType,
  type RequestType0,
  SocketMessageReader,
} from 'vscode-languageserver-protocol/node';
import { Handshake, PROTOCOL_VERSION, RunProgressUpdate, TaskUpdate } from '../../shared/protocol';
import { connectOptions, parseAddress } from '../../shared/address';
import { BatchedSocketMessageWriter } from './batchedWriter';
import { readLiveRecord, readToken } from '../../shared/discovery';

export class DaemonUnavailableError extends Error {
  override name = 'DaemonUnavailableError';
}

export class DaemonClient {
  /** Rejects when the daemon closes the connection, so no request waits forever. */
  private readonly closed: Promise<never>;

  private constructor(
    private readonly connection: ProtocolConnection,
    private readonly socket: net.Socket,
    readonly address: string,
    readonly handshake: Handshake.Response,
  ) {
    this.closed = new Promise<never>((_, reject) =>
      socket.once('close', () => reject(new DaemonUnavailableError(`the daemon at ${address} closed the connection`))),
    );
    this.closed.catch(() => {});
  }

  static async connect(address: string, token: string | undefined, client = 'cli'): Promise<DaemonClient> {
    const socket = await new Promise<net.Socket>((resolve, reject) => {
      const candidate = net.connect(connectOptions(parseAddress(address)), () => resolve(candidate));
      candidate.once('error', (error) =>
        reject(new DaemonUnavailableError(`cannot reach the daemon at ${address} (${error.message}); start it with \`peagen daemon start\``)),
      );
    });
    const connection = createProtocolConnection(new SocketMessageReader(socket), new BatchedSocketMessageWriter(socket));
    connection.listen();
    try {
      const handshake = await connection.sendRequest(Handshake.type, {
        protocolVersion: PROTOCOL_VERSION,
        client,
        ...(token !== undefined && { token }),
      });
      return new DaemonClient(connection, socket, address, handshake);
    } catch (error) {
      connection.dispose();
      socket.destroy();
      throw error;
    }
  }

  /** Connects to the daemon recorded in the state directory, if one is running. */
  static async connectToRunning(stateDir: string, client = 'cli'): Promise<DaemonClient | undefined> {
    const record = readLiveRecord(stateDir);
    if (!record) return undefined;
    return DaemonClient.connect(record.address, readToken(stateDir), client);
  }

  request<R>(type: RequestType0<R, void>): Promise<R>;
  request<P, R>(type: RequestType<P, R, void>, params: P): Promise<R>;
  request<R>(type: { method: string }, params?: unknown): Promise<R> {
    const sent = params === undefined ? this.connection.sendRequest<R>(type.method) : this.connection.sendRequest<R>(type.method, params);
    return Promise.race([sent, this.closed]);
  }

  onTaskUpdate(handler: NotificationHandler<TaskUpdate.Params>): void {
    this.connection.onNotification(TaskUpdate.type, handler);
  }

  onRunProgress(handler: NotificationHandler<RunProgressUpdate.Params>): void {
    this.connection.onNotification(RunProgressUpdate.type, handler);
  }

  /** Resolves when the daemon closes the connection (or it breaks). */
  get closedSignal(): Promise<void> {
    return this.closed.catch(() => undefined);
  }

  close(): void {
    this.connection.dispose();
    this.socket.end();
  }
}
