/**
 * The queue's Lua scripts, one named file per atomic state change (lua/*.lua, BullMQ-style),
 * each prefixed with lua/common.lua (and the two that lease tasks, ack and claim, with
 * lua/lease.lua after it). They are registered with ioredis `defineCommand`, which
 * sends EVALSHA and falls back to EVAL when the server lost its script cache (a restart).
 *
 * Every script declares its keys (KEYS: the header keys of common.lua, then its own), all in
 * the workspace's hash slot: on a Redis Cluster the client sends it to the node owning that
 * slot. Each starts with `#!lua` (Redis 7 script flags, none set): unlike a script without the
 * line, Redis then refuses any key of another slot a script touches, declared or not, instead
 * of trusting it; and a script that writes is refused up front, not halfway, when Redis is out
 * of memory.
 *
 * The files are imported as text: esbuild inlines them in the bundles and emits
 * `<name>.lua.js` modules next to the per-file transpile in out/ (scripts/build.mjs).
 */
import type { Cluster, Redis } from 'ioredis';
import ack from './lua/ack.lua';
import cancel from './lua/cancel.lua';
import claim from './lua/claim.lua';
import common from './lua/common.lua';
import enqueue from './lua/enqueue.lua';
import extend from './lua/extend.lua';
import fail from './lua/fail.lua';
import lease from './lua/lease.lua';
import reclaim from './lua/reclaim.lua';
import release from './lua/release.lua';
import retryDead from './lua/retry-dead.lua';
import stats from './lua/stats.lua';
import workers from './lua/workers.lua';

const SCRIPTS = { ack, cancel, claim, enqueue, extend, fail, reclaim, release, retryDead, stats, workers };

export type ScriptName = keyof typeof SCRIPTS;

/** The scripts that lease tasks: lua/lease.lua follows lua/common.lua in them. */
const LEASING = new Set<ScriptName>(['ack', 'claim']);

/** The custom command ioredis gets for a script (prefixed so it never shadows a real one). */
function commandName(name: ScriptName): string {
  return `peagen_${name}`;
}

export function defineQueueScripts(redis: Redis | Cluster): void {
  for (const [name, body] of Object.entries(SCRIPTS)) {
    // No numberOfKeys: each call passes its count first (runScript), as scripts declare some.
    const shared = LEASING.has(name as ScriptName) ? `${common}\n${lease}` : common;
    redis.defineCommand(commandName(name as ScriptName), { lua: `#!lua\n${shared}\n${body}` });
  }
}

/**
 * Runs a script defined by {@link defineQueueScripts}: `keys` are its KEYS (the header keys of
 * common.lua first), `args` its ARGV (the common header first).
 */
export function runScript(redis: Redis | Cluster, name: ScriptName, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown> {
  const command = (redis as unknown as Record<string, (...values: (string | number)[]) => Promise<unknown>>)[commandName(name)];
  if (!command) throw new Error(`queue script ${name} is not defined on this connection`);
  return command.apply(redis, [keys.length, ...keys, ...args]);
}
