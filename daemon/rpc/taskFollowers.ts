/**
 * Routes the engine's task updates to the connections that follow each task (the one that
 * submitted it), with one engine listener however many clients are connected. A client pays
 * nothing for tasks it did not submit: before, every update went to every connection.
 */
import type { TaskUpdate } from '../../shared/protocol';
import type { TaskState } from '../../shared/task';
import type { Engine } from '../engine/Engine';

export type TaskFollower = (update: TaskUpdate.Params) => void;

/** After these a task sends no more updates (a dead letter retried is a new submission's business). */
const FINAL_STATES: ReadonlySet<TaskState> = new Set(['done', 'dead', 'cancelled']);

export class TaskFollowers {
  private static readonly routers = new WeakMap<Engine, TaskFollowers>();
  private readonly byTask = new Map<string, Set<TaskFollower>>();
  private readonly byFollower = new Map<TaskFollower, Set<string>>();

  /** One router per engine, however many connections follow tasks. */
  static of(engine: Engine): TaskFollowers {
    let router = TaskFollowers.routers.get(engine);
    if (!router) TaskFollowers.routers.set(engine, (router = new TaskFollowers(engine)));
    return router;
  }

  private constructor(engine: Engine) {
    engine.on('update', (update) => this.route(update));
  }

  /** `follower` receives the task's updates until its final state or until {@link forget}. */
  follow(taskId: string, follower: TaskFollower): void {
    let followers = this.byTask.get(taskId);
    if (!followers) this.byTask.set(taskId, (followers = new Set()));
    followers.add(follower);
    let tasks = this.byFollower.get(follower);
    if (!tasks) this.byFollower.set(follower, (tasks = new Set()));
    tasks.add(taskId);
  }

  unfollow(taskId: string, follower: TaskFollower): void {
    const followers = this.byTask.get(taskId);
    if (followers?.delete(follower) && followers.size === 0) this.byTask.delete(taskId);
    const tasks = this.byFollower.get(follower);
    if (tasks?.delete(taskId) && tasks.size === 0) this.byFollower.delete(follower);
  }

  /** Stops every follow of `follower` (its connection closed). */
  forget(follower: TaskFollower): void {
    for (const taskId of this.byFollower.get(follower) ?? []) {
      const followers = this.byTask.get(taskId);
      if (followers?.delete(follower) && followers.size === 0) this.byTask.delete(taskId);
    }
    this.byFollower.delete(follower);
  }

  /** Tasks followed by anyone (for tests and diagnostics). */
  get size(): number {
    return this.byTask.size;
  }

  private route(update: TaskUpdate.Params): void {
    const followers = this.byTask.get(update.taskId);
    if (!followers) return;
    const final = FINAL_STATES.has(update.state);
    for (const follower of [...followers]) {
      if (final) this.unfollow(update.taskId, follower);
      follower(update);
    }
  }
}
