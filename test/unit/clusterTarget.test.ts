/**
 * What the status bar says about the cluster (extension/cluster/clusterTarget.ts) and how a
 * failed Redis connection is diagnosed (extension/cluster/redisProbe.ts, against a scripted
 * RESP server on loopback): the mode and host, never a password, and what to fix.
 */
import * as assert from 'node:assert/strict';
import * as net from 'node:net';
import { describeTarget, explainProblem, queueHost } from '../../extension/cluster/clusterTarget';
import { probeRedis } from '../../extension/cluster/redisProbe';

describe('cluster target (status bar mode and host)', () => {
  it('is embedded with no settings', () => {
    assert.deepEqual(describeTarget({ configuredAddress: '', queueUrlSetting: '' }), { mode: 'embedded', label: 'embedded' });
  });

  it('is the cluster on the Redis host of peagen.queue.url, without the password', () => {
    const target = describeTarget({ configuredAddress: '', queueUrlSetting: 'redis://alice:s3cret@10.0.0.5:6380/2' });
    assert.deepEqual(target, { mode: 'cluster', host: 'redis 10.0.0.5:6380', label: 'cluster redis 10.0.0.5:6380' });
    assert.doesNotMatch(JSON.stringify(target), /s3cret|alice/);
  });

  it('believes the daemon over the settings once it answered', () => {
    const target = describeTarget({ configuredAddress: '', queueUrlSetting: '', daemonQueue: { backend: 'redis', url: 'redis://127.0.0.1:6381' } });
    assert.equal(target.label, 'cluster redis 127.0.0.1:6381');
    assert.equal(describeTarget({ configuredAddress: '', queueUrlSetting: 'redis://h:1', daemonQueue: { backend: 'memory', url: 'memory://' } }).label, 'embedded');
  });

  it('names the configured daemon address as the host', () => {
    const target = describeTarget({ configuredAddress: 'tcp:10.0.0.7:7781', queueUrlSetting: '', daemonQueue: { backend: 'redis', url: 'redis://10.0.0.5:6379' } });
    assert.equal(target.label, 'cluster daemon tcp:10.0.0.7:7781');
  });

  it('reads hosts of redis://, rediss:// and redis+cluster:// URLs only', () => {
    assert.equal(queueHost('redis://h'), 'h:6379');
    assert.equal(queueHost('redis+cluster://:pw@a:7000,[::1]:7001?prefix=x'), 'cluster a:7000,[::1]:7001');
    assert.equal(queueHost('rediss+cluster://a:7000'), 'rediss cluster a:7000');
    assert.equal(queueHost('redis+cluster://a:7000/5'), undefined);
    assert.equal(queueHost('rediss://:pw@h:7000'), 'rediss h:7000');
    assert.equal(queueHost('memory://'), undefined);
    assert.equal(queueHost('not a url'), undefined);
  });

  it('says what to fix for each problem', () => {
    assert.match(explainProblem({ kind: 'redis-password-refused', where: 'h:1', detail: 'WRONGPASS' }), /check peagen\.queue\.url \/ run Peagen: Set Redis Password/);
    assert.match(explainProblem({ kind: 'redis-unreachable', where: 'h:1', detail: 'ECONNREFUSED' }), /check peagen\.queue\.url/);
    assert.match(explainProblem({ kind: 'daemon-unreachable', where: 'tcp:h:1', detail: 'ECONNREFUSED' }), /check peagen\.daemon\.address/);
  });
});

/** A loopback server that answers each RESP command with `answer(command)`. */
async function respServer(answer: (command: string[]) => string): Promise<{ url: string; commands: string[][]; close(): Promise<void> }> {
  const commands: string[][] = [];
  const server = net.createServer((socket) => {
    let buffered = '';
    socket.on('data', (chunk) => {
      buffered += chunk.toString();
      // Enough RESP for the probe: *N then N pairs of $len / value.
      for (;;) {
        const lines = buffered.split('\r\n');
        const count = Number(lines[0]?.slice(1));
        if (!lines[0]?.startsWith('*') || lines.length < 1 + 2 * count + 1) return;
        const parts = Array.from({ length: count }, (_, index) => lines[2 + 2 * index]!);
        commands.push(parts);
        buffered = lines.slice(1 + 2 * count).join('\r\n');
        socket.write(answer(parts));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return { url: `redis://127.0.0.1:${port}`, commands, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

describe('Redis probe (why a daemon on a Redis queue could not start)', () => {
  it('finds nothing wrong when Redis answers PING with the stored password', async () => {
    const server = await respServer((command) => (command[0] === 'AUTH' ? (command[1] === 'pw' ? '+OK\r\n' : '-WRONGPASS invalid username-password pair\r\n') : '+PONG\r\n'));
    try {
      assert.equal(await probeRedis(server.url, 'pw'), undefined);
      assert.deepEqual(server.commands, [['AUTH', 'pw'], ['PING']]);
    } finally {
      await server.close();
    }
  });

  it('reports a refused password, naming the host but not the password', async () => {
    const server = await respServer((command) => (command[0] === 'AUTH' ? '-WRONGPASS invalid username-password pair or user is disabled.\r\n' : '-NOAUTH Authentication required.\r\n'));
    try {
      const problem = await probeRedis(server.url, 'wrong-one');
      assert.equal(problem?.kind, 'redis-password-refused');
      const text = explainProblem(problem);
      assert.match(text, /refused the password \(WRONGPASS\)/);
      assert.doesNotMatch(text, /wrong-one/);
    } finally {
      await server.close();
    }
  });

  it('reports a missing password', async () => {
    const server = await respServer(() => '-NOAUTH Authentication required.\r\n');
    try {
      assert.equal((await probeRedis(server.url, undefined))?.kind, 'redis-password-required');
    } finally {
      await server.close();
    }
  });

  it('reports an unreachable Redis', async () => {
    const server = await respServer(() => '+PONG\r\n');
    await server.close();
    const problem = await probeRedis(server.url, undefined);
    assert.deepEqual(problem && { kind: problem.kind }, { kind: 'redis-unreachable' });
    assert.match(explainProblem(problem!), /ECONNREFUSED/);
  });

  /** A RESP bulk string. */
  const bulk = (text: string): string => `$${Buffer.byteLength(text)}\r\n${text}\r\n`;
  const closedPort = async (): Promise<number> => {
    const server = await respServer(() => '+PONG\r\n');
    await server.close();
    return Number(server.url.split(':').pop());
  };

  it('reports a cluster that does not serve all its slots, from the first listed node that answers', async () => {
    const dead = await closedPort();
    const server = await respServer((command) => (command[1] === 'INFO' ? bulk('cluster_state:fail\r\ncluster_slots_assigned:10923\r\n') : bulk('')));
    try {
      const problem = await probeRedis(`redis+cluster://127.0.0.1:${dead},${server.url.slice('redis://'.length)}`, undefined);
      assert.deepEqual(problem && { kind: problem.kind, detail: 'detail' in problem ? problem.detail : '' }, { kind: 'redis-cluster-down', detail: 'cluster_state:fail, 10923 of 16384 slots assigned' });
      assert.match(explainProblem(problem!), /does not serve .*every slot needs a live master/);
    } finally {
      await server.close();
    }
  });

  it('pings every master the cluster announces, and names the one this machine cannot reach', async () => {
    const dead = await closedPort();
    const server = await respServer((command) => {
      if (command[0] === 'PING') return '+PONG\r\n';
      if (command[1] === 'INFO') return bulk('cluster_state:ok\r\ncluster_slots_assigned:16384\r\n');
      return bulk(`a1 127.0.0.1:${seedPort}@1${seedPort} myself,master - 0 0 1 connected 0-8000\nb2 127.0.0.1:${dead}@1${dead},node-b master - 0 0 2 connected 8001-16383\nc3 10.9.9.9:7000@17000 master,fail - 0 0 3 disconnected\n`);
    });
    const seedPort = Number(server.url.split(':').pop());
    try {
      const problem = await probeRedis(`redis+cluster://127.0.0.1:${seedPort}`, undefined);
      assert.equal(problem?.kind, 'redis-node-unreachable');
      assert.equal(problem && 'where' in problem && problem.where, `127.0.0.1:${dead}`, 'the live master announced at a dead address; a failed one is not pinged');
      assert.match(explainProblem(problem), /announces a master at 127\.0\.0\.1:\d+, which is unreachable from here \(ECONNREFUSED\).*cluster-announce-ip/);
    } finally {
      await server.close();
    }
  });

  it('reports a Redis without cluster support behind a redis+cluster:// address', async () => {
    const server = await respServer((command) => (command[0] === 'CLUSTER' ? '-ERR This instance has cluster support disabled\r\n' : '+PONG\r\n'));
    try {
      const problem = await probeRedis(`redis+cluster://${server.url.slice('redis://'.length)}`, undefined);
      assert.equal(problem?.kind, 'redis-not-cluster');
      assert.match(explainProblem(problem), /is not a cluster node \(ERR This instance has cluster support disabled\): use redis:\/\/host:port/);
    } finally {
      await server.close();
    }
  });

  it('reports a queue URL that is no Redis address', async () => {
    assert.equal((await probeRedis('redis://', undefined))?.kind, 'queue-url-invalid');
  });
});
