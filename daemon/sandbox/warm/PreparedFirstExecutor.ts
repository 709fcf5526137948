/**
 * An Executor that runs its first task in a sandbox prepared ahead, and every other one cold:
 * what a warm spawner's one-shot child hands its handlers. The child prepares a sandbox
 * (`inner.prepare(...)`) while it waits for its claim, then wraps:
 *
 *   const prepared = await executor.prepare({ mountPoints: ['/harness', HARNESS_LIBRARY_PATH] });
 *   // ... claim a task ...
 *   const sandboxes = new PreparedFirstExecutor(executor, prepared);
 *   await handler.run(task, { executor: sandboxes });
 *   sandboxes.warmRuns; // 1 when the task fitted the prepared sandbox
 *
 * The first run() goes to the prepared sandbox, which runs it cold itself when the request
 * does not fit (other mount points or built-in limits; see warm/preparedShape.ts). Results
 * are exactly an ExecutionResult (no `warm` field): {@link warmRuns} counts the hits.
 * close() discards the prepared sandbox if no run took it, then closes `inner`.
 */
import type { Availability, ExecutionRequest, ExecutionResult, Executor, PreparedSandbox, PrepareOptions } from '../Executor';

export class PreparedFirstExecutor implements Executor {
  readonly name: Executor['name'];
  readonly isolates: boolean;
  private unused: PreparedSandbox | undefined;
  private warm = 0;
  private cold = 0;

  constructor(
    private readonly inner: Executor,
    prepared: PreparedSandbox,
  ) {
    if (prepared.executor !== inner.name) throw new Error(`a ${prepared.executor} sandbox cannot serve the ${inner.name} executor`);
    this.name = inner.name;
    this.isolates = inner.isolates;
    this.unused = prepared;
  }

  /** Runs that started in the prepared sandbox (0 or 1). */
  get warmRuns(): number {
    return this.warm;
  }

  /** Runs made cold: every run after the first, and a first one that did not fit. */
  get coldRuns(): number {
    return this.cold;
  }

  available(): Promise<Availability> {
    return this.inner.available();
  }

  async run(request: ExecutionRequest): Promise<ExecutionResult> {
    const prepared = this.unused;
    this.unused = undefined;
    if (!prepared) {
      this.cold += 1;
      return this.inner.run(request);
    }
    const { warm, ...result } = await prepared.run(request);
    if (warm) this.warm += 1;
    else this.cold += 1;
    return result;
  }

  prepare(options?: PrepareOptions): Promise<PreparedSandbox> {
    return this.inner.prepare(options);
  }

  reclaim(owner: string): Promise<void> {
    return this.inner.reclaim(owner);
  }

  async close(): Promise<void> {
    const prepared = this.unused;
    this.unused = undefined;
    await prepared?.discard();
    await this.inner.close();
  }
}
