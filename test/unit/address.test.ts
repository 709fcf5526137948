import * as assert from 'node:assert/strict';
import { formatAddress, parseAddress } from '../../shared/address';

describe('daemon addresses (shared by the CLI, the daemon and the extension)', () => {
  for (const text of ['unix:/tmp/peagen/daemon.sock', 'tcp:127.0.0.1:7781', 'tcp:localhost:1', 'tcp:[::1]:7781']) {
    it(`round-trips ${text}`, () => assert.equal(formatAddress(parseAddress(text)), text));
  }

  it('parses an IPv6 loopback address into host ::1 and its port', () => {
    assert.deepEqual(parseAddress('tcp:[::1]:7781'), { kind: 'tcp', host: '::1', port: 7781 });
  });

  for (const text of ['tcp:10.0.0.1:80', 'tcp:127.0.0.1:99999', 'tcp:127.0.0.1', 'unix:', 'http://x', 'tcp:[::2]:1']) {
    it(`refuses ${text}, saying what is expected`, () => assert.throws(() => parseAddress(text), /expected unix:/));
  }
});
