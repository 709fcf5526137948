/**
 * A MessageReader that answers what JSON-RPC says must be answered and vscode-jsonrpc
 * only logs: unparseable bytes get a -32700 Parse error, a JSON value that is not a
 * JSON-RPC message gets -32600 Invalid Request. The connection then keeps serving.
 */
import type { DataCallback, Disposable, Event, Message, MessageReader, MessageWriter, PartialMessageInfo } from 'vscode-languageserver-protocol/node';

export class GuardedMessageReader implements MessageReader {
  constructor(
    private readonly inner: MessageReader,
    private readonly writer: MessageWriter,
  ) {}

  get onError(): Event<Error> {
    return this.inner.onError;
  }
  get onClose(): Event<void> {
    return this.inner.onClose;
  }
  get onPartialMessage(): Event<PartialMessageInfo> {
    return this.inner.onPartialMessage;
  }

  listen(callback: DataCallback): Disposable {
    const errors = this.inner.onError((error) => this.reject(null, -32700, `Parse error: ${error.message}`));
    const listening = this.inner.listen((message) => {
      const problem = invalidMessageProblem(message);
      if (problem === undefined) callback(message);
      else this.reject(idOf(message), -32600, `Invalid Request: ${problem}`);
    });
    return {
      dispose: () => {
        errors.dispose();
        listening.dispose();
      },
    };
  }

  dispose(): void {
    this.inner.dispose();
  }

  private reject(id: string | number | null, code: number, message: string): void {
    void this.writer.write({ jsonrpc: '2.0', id, error: { code, message } } as Message).catch(() => {});
  }
}

function idOf(message: unknown): string | number | null {
  const id = (message as { id?: unknown } | null)?.id;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

/** Why `message` is not a JSON-RPC 2.0 request, notification or response; undefined if it is. */
function invalidMessageProblem(message: unknown): string | undefined {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return 'not a JSON object';
  const candidate = message as Record<string, unknown>;
  if (candidate.jsonrpc !== '2.0') return 'missing "jsonrpc": "2.0"';
  if ('method' in candidate) {
    if (typeof candidate.method !== 'string' || candidate.method === '') return '"method" must be a non-empty string';
    if ('id' in candidate && !['string', 'number'].includes(typeof candidate.id) && candidate.id !== null) {
      return '"id" must be a string or a number';
    }
    if ('params' in candidate && (typeof candidate.params !== 'object' || candidate.params === null) && candidate.params !== undefined) {
      return '"params" must be an object or an array';
    }
    return undefined;
  }
  if ('id' in candidate && ('result' in candidate || 'error' in candidate)) return undefined;
  return 'neither a request, a notification nor a response';
}
