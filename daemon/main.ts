/**
 * Entry of dist/daemon.js. Spawned by the extension (`--node-ipc`), by `peagen daemon start`
 * (`--listen`), or as a one-shot worker child (PEAGEN_ONE_SHOT set).
 */
import { parseArgs } from 'node:util';
import { stateDir } from '../shared/discovery';
import { findConfigFile, loadConfig } from './config';
import { DaemonAlreadyRunningError, startDaemon } from './Daemon';
import { shutdownTracing, startTracing } from './observability/tracing';
import { isOneShotChild } from './fabric/worker/oneShotEnv';

// Once the reader of stderr is gone (the editor died), a write fails with EPIPE. Logging
// must never throw: a failed log line would become an uncaught error, logged again, forever.
process.stderr.on('error', () => {});

function log(line: string): void {
  try {
    process.stderr.write(`${new Date().toISOString()} ${line}\n`);
  } catch {
    // Nowhere left to write to.
  }
}

async function main(): Promise<void> {
  if (isOneShotChild()) {
    (await import('./oneShotChild')).startOneShotChild();
    return;
  }
  const { values } = parseArgs({
    options: {
      'node-ipc': { type: 'boolean' },
      stdio: { type: 'boolean' },
      listen: { type: 'string' },
      'no-listen': { type: 'boolean' },
      'no-workers': { type: 'boolean' },
      'metrics-listen': { type: 'string' },
      config: { type: 'string' },
      clientProcessId: { type: 'string' },
    },
    strict: false,
  });
  // Tests shorten the handshake deadline of socket clients; nobody else needs to.
  const authTimeoutMs = Number(process.env.PEAGEN_DAEMON_AUTH_TIMEOUT_MS) || undefined;
  const clientPid = typeof values.clientProcessId === 'string' ? Number(values.clientProcessId) : undefined;
  const configFile = typeof values.config === 'string' ? values.config : findConfigFile();
  const loaded = loadConfig(configFile);
  const config = values['no-workers'] ? { ...loaded, daemon: { ...loaded.daemon, workers: false } } : loaded;
  // A stray error in one task or connection must not take the daemon and its queue down.
  process.on('uncaughtException', (error) => log(`unexpected error (daemon keeps running): ${error.stack ?? error}`));
  process.on('unhandledRejection', (error) => log(`unhandled rejection (daemon keeps running): ${String(error)}`));

  await startTracing(config.observability, 'peagen-daemon', { log });
  const daemon = await startDaemon({
    config,
    stateDir: stateDir(),
    ...(values['node-ipc'] ? { pipe: 'ipc' as const } : values.stdio ? { pipe: 'stdio' as const } : {}),
    ...(values['no-listen'] ? { listen: false as const } : typeof values.listen === 'string' ? { listen: values.listen } : {}),
    // The script this process was started as (dist/daemon.js, whose code is in a chunk that
    // __filename would name): its one-shot children show as dist/daemon.js like itself.
    oneShotEntry: process.argv[1]!,
    ...(typeof values['metrics-listen'] === 'string' && { metricsListen: values['metrics-listen'] }),
    ...(authTimeoutMs !== undefined && { authTimeoutMs }),
    ...(clientPid !== undefined && { editorPid: clientPid }),
    log,
  });
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => void daemon.stop(signal === 'SIGTERM'));
  await daemon.stopped;
  await shutdownTracing();
  process.exit(0);
}

main().catch((error: unknown) => {
  // Not a failure: what was asked for (a daemon for this state directory) is there.
  if (error instanceof DaemonAlreadyRunningError) {
    log(`not starting: ${error.message} and holds ${error.stateDir}`);
    process.exit(0);
  }
  log(`daemon failed to start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(2);
});
