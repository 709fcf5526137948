/**
 * What every prepared sandbox does the same way, whatever makes it (bwrap, docker): it runs
 * one task only; a request it was not made for (other mounts or built-in limits, see
 * preparedShape.ts), or one arriving after the sandbox died while waiting, runs cold instead
 * and the prepared one is released unused; whatever happens, it is released afterwards.
 */
import type { ExecutionRequest, ExecutionResult, ExecutorName, PreparedSandbox } from '../Executor';
import { misfit, type PreparedShape } from './preparedShape';

export abstract class SingleUseSandbox implements PreparedSandbox {
  abstract readonly executor: ExecutorName;
  protected abstract readonly shape: PreparedShape;
  private state: 'ready' | 'used' | 'discarded' = 'ready';

  /** Whether the waiting sandbox ended by itself (killed, OOM) before its task came. */
  protected abstract ended(): boolean;
  /** Runs the task in this sandbox. */
  protected abstract runWarm(request: ExecutionRequest): Promise<ExecutionResult>;
  /** Runs the task in a fresh sandbox of the executor, made now. */
  protected abstract runCold(request: ExecutionRequest): Promise<ExecutionResult>;
  /** Destroys the sandbox; idempotent. */
  protected abstract release(): Promise<void>;

  async run(request: ExecutionRequest): Promise<ExecutionResult & { warm: boolean }> {
    if (this.state !== 'ready') throw new Error(`a prepared sandbox runs one task only (this one is ${this.state})`);
    this.state = 'used';
    if (!request.command[0]) {
      await this.release();
      throw new Error('the command is empty');
    }
    if (this.ended() || misfit(this.shape, request) !== undefined) {
      await this.release();
      return { ...(await this.runCold(request)), warm: false };
    }
    try {
      return { ...(await this.runWarm(request)), warm: true };
    } finally {
      await this.release();
    }
  }

  async discard(): Promise<void> {
    if (this.state === 'ready') this.state = 'discarded';
    await this.release();
  }
}
