/**
 * Where the Docker engine is and how to reach it. docker-modem reads the address the way the
 * docker CLI does (DOCKER_HOST: unix://, tcp:// with DOCKER_TLS_VERIFY and DOCKER_CERT_PATH,
 * ssh://; without it the default socket); an address from the configuration
 * (`sandbox.dockerHost`) is read exactly as DOCKER_HOST would be.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type Docker from 'dockerode';

export const DEFAULT_DOCKER_SOCKET = '/var/run/docker.sock';

/** How an engine address is shown to the user (errors, status). */
export function dockerEndpoint(dockerHost: string | undefined = process.env.DOCKER_HOST): { display: string } {
  const host = normalize(dockerHost) ?? `unix://${DEFAULT_DOCKER_SOCKET}`;
  return { display: host };
}

/**
 * One engine client for an address: `unix:///path/docker.sock`, a socket path, `tcp://host:port`
 * or `ssh://user@host`. Default: DOCKER_HOST, else the default socket.
 */
export async function dockerClient(dockerHost?: string): Promise<Docker> {
  // Loaded here, not with this module: a process that never talks to an engine pays nothing.
  const { Docker } = await import('./dockerode');
  const host = normalize(dockerHost);
  if (host === undefined) return new Docker();
  // docker-modem reads DOCKER_HOST (and the TLS variables) while it is constructed, and only
  // then: setting it around the synchronous construction hands it our address.
  const saved = process.env.DOCKER_HOST;
  process.env.DOCKER_HOST = host;
  try {
    return new Docker();
  } finally {
    if (saved === undefined) delete process.env.DOCKER_HOST;
    else process.env.DOCKER_HOST = saved;
  }
}

/**
 * The error an engine client would meet, when the local socket it would use does not exist:
 * found without loading dockerode. Undefined when the socket is there, or the address is not
 * a local socket (tcp://, ssh://, a Windows pipe): then only asking the engine tells.
 */
export function missingEngineSocket(dockerHost: string | undefined = process.env.DOCKER_HOST): NodeJS.ErrnoException | undefined {
  if (process.platform === 'win32') return undefined;
  const host = normalize(dockerHost);
  // docker-modem's default: Docker Desktop's socket in the home directory, else the system one.
  const sockets =
    host === undefined || host === 'unix://' ? [path.join(os.homedir(), '.docker', 'run', 'docker.sock'), DEFAULT_DOCKER_SOCKET] : host.startsWith('unix://') ? [host.slice('unix://'.length)] : [];
  if (sockets.length === 0 || sockets.some((socket) => fs.existsSync(socket))) return undefined;
  return Object.assign(new Error(`connect ENOENT ${sockets.at(-1)}`), { code: 'ENOENT' });
}

function normalize(dockerHost: string | undefined): string | undefined {
  const host = dockerHost?.trim();
  if (!host) return undefined;
  return host.startsWith('/') ? `unix://${host}` : host;
}

/** What an engine error means for the user, with what to do. */
export function explainEngineError(error: unknown, display: string): string {
  const err = error as NodeJS.ErrnoException & { statusCode?: number; json?: { message?: string } };
  if (err?.code === 'ENOENT' || err?.code === 'ECONNREFUSED') {
    return `cannot reach the Docker engine at ${display} (${err.code}): start Docker, or set DOCKER_HOST (or sandbox.dockerHost in peagen.json) to a running engine`;
  }
  if (err?.code === 'EACCES' || err?.code === 'EPERM') {
    return `permission denied on the Docker engine at ${display}: add your user to the \`docker\` group (then log in again), or set DOCKER_HOST to an engine you may use`;
  }
  if (err?.code === 'ETIMEDOUT') return `the Docker engine at ${display} does not answer (timed out): is it hung? restart it`;
  return `the Docker engine at ${display} failed: ${err?.json?.message ?? err?.message ?? String(error)}`;
}

/** The engine's own message for a failed request. */
export function engineMessage(error: unknown): string {
  return (error as { json?: { message?: string } })?.json?.message ?? (error as Error)?.message ?? String(error);
}
