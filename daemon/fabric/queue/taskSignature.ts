/**
 * Signed tasks: who may put work on a shared queue. Anyone who can write to the Redis can
 * queue a task; with a cluster secret (PEAGEN_TASK_SECRET, the same on every daemon, CLI and
 * worker of the cluster) every task this side queues carries an HMAC-SHA256 of its content,
 * and a worker holding the secret runs no task whose signature is missing or wrong (as
 * Celery's message signing does). A queue writer without the secret can then neither make a
 * task nor change one: the signature covers the id, the kind, the payload, the requirements,
 * the creation time and the deadline, so no part can be swapped into another task. What it
 * cannot stop is a raw writer putting back a task that was signed before (a replay): that
 * runs again only what its signer asked, and only while the signature is younger than
 * {@link SIGNATURE_MAX_AGE_MS} (the queue itself refuses a second task with a known id).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Task } from '../../../shared/task';

/** The environment variable that holds the cluster's task secret. */
export const TASK_SECRET_ENV = 'PEAGEN_TASK_SECRET';

/** A shorter secret is refused: it could be guessed offline from one signed task. */
export const MIN_SECRET_LENGTH = 16;

/**
 * A signed task older than this is refused: 7 days, as long as the Redis queue keeps a
 * finished task's record (and so refuses its id again on enqueue).
 */
export const SIGNATURE_MAX_AGE_MS = 7 * 24 * 60 * 60 * 1000;

const VERSION = 'v1';

/**
 * The fields a v1 signature covers. `attempts` is left out (the queue counts deliveries) and
 * so is the signature itself. A field a later schema adds is covered only by a later version:
 * a worker that does not know it strips it, so it cannot change what this worker runs.
 */
const SIGNED_FIELDS = ['id', 'kind', 'payload', 'requires', 'createdAt', 'schemaV', 'runId', 'parentId', 'deadline', 'trace'] as const;

export class TaskSecretError extends Error {
  override name = 'TaskSecretError';
}

/** The secret from the environment, or undefined when unset; a secret too short to be safe is an error. */
export function taskSecretFrom(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const secret = env[TASK_SECRET_ENV];
  if (secret === undefined || secret === '') return undefined;
  if (secret.length < MIN_SECRET_LENGTH) {
    throw new TaskSecretError(
      `${TASK_SECRET_ENV} is ${secret.length} characters long; use at least ${MIN_SECRET_LENGTH} random characters (e.g. \`openssl rand -hex 32\`), the same on every daemon, CLI and worker of the cluster`,
    );
  }
  return secret;
}

/** The task's signed content as one string: its signed fields, keys sorted at every level. */
export function canonicalTaskContent(task: Task): string {
  const signed: Record<string, unknown> = {};
  for (const field of SIGNED_FIELDS) if (task[field] !== undefined) signed[field] = task[field];
  return canonicalJson(signed);
}

/** The task with its signature (any earlier one replaced). */
export function signTask(task: Task, secret: string): Task {
  return { ...task, signature: `${VERSION}:${mac(task, secret)}` };
}

/**
 * Why the task's signature is not acceptable to a worker holding `secret`, as a refusal code
 * and message; undefined when it is. The comparison takes the same time wherever the
 * signatures differ.
 */
export function signatureProblem(task: Task, secret: string, now = Date.now()): { code: string; message: string } | undefined {
  const fix = `every process that queues tasks for this worker needs the same ${TASK_SECRET_ENV}`;
  if (task.signature === undefined) return { code: 'unsigned_task', message: `the task is not signed, and this worker runs only tasks signed with its ${TASK_SECRET_ENV}; ${fix}` };
  const [version, given] = task.signature.split(':', 2);
  const expected = Buffer.from(mac(task, secret), 'hex');
  const actual = version === VERSION && given !== undefined && /^[0-9a-f]+$/.test(given) ? Buffer.from(given, 'hex') : Buffer.alloc(0);
  if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) {
    return { code: 'bad_signature', message: `the task's signature does not match its content under this worker's ${TASK_SECRET_ENV}: it was changed after it was signed, or signed with another secret; ${fix}` };
  }
  const age = now - Date.parse(task.createdAt);
  if (age > SIGNATURE_MAX_AGE_MS) {
    return { code: 'signature_expired', message: `the task was signed ${Math.floor(age / 86_400_000)} days ago, past the ${SIGNATURE_MAX_AGE_MS / 86_400_000} days a signed task is accepted; submit it again` };
  }
  return undefined;
}

function mac(task: Task, secret: string): string {
  // The version is part of the MAC, so a v1 signature can never pass as another version's.
  return createHmac('sha256', secret).update(`peagen-task-${VERSION}\n`).update(canonicalTaskContent(task)).digest('hex');
}

/** JSON with object keys sorted and undefined members left out, so equal content is equal text. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => (item === undefined ? 'null' : canonicalJson(item))).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, member]) => member !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, member]) => `${JSON.stringify(key)}:${canonicalJson(member)}`).join(',')}}`;
  }
  // Numbers, strings, booleans, null; what JSON cannot hold (a function, a bigint) is not task content.
  return JSON.stringify(value) ?? 'null';
}
