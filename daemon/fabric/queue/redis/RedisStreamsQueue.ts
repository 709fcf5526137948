/**
 * The Redis Streams adapter: the task fabric shared by every host that reaches one Redis
 * (7.0 or newer), a single node or a Redis Cluster (`redis+cluster://`). It keeps the promises
 * of TaskQueue (test/conformance/taskQueue.ts).
 *
 * Key scheme. PREFIX is `{NAME}`, NAME being `peagen` unless the URL says `?prefix=NAME`: the
 * braces make NAME the hash tag of every key, so that on a cluster a workspace's keys all live
 * in one hash slot (on one node) and each script can change several of them atomically. Other
 * parts of Peagen and the cluster's autoscaler depend on it. (Before the tag, keys started with
 * `NAME:`; tasks queued under those names by an older version are not read.)
 *
 *   PREFIX:tasks:<kind>:<caps>  one stream per requirement set (requirementSetKey(kind, requires),
 *                               e.g. {peagen}:tasks:echo:cpu,gpu), consumer group `peagen`. Each
 *                               entry is `id <taskId>`; an entry leaves the stream (XACK + XDEL)
 *                               when its delivery ends, so XLEN = tasks waiting or running in it
 *                               (what a KEDA ScaledObject scales on). The group's pending list
 *                               (XPENDING) holds the running ones; a lease is the entry's idle
 *                               time, renewed by XCLAIM and reclaimed with XAUTOCLAIM.
 *   PREFIX:streams              set of those stream keys. A listed key that holds something else
 *                               (another program wrote it) is skipped by every script and named
 *                               by stats() with the command that deletes it (./badKey.ts).
 *   PREFIX:task:<id>            hash: the task JSON as enqueued, kind, stream, state (pending,
 *                               inflight, delayed, done, cancelled, dead), attempts, entry (the
 *                               live delivery = the lease id), consumer, cancel (reason),
 *                               deadEntry. Expires with the result once the task is finished.
 *   PREFIX:delayed              sorted set: tasks waiting for a retry back-off, by due time.
 *   PREFIX:result:<id>          the Result JSON, with a TTL (resultTtlMs, 7 days by default).
 *   PREFIX:dead                 dead-letter stream (id, kind, stream, task, attempts, reason,
 *                               failedAt), capped by MAXLEN (deadLetterMaxLen).
 *   PREFIX:events               pub/sub channel: TaskEvent JSON, published by the scripts (on a
 *                               cluster a PUBLISH reaches the subscribers of every node).
 *                               A task's finishing state event (done, cancelled, dead) also
 *                               carries `result`: the Result JSON as text when it is at most
 *                               64 KiB, so that waiters need no GET (the adapter hands listeners
 *                               the event without it). Per task: queued, running, then one of
 *                               done/cancelled/dead (retrying/queued again on failures).
 *   PREFIX:workers              hash worker id -> WorkerRecord JSON, and
 *   PREFIX:workers:lapse        sorted set worker id -> lapse time: the cluster directory.
 *
 * Every multi-step change is one Lua script in ./lua (see ./scripts.ts), which declares the keys
 * its caller can name (./lua/common.lua says which, and why the others are safe). Times that decide
 * ownership (leases, back-offs, lapses) are read from the Redis server's clock.
 *
 * Round trips per task, which bound throughput (bench/README.md, bench:queue): the claims of one
 * instance with the same acceptors wait in one line (./ClaimDispatcher.ts): one blocking XREAD
 * for all of them and one claim script call leasing a task to each waiting consumer, instead of
 * every idle slot waking on every entry. The acks of one event-loop turn (the tasks of one
 * claim batch, typically) go as one ack script call (./CallCoalescer.ts). A waiter is answered
 * by the result on the finishing event, and a task this instance enqueued on a live
 * subscription is not read first (see waitForResult).
 */
import { EventEmitter } from 'node:events';
import type { DeadLetter, QueueStats, RequirementSetDepth, WorkerRecord } from '../../../../shared/task';
import { CapabilitySchema, parseTask, type Result, TASK_LOST, type Task, type TaskError } from '../../../../shared/task';
import {
  type Acceptor,
  type AckedWithNext,
  type Claim,
  type ClaimOptions,
  DEFAULT_QUEUE_OPTIONS,
  DuplicateTaskError,
  type FailOutcome,
  MAX_TASK_BYTES,
  type NextClaim,
  type QueueOptions,
  requirementSetKey,
  type TaskEvent,
  type TaskEventListener,
  type TaskQueue,
  taskRecord,
} from '../TaskQueue';
import { waitForEvent } from '../waitForEvent';
import { badKeyProblem, deleteKeyCommand, QueueKeyError } from './badKey';
import { BlockingConnections } from './BlockingConnections';
import { CallCoalescer } from './CallCoalescer';
import { type ClaimBatch, ClaimDispatcher, type ClaimPort, type LeasedEntry } from './ClaimDispatcher';
import type { RedisOptions } from 'ioredis';
import { connectBounded, DEFAULT_CONNECT_TIMEOUT_MS, openConnection, type RedisConnection } from './connect';
import { parseRedisAddress, type RedisAddress } from '../../../../shared/redisAddress';
import { defineQueueScripts, runScript, type ScriptName } from './scripts';

export interface RedisQueueOptions extends QueueOptions {
  /** How long results (and finished tasks' records) are kept. */
  resultTtlMs?: number;
  /** Dead letters kept (MAXLEN of the dead-letter stream). */
  deadLetterMaxLen?: number;
  /** Bound on the first connect. */
  connectTimeoutMs?: number;
  /** Where PEAGEN_REDIS_PASSWORD is read (tests pass their own). */
  env?: NodeJS.ProcessEnv;
}

export const DEFAULT_RESULT_TTL_MS = 7 * 24 * 60 * 60 * 1000;
export const DEFAULT_DEAD_LETTER_MAX_LEN = 10_000;
/** Longest single blocking read: new streams and expired leases are noticed this often. */
export const MAX_BLOCK_MS = 1_000;
const MAX_REASON_LENGTH = 300;
/** Tasks remembered as enqueued here and unfinished (see unfinishedHere). */
const MAX_UNFINISHED_HERE = 10_000;
/** waitForResult skips its first read only for waits at least this long (see there). */
const SKIP_FIRST_READ_MIN_WAIT_MS = 1_000;
const RECHECK_AFTER_RECONNECT_MS = 1_000;
const RECHECK_BATCH = 500;
/**
 * While anyone waits for a result, the stored results are read this often whatever was heard:
 * a wake-up lost on the way (a notification published while the event connection was down or
 * not yet subscribed again) then costs a waiter seconds, not the rest of its wait.
 */
export const RESULT_SWEEP_MS = 5_000;
/** Idle blocking connections kept per queue (a worker pool has one claim per slot). */
const MAX_IDLE_BLOCKING_CONNECTIONS = 64;
const GROUP = 'peagen';

/** The claim script's answer: k, then k × (entryId, taskJson, attempts, taskId), then maybe wakeInMs and streams. */
type ClaimReply = (string | number)[];

function parseClaimReply(reply: ClaimReply, sentAt: number): ClaimBatch {
  const count = Number(reply[0]);
  const leased: LeasedEntry[] = [];
  for (let index = 1; index < 1 + 4 * count; index += 4) {
    leased.push({ entryId: String(reply[index]), taskJson: String(reply[index + 1]), attempts: Number(reply[index + 2]), taskId: String(reply[index + 3]) });
  }
  const tail = 1 + 4 * count;
  if (reply.length <= tail) return { leased, sentAt };
  return { leased, sentAt, idle: { wakeInMs: Number(reply[tail]), streamsAndIds: reply.slice(tail + 1).map(String) } };
}

/** ioredis's messages for a server it cannot reach. */
const LOST_CONNECTION = /max retries per request|Connection is closed|connection lost|ECONNREFUSED|ECONNRESET|Stream isn't writeable/i;

export class RedisStreamsQueue implements TaskQueue {
  readonly backend = 'redis';
  readonly url: string;
  /** What every key of this queue starts with: `{NAME}` (see the key scheme above). */
  readonly prefix: string;

  private readonly options: Required<QueueOptions> & { resultTtlMs: number; deadLetterMaxLen: number; connectTimeoutMs: number };
  private readonly address: RedisAddress;
  private readonly commands: RedisConnection;
  private readonly subscriber: RedisConnection;
  private readonly blocking: BlockingConnections;
  /**
   * The acks of one event-loop turn go to Redis as one script call (see CallCoalescer): one
   * line per acceptor set of the slots that ask for their next task with the ack, '' for acks
   * that ask for nothing.
   */
  private readonly ackLines = new Map<string, CallCoalescer<AckCall, AckAnswer>>();
  /** The claims waiting here, one line per acceptor set (see ClaimDispatcher). */
  private readonly dispatchers = new Map<string, ClaimDispatcher>();
  private readonly listeners = new Set<TaskEventListener>();
  /** Result waiters by task id; woken by a finishing state event, re-checked after a reconnect. */
  private readonly waiters = new Map<string, Set<(result: Result) => void>>();
  private readonly lifecycle = new EventEmitter();
  private readying: Promise<void> | undefined;
  private lastSweepAt = 0;
  private recheckTimer: NodeJS.Timeout | undefined;
  private resultSweepTimer: NodeJS.Timeout | undefined;
  /** Whether the event channel was subscribed once: from then on every reconnect subscribes again. */
  private subscribed = false;
  /** Whether the event channel is subscribed now; `subscription` counts its interruptions. */
  private listening = false;
  private subscription = 0;
  /**
   * Tasks this instance enqueued while listening, whose finishing event has not been heard,
   * with the subscription they were enqueued under. For them waitForResult skips its first
   * read (see there). Bounded: the oldest are forgotten (and are read as before).
   */
  private readonly unfinishedHere = new Map<string, number>();
  private closed = false;

  constructor(url: string, options: RedisQueueOptions = {}) {
    this.address = parseRedisAddress(url, options.env);
    this.url = this.address.url;
    this.prefix = this.address.keyPrefix;
    this.options = {
      leaseMs: options.leaseMs ?? DEFAULT_QUEUE_OPTIONS.leaseMs,
      maxAttempts: options.maxAttempts ?? DEFAULT_QUEUE_OPTIONS.maxAttempts,
      retryBaseMs: options.retryBaseMs ?? DEFAULT_QUEUE_OPTIONS.retryBaseMs,
      resultTtlMs: options.resultTtlMs ?? DEFAULT_RESULT_TTL_MS,
      deadLetterMaxLen: options.deadLetterMaxLen ?? DEFAULT_DEAD_LETTER_MAX_LEN,
      connectTimeoutMs: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    };
    // On one node each command is written as it is made, not auto-pipelined (held to the end
    // of the tick): Redis then runs the first while this process still makes the next. Held
    // back and sent together, a tick's commands left Redis idle while this process worked, then
    // the other way round (bench:queue, same runs: 1.2-1.4x the tasks/s with 8 jobs in flight,
    // 1.6-1.75x with a backlog). Where one round trip for many pays, calls are coalesced on purpose:
    // claims (ClaimDispatcher) and acks (CallCoalescer). A cluster keeps auto-pipelining: its
    // client refuses a command for a node whose connection is still being made ("Connection is
    // closed", with the offline queue off) unless the command rides in a pipeline.
    this.commands = this.newConnection('peagen-queue', { enableAutoPipelining: this.address.cluster !== undefined });
    defineQueueScripts(this.commands);
    this.subscriber = this.newConnection('peagen-events');
    this.subscriber.on('message', (_channel: string, message: string) => this.onMessage(message));
    // After either connection comes back, a result may have been missed: published while the
    // channel was not subscribed, or heard while its read could not be sent. Look again, and
    // once more after the channel is subscribed again.
    this.subscriber.on('close', () => {
      this.listening = false;
      this.subscription++;
    });
    this.subscriber.on('ready', () => {
      this.recheckAfterReconnect();
      this.subscribeAgain();
    });
    this.commands.on('ready', () => this.recheckAfterReconnect());
    this.blocking = new BlockingConnections(async () => {
      const connection = this.newConnection('peagen-claim');
      await connectBounded(connection, this.url, this.options.connectTimeoutMs);
      return connection;
    }, MAX_IDLE_BLOCKING_CONNECTIONS);
    this.lifecycle.setMaxListeners(0);
  }

  /** Keys of this queue, for tests and operators (see the key scheme above). */
  keys = {
    stream: (kind: string, requires: readonly string[]): string => `${this.prefix}:tasks:${requirementSetKey(kind, requires)}`,
    streams: (): string => `${this.prefix}:streams`,
    task: (taskId: string): string => `${this.prefix}:task:${taskId}`,
    result: (taskId: string): string => `${this.prefix}:result:${taskId}`,
    delayed: (): string => `${this.prefix}:delayed`,
    dead: (): string => `${this.prefix}:dead`,
    events: (): string => `${this.prefix}:events`,
    workers: (): string => `${this.prefix}:workers`,
    workersLapse: (): string => `${this.prefix}:workers:lapse`,
  };

  /** KEYS of a script about one task: its record, its result, and its stream when known. */
  private taskKeys(taskId: string, stream?: string): string[] {
    return [this.keys.task(taskId), this.keys.result(taskId), ...(stream ? [stream] : [])];
  }

  /** KEYS of a script about a claim's delivery. */
  private deliveryKeys(claim: Claim): string[] {
    return this.taskKeys(claim.task.id, this.keys.stream(claim.task.kind, claim.task.requires));
  }

  async enqueue(task: Task): Promise<void> {
    this.assertOpen();
    for (const cap of task.requires) {
      if (!CapabilitySchema.safeParse(cap).success) throw new Error(`task ${task.id} requires "${cap}", which is not a capability tag (lower-case letters, digits, . _ -)`);
    }
    const record = taskRecord(task);
    await this.ready();
    // Noted before the script is sent: its finishing event may be heard before the reply is.
    // On a cluster the event connection may be replaced without a word (ioredis moves its
    // subscription to another node), so its results are always read first there.
    const noted = this.listening && !this.address.cluster;
    if (noted) {
      if (this.unfinishedHere.size >= MAX_UNFINISHED_HERE) this.unfinishedHere.delete(this.unfinishedHere.keys().next().value!);
      this.unfinishedHere.set(task.id, this.subscription);
    }
    const stream = this.keys.stream(task.kind, task.requires);
    let where: string;
    try {
      where = (await this.run('enqueue', [task.id, record, task.kind, stream, task.attempts], this.taskKeys(task.id, stream))) as string;
    } catch (error) {
      if (noted) this.unfinishedHere.delete(task.id);
      throw error;
    }
    if (where) {
      if (noted) this.unfinishedHere.delete(task.id);
      throw new DuplicateTaskError(task.id, where);
    }
  }

  async claim(options: ClaimOptions): Promise<Claim | null> {
    try {
      return await this.claimOrWait(options);
    } catch (error) {
      // Closing or stopping cuts connections under a claim: that is "nothing", not a failure.
      if (this.closed || options.signal?.aborted) return null;
      throw this.explainUnreachable(error, ': retrying until it is back; tasks it lost are submitted again');
    }
  }

  /**
   * ioredis's own words for a lost server ("Reached the max retries per request limit",
   * "Connection is closed") said as what they mean, naming the server and what happens next.
   */
  private explainUnreachable(error: unknown, next = ''): unknown {
    const message = error instanceof Error ? error.message : String(error);
    if (message.startsWith('Redis at ')) return next && !message.endsWith(next) ? new Error(`${message}${next}`) : error;
    if (!LOST_CONNECTION.test(message)) return error;
    return new Error(`Redis at ${this.url} is unreachable (${message.replace(/\. Refer to .*$/, '')})${next}`);
  }

  private async claimOrWait(options: ClaimOptions): Promise<Claim | null> {
    if (this.closed) return null;
    await this.ready();
    const acceptors = acceptorsJson(options.accepts);
    let dispatcher = this.dispatchers.get(acceptors);
    if (!dispatcher) {
      const created = new ClaimDispatcher(this.claimPort(acceptors), MAX_BLOCK_MS, () => {
        if (created.idle && this.dispatchers.get(acceptors) === created) this.dispatchers.delete(acceptors);
      });
      this.dispatchers.set(acceptors, (dispatcher = created));
    }
    return dispatcher.claim(options.consumer, options.blockMs, options.signal);
  }

  /** How the claims of one acceptor set reach Redis (see ClaimDispatcher). */
  private claimPort(acceptors: string): ClaimPort {
    return {
      claimBatch: async (consumers) => {
        const sentAt = Date.now();
        const [first, ...others] = consumers;
        const reply = (await this.run('claim', [first!, acceptors, this.sweepDue(sentAt) ? '1' : '0', MAX_TASK_BYTES, ...others])) as ClaimReply;
        return parseClaimReply(reply, sentAt);
      },
      toClaim: (entry, consumer, sentAt) => this.toClaim(entry, consumer, sentAt),
      bury: (entry, reason) => this.buryLeased(entry, reason),
      waitForEntry: (streamsAndIds, waitMs, signal) => this.waitForEntry(streamsAndIds, waitMs, signal),
      isClosed: () => this.closed,
    };
  }

  /**
   * Whether a call leasing tasks should sweep expired leases first. A claim that finds nothing
   * new sweeps anyway; this makes some call sweep at least every quarter lease, so a busy queue
   * (whose slots lease their next task with each ack) still redelivers a dead worker's tasks.
   */
  private sweepDue(sentAt: number): boolean {
    if (sentAt - this.lastSweepAt < Math.max(50, this.options.leaseMs / 4)) return false;
    this.lastSweepAt = sentAt;
    return true;
  }

  /** Dead-letters a leased entry that holds no valid task. */
  private async buryLeased(entry: LeasedEntry, reason: string): Promise<void> {
    // The task's stream is not declared: what its record holds may not even parse (fail.lua).
    await this.run('fail', [entry.taskId, entry.entryId, '0', shortReason(reason)], this.taskKeys(entry.taskId));
  }

  async extendLease(claim: Claim): Promise<boolean> {
    if (this.closed) return false;
    const sentAt = Date.now();
    const extended = (await this.run('extend', [claim.task.id, claim.leaseId], this.deliveryKeys(claim))) === 1;
    if (extended) claim.leaseUntil = sentAt + this.options.leaseMs;
    return extended;
  }

  async ack(claim: Claim, result: Result): Promise<boolean> {
    return (await this.settle(claim, result, '')).acked;
  }

  async ackAndClaimNext(claim: Claim, result: Result, next: NextClaim): Promise<AckedWithNext> {
    const acceptors = next.accepts.length > 0 ? acceptorsJson(next.accepts) : '';
    const answer = await this.settle(claim, result, acceptors, acceptors ? next.consumer : undefined);
    if (!answer.leased) return { acked: answer.acked, next: null };
    const leased = this.toClaim(answer.leased, next.consumer, answer.sentAt);
    if ('invalid' in leased) {
      // The ack stands whatever happens here: a bury that fails leaves a lease that expires.
      await this.buryLeased(answer.leased, leased.invalid).catch(() => undefined);
      return { acked: answer.acked, next: null };
    }
    return { acked: answer.acked, next: leased };
  }

  /** Acks a delivery in the ack line of `acceptors`, asking for `consumer`'s next task when given. */
  private settle(claim: Claim, result: Result, acceptors: string, consumer?: string): Promise<AckAnswer> {
    this.assertOpen();
    const cancelled = result.status === 'skip' && result.error?.code === 'cancelled';
    let line = this.ackLines.get(acceptors);
    if (!line) this.ackLines.set(acceptors, (line = new CallCoalescer((calls) => this.ackBatch(acceptors, calls), weighCall, MAX_BATCH_BYTES)));
    return line.call({
      keys: this.deliveryKeys(claim),
      args: [claim.task.id, claim.leaseId, JSON.stringify(result), cancelled ? 'cancelled' : 'done', cancelled ? shortReason(result.error?.message ?? '') : ''],
      ...(consumer !== undefined && { next: consumer }),
    });
  }

  /** One ack script call for the acks of a turn, leasing the next task to those that ask. */
  private async ackBatch(acceptors: string, calls: AckCall[]): Promise<AckAnswer[]> {
    const asking = calls.flatMap((call) => (call.next !== undefined ? [call.next] : []));
    const sentAt = Date.now();
    const sweep = asking.length > 0 && this.sweepDue(sentAt);
    const [acked, leasedReply] = (await this.run(
      'ack',
      [acceptors, MAX_TASK_BYTES, sweep ? '1' : '0', asking.length, ...asking, ...calls.flatMap((call) => call.args)],
      calls.flatMap((call) => call.keys),
    )) as [number[], ClaimReply];
    // The k-th slot that asked got the k-th task leased, while there were any.
    const { leased } = parseClaimReply(leasedReply, sentAt);
    let asked = 0;
    return calls.map((call, index) => {
      const entry = call.next !== undefined ? leased[asked++] : undefined;
      return { acked: acked[index] === 1, sentAt, ...(entry && { leased: entry }) };
    });
  }

  async fail(claim: Claim, error: TaskError): Promise<FailOutcome> {
    this.assertOpen();
    return (await this.run(
      'fail',
      [claim.task.id, claim.leaseId, error.retryable ? '1' : '0', shortReason(`${error.code}: ${error.message}`)],
      this.deliveryKeys(claim),
    )) as FailOutcome;
  }

  async release(claim: Claim): Promise<boolean> {
    this.assertOpen();
    return (await this.run('release', [claim.task.id, claim.leaseId], this.deliveryKeys(claim))) === 1;
  }

  async reclaimExpired(): Promise<number> {
    this.assertOpen();
    return Number(await this.run('reclaim', []));
  }

  async getResult(taskId: string): Promise<Result | null> {
    this.assertOpen();
    await this.ready();
    return this.readResult(taskId);
  }

  async knows(taskId: string): Promise<boolean> {
    this.assertOpen();
    await this.ready();
    // The task's record lives from enqueue until its result expires, as the result does.
    return (await this.commands.exists(this.keys.task(taskId), this.keys.result(taskId))) > 0;
  }

  async waitForResult(taskId: string, timeoutMs: number, signal?: AbortSignal): Promise<Result | null> {
    if (this.closed) return null;
    await this.ready();
    return new Promise((resolve) => {
      let settled = false;
      const finish = (result: Result | null): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        const set = this.waiters.get(taskId);
        set?.delete(onResult);
        if (set?.size === 0) this.waiters.delete(taskId);
        this.lifecycle.off('closed', onClosed);
        signal?.removeEventListener('abort', onClosed);
        resolve(result);
      };
      const onResult = (result: Result): void => finish(result);
      const onClosed = (): void => finish(null);
      let timer: NodeJS.Timeout | undefined;
      // Registered before the first read, so a result published in between is not missed.
      let set = this.waiters.get(taskId);
      if (!set) this.waiters.set(taskId, (set = new Set()));
      set.add(onResult);
      this.sweepResultsWhileWaited();
      this.lifecycle.once('closed', onClosed);
      signal?.addEventListener('abort', onClosed, { once: true });
      // The clock starts once the stored result has been looked up: a timer armed before the
      // read (with 0 ms, "do not wait") would win the race against Redis and hide a result
      // that is already there.
      const startClock = (): void => {
        if (!settled) timer = setTimeout(onClosed, Math.max(0, timeoutMs));
      };
      // A task enqueued here had no result then (enqueue checks), and the event channel has
      // been subscribed without a break since before it was queued: its finishing event,
      // whenever published, reaches this instance and has not yet (else it would have been
      // struck off). The event answers the waiter, so the read would find nothing new. A break
      // (listening false, another subscription) reads as before, and after a reconnect the
      // awaited results are read again anyway. Only for waits long enough for an event on its
      // way to arrive: a short or zero wait asks Redis.
      if (timeoutMs >= SKIP_FIRST_READ_MIN_WAIT_MS && this.listening && this.unfinishedHere.get(taskId) === this.subscription) {
        startClock();
        return;
      }
      this.readResult(taskId).then(
        (result) => (result ? finish(result) : startClock()),
        startClock,
      );
    });
  }

  async cancel(taskId: string, reason = 'cancelled by request'): Promise<boolean> {
    this.assertOpen();
    return (await this.run('cancel', [taskId, shortReason(reason)], this.taskKeys(taskId))) === 1;
  }

  subscribe(listener: TaskEventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async stats(): Promise<QueueStats> {
    const { dead, sets, problems } = await this.count();
    const total: QueueStats = { pending: 0, inFlight: 0, delayed: 0, dead, ...(problems.length > 0 && { problems }) };
    for (const set of sets) {
      total.pending += set.pending;
      total.inFlight += set.inFlight;
      total.delayed += set.delayed;
    }
    return total;
  }

  async depth(): Promise<RequirementSetDepth[]> {
    const { sets } = await this.count();
    return sets
      .filter((set) => set.pending + set.inFlight + set.delayed > 0)
      .sort((a, b) => compare(requirementSetKey(a.kind, a.requires), requirementSetKey(b.kind, b.requires)));
  }

  async listDead(): Promise<DeadLetter[]> {
    this.assertOpen();
    await this.ready();
    const entries = (await this.commands.xrange(this.keys.dead(), '-', '+')) as [string, string[]][];
    return entries.map(([entryId, fields]) => toDeadLetter(entryId, fieldsOf(fields)));
  }

  async retryDead(taskId: string): Promise<boolean> {
    this.assertOpen();
    return (await this.run('retryDead', [taskId], this.taskKeys(taskId))) === 1;
  }

  async announceWorker(record: WorkerRecord, ttlMs: number): Promise<void> {
    this.assertOpen();
    await this.run('workers', ['announce', record.id, JSON.stringify(record), Math.max(1, Math.round(ttlMs))], [this.keys.workers(), this.keys.workersLapse()]);
  }

  async retireWorker(workerId: string): Promise<void> {
    this.assertOpen();
    await this.ready();
    // One slot (the prefix's tag), so MULTI works on a cluster too.
    await this.commands.multi().hdel(this.keys.workers(), workerId).zrem(this.keys.workersLapse(), workerId).exec();
  }

  async listWorkers(): Promise<WorkerRecord[]> {
    this.assertOpen();
    const records = (await this.run('workers', ['list'], [this.keys.workers(), this.keys.workersLapse()])) as (string | null)[];
    const workers: WorkerRecord[] = [];
    for (const text of records) {
      if (!text) continue;
      try {
        workers.push(JSON.parse(text) as WorkerRecord);
      } catch {
        // A record some other program wrote: not a worker of ours.
      }
    }
    return workers.sort((a, b) => a.host.localeCompare(b.host) || a.id.localeCompare(b.id));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.lifecycle.emit('closed');
    this.listeners.clear();
    this.waiters.clear();
    this.unfinishedHere.clear();
    clearTimeout(this.recheckTimer);
    clearInterval(this.resultSweepTimer);
    this.blocking.close();
    this.subscriber.disconnect();
    // Acks made in this turn are sent on the next tick (the coalescer): let them go out first.
    await new Promise((resolve) => setImmediate(resolve));
    // Let commands already sent (an ack, say) get their replies; nothing to wait for when down.
    if (this.commands.status === 'ready') await this.commands.quit().catch(() => undefined);
    this.commands.disconnect();
  }

  private newConnection(name: string, extra: Pick<RedisOptions, 'enableAutoPipelining'> = {}): RedisConnection {
    const connection = openConnection(this.address, this.options.connectTimeoutMs, name, extra);
    // Errors surface as rejected commands; an unhandled 'error' event would crash the process.
    connection.on('error', () => undefined);
    return connection;
  }

  /**
   * Connects the command and event connections on first use (bounded, with a clear error) and
   * subscribes to the events, so that a listener added before an operation sees its events.
   * A failed first connect is tried again by the next operation.
   */
  private ready(): Promise<void> {
    this.readying ??= (async () => {
      await connectBounded(this.commands, this.url, this.options.connectTimeoutMs);
      await connectBounded(this.subscriber, this.url, this.options.connectTimeoutMs);
      await this.subscriber.subscribe(this.keys.events());
      this.subscribed = true;
      this.listening = true;
    })().catch((error: unknown) => {
      this.readying = undefined;
      throw error;
    });
    return this.readying;
  }

  /** Runs a script: `args` after the common ARGV header, `keys` after the common KEYS header. */
  private async run(script: ScriptName, args: readonly (string | number)[], keys: readonly string[] = []): Promise<unknown> {
    await this.ready();
    const headerKeys = [this.keys.streams(), this.keys.delayed(), this.keys.dead()];
    const header = [
      this.prefix,
      this.options.leaseMs,
      this.options.maxAttempts,
      this.options.retryBaseMs,
      this.options.resultTtlMs,
      this.options.deadLetterMaxLen,
      new Date().toISOString(),
    ];
    try {
      return await runScript(this.commands, script, [...headerKeys, ...keys], [...header, ...args]);
    } catch (error) {
      throw this.explainUnreachable(await this.explainWrongType(error, [...headerKeys, ...keys]));
    }
  }

  /**
   * A script refused a key that holds something other than what the queue keeps there (its
   * PEAGEN_BADKEY reply, or Redis's own WRONGTYPE): the error names the key and the command
   * that deletes it, instead of Redis's line about the script. Any other error is kept.
   */
  private async explainWrongType(error: unknown, keys: readonly string[]): Promise<unknown> {
    const message = error instanceof Error ? error.message : '';
    const refused = /PEAGEN_BADKEY (\S+) (.*?)(?: script: [0-9a-f]+, on @user_script:\d+\.)?$/s.exec(message);
    if (refused) return new QueueKeyError(badKeyProblem(this.address, refused[2]!, refused[1]!).replace(', so the queue skips it:', ', so no task can be queued there:'));
    if (!message.includes('WRONGTYPE')) return error;
    const wrong: string[] = [];
    for (const key of new Set(keys)) {
      const expected = this.expectedType(key);
      const actual = await this.commands.type(key).catch(() => 'none');
      if (expected && actual !== 'none' && actual !== expected) wrong.push(`${key} is a ${actual}, not a ${expected} (delete it with \`${deleteKeyCommand(this.address, key)}\`)`);
    }
    if (wrong.length === 0) return error;
    return new QueueKeyError(`Redis keys of this queue hold something other than what Peagen keeps there (something else wrote them): ${wrong.join('; ')}`);
  }

  /** What Redis type the key scheme (above) keeps at `key`, when it is one of the queue's. */
  private expectedType(key: string): string | undefined {
    if (key === this.keys.streams()) return 'set';
    if (key === this.keys.delayed() || key === this.keys.workersLapse()) return 'zset';
    if (key === this.keys.dead() || key.startsWith(`${this.prefix}:tasks:`)) return 'stream';
    if (key === this.keys.workers() || key.startsWith(`${this.prefix}:task:`)) return 'hash';
    if (key.startsWith(`${this.prefix}:result:`)) return 'string';
    return undefined;
  }

  /** A leased entry as a Claim, or why it holds no valid task (it is then dead-lettered). */
  private toClaim(entry: LeasedEntry, consumer: string, sentAt: number): Claim | { invalid: string } {
    const { entryId, taskJson, attempts, taskId } = entry;
    let raw: unknown;
    try {
      raw = JSON.parse(taskJson);
    } catch (error) {
      raw = { unreadable: (error as Error).message };
    }
    const parsed = parseTask(typeof raw === 'object' && raw !== null ? { ...raw, attempts: Number(attempts) } : raw);
    const leaseUntil = sentAt + this.options.leaseMs;
    if (parsed.ok && parsed.task.id === taskId) return { task: parsed.task, leaseId: entryId, leaseUntil, consumer };
    return {
      invalid: parsed.ok ? `invalid_task: the record of task ${taskId} holds task ${parsed.task.id}` : `${parsed.error.code}: ${parsed.error.message}`,
    };
  }

  /** Blocks until one of the streams gets an entry past its id, or `waitMs` passes. */
  private async waitForEntry(streamsAndIds: string[], waitMs: number, signal?: AbortSignal): Promise<void> {
    const streams = streamsAndIds.filter((_, index) => index % 2 === 0);
    const ids = streamsAndIds.filter((_, index) => index % 2 === 1);
    if (streams.length === 0) {
      await waitForEvent(this.lifecycle, 'closed', waitMs, signal);
      return;
    }
    const connection = await this.blocking.acquire();
    // Stopped while a connection was being found: the read is not needed.
    if (signal?.aborted) return this.blocking.release(connection);
    const interrupt = (): void => this.blocking.interrupt(connection);
    signal?.addEventListener('abort', interrupt, { once: true });
    this.lifecycle.once('closed', interrupt);
    try {
      await connection.xread('BLOCK', Math.max(1, Math.round(waitMs)), 'STREAMS', ...streams, ...ids);
      this.blocking.release(connection);
    } catch (error) {
      this.blocking.interrupt(connection);
      if (!this.closed && !signal?.aborted) throw error;
    } finally {
      signal?.removeEventListener('abort', interrupt);
      this.lifecycle.off('closed', interrupt);
    }
  }

  private async readResult(taskId: string): Promise<Result | null> {
    return parseResult(await this.commands.get(this.keys.result(taskId)));
  }

  private onMessage(message: string): void {
    let event: TaskEvent & { result?: unknown };
    try {
      event = JSON.parse(message) as TaskEvent & { result?: unknown };
    } catch {
      return;
    }
    // A finishing event carries its (small) result for the waiters; listeners get the state.
    const resultText = event.result;
    delete event.result;
    for (const listener of [...this.listeners]) {
      try {
        listener(structuredClone(event));
      } catch {
        // A listener's bug is its own; the task's state has already changed.
      }
    }
    if (event.type === 'state' && (event.state === 'done' || event.state === 'dead' || event.state === 'cancelled')) {
      this.unfinishedHere.delete(event.taskId);
      const result = typeof resultText === 'string' ? parseResult(resultText) : null;
      if (result) this.wake(event.taskId, result);
      else void this.wakeWaiters(event.taskId);
    }
  }

  private async wakeWaiters(taskId: string): Promise<void> {
    if (!this.waiters.has(taskId) || this.closed) return;
    let result: Result | null;
    try {
      result = await this.readResult(taskId);
    } catch {
      // Heard, but not readable now (the command connection is down): the recheck after it
      // comes back finds the result.
      this.scheduleRecheck();
      return;
    }
    if (result) this.wake(taskId, result);
  }

  private wake(taskId: string, result: Result): void {
    for (const wake of [...(this.waiters.get(taskId) ?? [])]) wake(result);
  }

  private recheckAfterReconnect(): void {
    void this.recheckWaiters();
    this.scheduleRecheck();
  }

  /**
   * Subscribes the event channel again after the event connection came back, then looks at
   * the awaited results once more: what was published before the SUBSCRIBE took effect was not
   * heard. ioredis resubscribes by itself too, but only when the connection had been subscribed
   * when it dropped: a drop during its own SUBSCRIBE (a server restarting, loading its data)
   * left the connection up and deaf. A failed SUBSCRIBE is tried again on the next reconnect.
   */
  private subscribeAgain(): void {
    if (!this.subscribed || this.closed) return;
    const subscription = this.subscription;
    this.subscriber.subscribe(this.keys.events()).then(
      () => {
        if (subscription === this.subscription) this.listening = true;
        void this.recheckWaiters();
      },
      () => this.scheduleRecheck(),
    );
  }

  /** Reads the awaited results every RESULT_SWEEP_MS while there are any (see there). */
  private sweepResultsWhileWaited(): void {
    if (this.resultSweepTimer || this.closed) return;
    this.resultSweepTimer = setInterval(() => {
      if (this.waiters.size === 0) {
        clearInterval(this.resultSweepTimer);
        this.resultSweepTimer = undefined;
        return;
      }
      void this.recheckWaiters();
    }, RESULT_SWEEP_MS);
    this.resultSweepTimer.unref();
  }

  private scheduleRecheck(): void {
    if (this.recheckTimer || this.closed) return;
    this.recheckTimer = setTimeout(() => {
      this.recheckTimer = undefined;
      void this.recheckWaiters();
    }, RECHECK_AFTER_RECONNECT_MS);
    this.recheckTimer.unref();
  }

  /** Reads every awaited result (in batches); tries again later while Redis does not answer. */
  private async recheckWaiters(): Promise<void> {
    const taskIds = [...this.waiters.keys()];
    for (let start = 0; start < taskIds.length && !this.closed; start += RECHECK_BATCH) {
      const batch = taskIds.slice(start, start + RECHECK_BATCH);
      let texts: (string | null)[];
      try {
        texts = await this.commands.mget(batch.map((taskId) => this.keys.result(taskId)));
      } catch {
        this.scheduleRecheck();
        return;
      }
      const missing: string[] = [];
      batch.forEach((taskId, index) => {
        const result = parseResult(texts[index] ?? null);
        if (result) this.wake(taskId, result);
        else missing.push(taskId);
      });
      await this.wakeLost(missing);
    }
  }

  /**
   * Awaited tasks whose record is gone too (a Redis that restarted without its data): no worker
   * will ever finish them, so their waiters get a `task_lost` result now, and the submitter (a
   * run) submits them again, rather than waiting past every limit.
   */
  private async wakeLost(taskIds: readonly string[]): Promise<void> {
    if (taskIds.length === 0) return;
    let held: number[];
    try {
      held = await Promise.all(taskIds.map((taskId) => this.commands.exists(this.keys.task(taskId), this.keys.result(taskId))));
    } catch {
      return; // unreachable again: the next reconnect looks again
    }
    taskIds.forEach((taskId, index) => {
      if (held[index] !== 0 || !this.waiters.has(taskId)) return;
      this.wake(taskId, {
        taskId,
        status: 'error',
        error: { code: TASK_LOST, message: `Redis at ${this.url} no longer holds this task (it restarted without its data, or the task was deleted)`, retryable: true },
        attempts: 0,
      });
    });
  }

  private async count(): Promise<{ dead: number; sets: RequirementSetDepth[]; problems: string[] }> {
    this.assertOpen();
    const reply = (await this.run('stats', [])) as (string | number)[];
    const sets: RequirementSetDepth[] = [];
    const streamPrefix = `${this.prefix}:tasks:`;
    // Listed keys that are not streams: skipped by the script, named here with their fix.
    const problems: string[] = [];
    const damaged = Number(reply[1]);
    for (let index = 2; index < 2 + 2 * damaged; index += 2) problems.push(badKeyProblem(this.address, String(reply[index]), String(reply[index + 1])));
    for (let index = 2 + 2 * damaged; index + 4 < reply.length; index += 5) {
      const stream = String(reply[index]);
      const key = stream.slice(streamPrefix.length);
      const split = key.lastIndexOf(':');
      sets.push({
        kind: key.slice(0, split),
        requires: key.slice(split + 1).split(',').filter(Boolean),
        pending: Number(reply[index + 1]),
        inFlight: Number(reply[index + 2]),
        delayed: Number(reply[index + 3]),
        oldestPendingMs: Number(reply[index + 4]),
      });
    }
    return { dead: Number(reply[0]), sets, problems };
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('the queue is closed');
  }
}

/** Coalesced calls stop growing past this many bytes of arguments (a large result goes alone). */
const MAX_BATCH_BYTES = 1 << 20;

/** One delivery's part of a coalesced script call: the keys it declares and its arguments. */
interface ScriptCall {
  keys: string[];
  args: (string | number)[];
}

/** One ack's part of a coalesced ack call, and the consumer to lease its next task to. */
interface AckCall extends ScriptCall {
  next?: string;
}

interface AckAnswer {
  acked: boolean;
  /** The next task, when the ack asked for one and one was waiting. */
  leased?: LeasedEntry;
  /** When the call was sent (the lease runs from then). */
  sentAt: number;
}

/** What the claim and ack scripts read as acceptors, and what names a line of claims or acks. */
function acceptorsJson(accepts: readonly Acceptor[]): string {
  return JSON.stringify(accepts.map((acceptor) => ({ kind: acceptor.kind, provides: [...acceptor.provides] })));
}

function weighCall({ keys, args }: ScriptCall): number {
  let bytes = 0;
  for (const arg of [...keys, ...args]) bytes += typeof arg === 'string' ? arg.length : 8;
  return bytes;
}

function shortReason(reason: string): string {
  return reason.length > MAX_REASON_LENGTH ? reason.slice(0, MAX_REASON_LENGTH) : reason;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function fieldsOf(flat: string[]): Record<string, string> {
  const fields: Record<string, string> = {};
  for (let index = 0; index + 1 < flat.length; index += 2) fields[flat[index]!] = flat[index + 1]!;
  return fields;
}

/** A dead-letter entry as a DeadLetter; an entry without a valid task gets a stand-in task. */
function toDeadLetter(entryId: string, fields: Record<string, string>): DeadLetter {
  const failedAt = fields.failedAt ?? new Date(Number(entryId.split('-')[0])).toISOString();
  const attempts = Number(fields.attempts ?? 0);
  let raw: unknown;
  try {
    raw = JSON.parse(fields.task ?? '');
  } catch {
    raw = fields.task;
  }
  const parsed = parseTask(typeof raw === 'object' && raw !== null ? { ...raw, attempts } : raw);
  const task: Task = parsed.ok
    ? parsed.task
    : {
        id: fields.id ?? `entry-${entryId}`,
        kind: fields.kind || 'unknown',
        payload: { unreadable: raw ?? null },
        requires: [],
        attempts,
        createdAt: failedAt,
        schemaV: '1.0',
      };
  return { task, reason: fields.reason ?? 'no reason recorded', failedAt };
}

export { GROUP as CONSUMER_GROUP };

function parseResult(text: string | null): Result | null {
  if (!text) return null;
  try {
    return JSON.parse(text) as Result;
  } catch {
    return null;
  }
}
