/** How the Redis queue names a key something else wrote, and the command that deletes it (badKey.ts). */
import * as assert from 'node:assert/strict';
import { badKeyProblem, deleteKeyCommand } from '../../daemon/fabric/queue/redis/badKey';
import { parseRedisAddress } from '../../shared/redisAddress';

describe('damaged Redis queue keys (badKey.ts)', () => {
  it('the redis-cli command: the node and database, no password, no Peagen query, the key quoted for a shell', () => {
    const node = parseRedisAddress('redis://user:s3cret@10.0.0.5:6380/4?prefix=team', {});
    assert.equal(deleteKeyCommand(node, "{team}:tasks:x'y:"), `redis-cli -u 'redis://user@10.0.0.5:6380/4' DEL '{team}:tasks:x'\\''y:'`);
    assert.doesNotMatch(deleteKeyCommand(node, 'k'), /s3cret/);
    assert.match(deleteKeyCommand(parseRedisAddress('rediss://h:6379', {}), 'k'), /^redis-cli --tls -u 'rediss:\/\/h:6379' DEL 'k'$/);
    const cluster = parseRedisAddress('redis+cluster://a:7000,b:7001', {});
    assert.equal(deleteKeyCommand(cluster, '{peagen}:tasks:echo:'), `redis-cli -c -h 'a' -p 7000 DEL '{peagen}:tasks:echo:'`);
  });

  it('says what the key holds and that the queue skips it', () => {
    const address = parseRedisAddress('redis://127.0.0.1:6379', {});
    assert.match(badKeyProblem(address, '{peagen}:tasks:sleep:', 'string'), /^Redis key \{peagen\}:tasks:sleep: is listed as a task stream but holds a string, not a stream .*so the queue skips it: delete it with `redis-cli -u 'redis:\/\/127\.0\.0\.1:6379' DEL '\{peagen\}:tasks:sleep:'`$/);
    assert.match(badKeyProblem(address, 'elsewhere', 'foreign'), /is listed as a task stream but is not a task stream of this queue/);
  });
});
