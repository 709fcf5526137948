/**
 * A queue key that holds something other than what Peagen keeps there (a stream key written as
 * a string by another program, say). Redis answers WRONGTYPE for it; the queue says instead
 * which key, what it holds and the command that deletes it. Apart from the adapter so that the
 * CLI can recognise it without loading ioredis.
 */
import type { RedisAddress } from '../../../../shared/redisAddress';

export class QueueKeyError extends Error {
  override name = 'QueueKeyError';
}

/** `text` quoted for a POSIX shell. */
function shellQuoted(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** The redis-cli command that deletes `key` on this queue's server (the password is never shown). */
export function deleteKeyCommand(address: Pick<RedisAddress, 'url' | 'cluster'>, key: string): string {
  const tls = /^rediss/i.test(address.url) ? ' --tls' : '';
  const node = address.cluster?.nodes[0];
  // redis-cli's -u takes no query (?prefix=NAME is Peagen's); on a cluster -c follows the key's slot.
  const where = node ? `-c -h ${shellQuoted(node.host)} -p ${node.port}` : `-u ${shellQuoted(address.url.replace(/\?.*$/, ''))}`;
  return `redis-cli${tls} ${where} DEL ${shellQuoted(key)}`;
}

/**
 * One line about a damaged key: what it is, what it holds, and how to remove it. `found`: the
 * key's Redis type, or `foreign` for a name outside the queue's streams (the scripts' answer).
 */
export function badKeyProblem(address: Pick<RedisAddress, 'url' | 'cluster'>, key: string, found: string): string {
  const what = found === 'foreign' ? 'is not a task stream of this queue' : `holds a ${found}, not a stream`;
  return `Redis key ${key} is listed as a task stream but ${what} (something other than Peagen wrote it), so the queue skips it: delete it with \`${deleteKeyCommand(address, key)}\``;
}
