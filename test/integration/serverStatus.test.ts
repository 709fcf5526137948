import * as assert from 'node:assert/strict';
import * as net from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { createProtocolConnection, type ProtocolConnection, SocketMessageReader, SocketMessageWriter } from 'vscode-languageserver-protocol/node';
import { connectOptions, parseAddress } from '../../shared/address';
import { Handshake, PROTOCOL_VERSION, ServerStatus, SubmitTask } from '../../shared/protocol';
import { DaemonProcess } from '../fixtures/daemonProcess';

/** A client that records every server status it is sent. */
async function watch(address: string, token: string | undefined): Promise<{ connection: ProtocolConnection; statuses: ServerStatus.Params[] }> {
  const socket = net.connect(connectOptions(parseAddress(address)));
  await new Promise((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  const connection = createProtocolConnection(new SocketMessageReader(socket), new SocketMessageWriter(socket));
  const statuses: ServerStatus.Params[] = [];
  connection.onNotification(ServerStatus.type, (status: ServerStatus.Params) => {
    statuses.push(status);
  });
  connection.listen();
  if (token !== undefined) await connection.sendRequest(Handshake.type, { protocolVersion: PROTOCOL_VERSION, client: 'test', token });
  return { connection, statuses };
}

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 300 && !condition(); i++) await delay(50);
  assert.ok(condition(), `timed out waiting until ${what}`);
}

describe('daemon server status (peagen/serverStatus)', function () {
  this.timeout(40_000);

  describe('with the process sandbox', () => {
    const daemon = new DaemonProcess();
    let address: string;
    before(async () => ({ address } = await daemon.start([], { PEAGEN_EXECUTOR: 'process' })));
    after(() => daemon.stop());

    it('is sent at once after the handshake, then follows work starting and ending', async () => {
      const { connection, statuses } = await watch(address, daemon.token);
      try {
        await until(() => statuses.length > 0, 'a first status arrives');
        assert.equal(statuses[0]?.quiescent, true);
        assert.equal(statuses[0]?.running, 0);

        await connection.sendRequest(SubmitTask.type, { kind: 'sleep', payload: { ms: 1_500 } });
        await until(() => statuses.some((status) => !status.quiescent && status.running === 1), 'the status says one task runs');
        const busy = statuses.findIndex((status) => !status.quiescent);
        await until(() => statuses.slice(busy).some((status) => status.quiescent), 'the status is quiescent again');
        assert.match(statuses.at(-1)?.message ?? '', /idle/);
      } finally {
        connection.dispose();
      }
    });

    it('warns when candidates run without isolation, and says so in its message', async () => {
      const { connection, statuses } = await watch(address, daemon.token);
      try {
        await until(() => statuses.length > 0, 'a first status arrives');
        assert.equal(statuses[0]?.health, 'warning');
        assert.match(statuses[0]?.message ?? '', /process sandbox does not isolate/);
      } finally {
        connection.dispose();
      }
    });

    it('sends nothing to a connection that has not authenticated', async () => {
      const { connection, statuses } = await watch(address, undefined);
      try {
        await connection.sendRequest(SubmitTask.type, { kind: 'sleep', payload: { ms: 10 } }).catch(() => undefined);
        await delay(1_000);
        assert.deepEqual(statuses, []);
      } finally {
        connection.dispose();
      }
    });
  });
});
