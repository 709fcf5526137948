/**
 * One SDK call under the LlmBackend rules, shared by both backends:
 *  - the backend's timeout bounds the WHOLE call, retries and retry-after waits included
 *    (each SDK's own timeout is per attempt, so a retried call could otherwise run for
 *    (maxRetries + 1) × timeout plus the waits);
 *  - the caller's signal aborts it;
 *  - whatever fails comes out as an LlmError with a stable code and a message that never
 *    carries the key, even when the server echoed it back.
 */
import { LlmError, type LlmErrorCode } from './LlmBackend';

/** The error classes both official SDKs export, under the same names and shapes. */
export interface SdkErrorClasses {
  APIError: abstract new (...args: never[]) => Error & { status?: number | undefined };
  APIUserAbortError: abstract new (...args: never[]) => Error;
  APIConnectionTimeoutError: abstract new (...args: never[]) => Error;
  APIConnectionError: abstract new (...args: never[]) => Error;
}

export interface SdkCallContext {
  backendName: string;
  /** Bounds the whole call, retries included. */
  timeoutMs: number;
  signal?: AbortSignal | undefined;
  /** Scrubbed from every message. */
  apiKey: string;
  /** The environment variable the key came from, named in auth errors. */
  keySource?: string | undefined;
  /** The server's address, named in the errors a user acts on (unreachable, key refused, no such model). */
  baseUrl?: string | undefined;
  errors: SdkErrorClasses;
}

/**
 * Runs `call` with a signal that fires at the deadline or when the caller aborts. Rejection
 * is guaranteed at the deadline even if the SDK were to miss the signal.
 */
export async function boundedSdkCall<T>(context: SdkCallContext, call: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const { signal: callerSignal, timeoutMs, backendName } = context;
  if (callerSignal?.aborted) throw new LlmError('aborted', `${backendName}: the call was aborted before it started`, false);
  const controller = new AbortController();
  let deadlineHit = false;
  let stop: (error: LlmError) => void = () => {};
  const stopped = new Promise<never>((_, reject) => {
    stop = reject;
  });
  const timer = setTimeout(() => {
    deadlineHit = true;
    controller.abort();
    stop(timeoutError(backendName, timeoutMs));
  }, timeoutMs);
  const onCallerAbort = (): void => {
    controller.abort();
    stop(new LlmError('aborted', `${backendName}: the call was aborted`, false));
  };
  callerSignal?.addEventListener('abort', onCallerAbort, { once: true });
  try {
    return await Promise.race([call(controller.signal), stopped]);
  } catch (error) {
    if (error instanceof LlmError) throw error;
    if (deadlineHit) throw timeoutError(backendName, timeoutMs);
    if (callerSignal?.aborted) throw new LlmError('aborted', `${backendName}: the call was aborted`, false);
    throw toLlmError(error, context);
  } finally {
    clearTimeout(timer);
    callerSignal?.removeEventListener('abort', onCallerAbort);
    // The race may have settled first: keep the loser's rejection from going unhandled.
    stopped.catch(() => {});
  }
}

function timeoutError(backendName: string, timeoutMs: number): LlmError {
  return new LlmError('timeout', `${backendName}: no answer within ${timeoutMs} ms (retries included)`, true);
}

/** Maps any error an SDK call throws to an LlmError; the message is scrubbed of the key. */
export function toLlmError(error: unknown, context: SdkCallContext): LlmError {
  const { backendName, errors } = context;
  const scrub = (text: string): string => redactSecrets(text, context.apiKey);
  if (error instanceof LlmError) return error;
  if (error instanceof errors.APIUserAbortError) return new LlmError('aborted', `${backendName}: the call was aborted`, false);
  if (error instanceof errors.APIConnectionTimeoutError) return timeoutError(backendName, context.timeoutMs);
  if (error instanceof errors.APIConnectionError) {
    const cause = (error as { cause?: unknown }).cause;
    const detail = cause instanceof Error ? `: ${cause.message}` : '';
    return new LlmError('connection', scrub(`${backendName}: cannot reach the server${at(context)}${detail}`), true);
  }
  if (error instanceof errors.APIError && typeof error.status === 'number') {
    const status = error.status;
    const code = codeForStatus(status);
    if (code === 'auth') {
      // The server's own message may quote the key (OpenAI quotes part of it): leave it out.
      const where = context.keySource ? `; check the key in ${context.keySource}` : '';
      return new LlmError('auth', `${backendName}: the server${at(context)} refused the key (HTTP ${status})${where}`, false);
    }
    if (status === 404) {
      // A wrong model name (or a base URL without /v1): the same answer every time.
      return new LlmError('not_found', scrub(`${backendName}: the server${at(context)} answered 404 (no such model or path): ${error.message}`), false);
    }
    return new LlmError(code, scrub(`${backendName}: ${error.message}`), code === 'rate_limited' || code === 'server' || code === 'timeout');
  }
  const message = error instanceof Error ? error.message : String(error);
  return new LlmError('bad_request', scrub(`${backendName}: ${message}`), false);
}

function at(context: SdkCallContext): string {
  return context.baseUrl ? ` at ${context.baseUrl}` : '';
}

export function codeForStatus(status: number): LlmErrorCode {
  if (status === 401 || status === 402 || status === 403) return 'auth';
  if (status === 429) return 'rate_limited';
  if (status === 408) return 'timeout';
  if (status >= 500) return 'server';
  return 'bad_request';
}

/**
 * Removes the key (and anything shaped like a provider key) from text meant for logs.
 * Exported for the callers that build their own messages around a backend's.
 */
export function redactSecrets(text: string, apiKey?: string): string {
  let out = text;
  if (apiKey && apiKey.length >= 4) out = out.split(apiKey).join('[redacted]');
  return out.replace(/\b(sk|sk-ant|sk-proj)-[A-Za-z0-9_*-]{6,}/g, '[redacted]');
}
