/**
 * Queue addresses as users write them: one Redis node (`redis://`) or a Redis Cluster
 * (`redis+cluster://host:port,host:port`), with the workspace's key prefix as a hash tag, and
 * the password never shown.
 */
import * as assert from 'node:assert/strict';
import { parseRedisAddress, queueKeyPrefix, RedisAddressError } from '../../shared/redisAddress';

describe('parseRedisAddress', () => {
  it('reads a single node, its workspace as the hash tag {NAME}', () => {
    const address = parseRedisAddress('redis://peagen:hunter2@10.0.0.2:6380/3?prefix=team-a', {});
    assert.equal(address.url, 'redis://peagen@10.0.0.2:6380/3?prefix=team-a');
    assert.equal(address.prefix, 'team-a');
    assert.equal(address.keyPrefix, '{team-a}');
    assert.deepEqual(address.connection, { host: '10.0.0.2', port: 6380, db: 3, username: 'peagen', password: 'hunter2' });
    assert.equal(address.cluster, undefined);
    assert.equal(parseRedisAddress('redis://localhost', {}).keyPrefix, '{peagen}');
    assert.equal(queueKeyPrefix('peagen'), '{peagen}');
  });

  it('reads a cluster address: every node listed, the password from the environment or the URL, never shown', () => {
    const address = parseRedisAddress('redis+cluster://ops:s3cret@10.0.0.1:7000,node-b:7001,[::1]:7002?prefix=ws', {});
    assert.deepEqual(address.cluster?.nodes, [
      { host: '10.0.0.1', port: 7000 },
      { host: 'node-b', port: 7001 },
      { host: '::1', port: 7002 },
    ]);
    assert.equal(address.url, 'redis+cluster://ops@10.0.0.1:7000,node-b:7001,[::1]:7002?prefix=ws');
    assert.equal(address.keyPrefix, '{ws}');
    assert.equal(address.connection.username, 'ops');
    assert.equal(address.connection.password, 's3cret');
    assert.equal(address.connection.tls, undefined);
    const fromEnv = parseRedisAddress('rediss+cluster://h1:7000', { PEAGEN_REDIS_PASSWORD: 'from-env' });
    assert.equal(fromEnv.connection.password, 'from-env');
    assert.ok(fromEnv.connection.tls, 'rediss+cluster:// is TLS');
    assert.deepEqual(fromEnv.cluster?.nodes, [{ host: 'h1', port: 7000 }]);
    assert.equal(parseRedisAddress('redis+cluster://h1/0', {}).cluster?.nodes[0]?.port, 6379);
  });

  it('refuses a cluster address it cannot serve, saying what to write', () => {
    const refusals: [string, RegExp][] = [
      ['redis+cluster://h1:7000/2', /names database 2: a cluster has database 0 only \(use \?prefix=NAME/],
      ['redis+cluster://', /names no node/],
      ['redis+cluster://h1:7000,,h2:7001', /"" in .* is not a host\[:port\] of a cluster node/],
      ['redis+cluster://h1:port', /"h1:port" in .* is not a host\[:port\]/],
      ['redis+cluster://:pw@h1:7000?prefix={x}', /the key prefix "\{x\}" may hold only/],
      ['ftp://h1', /expected redis:\/\/host\[:port\]\[\/db\] \(rediss:\/\/ for TLS\) or redis\+cluster:\/\/host:port\[,host:port\.\.\.\]/],
    ];
    for (const [url, message] of refusals) {
      assert.throws(() => parseRedisAddress(url, {}), (error: Error) => error instanceof RedisAddressError && message.test(error.message) && !error.message.includes('pw@'), url);
    }
  });
});
