/**
 * Builds the docker executor's sandbox image OFFLINE, from runtimes already on this machine
 * (no registry, no Dockerfile, no network):
 *
 *   - busybox (a static binary, Debian's `busybox-static`): `sh` and the coreutils applets
 *     (`cat`, `ls`, `sleep`, ...) as symlinks in /usr/bin;
 *   - python3: the host's interpreter (default /usr/bin/python3), its standard library
 *     (without tests, the static-library `config-*` directory and the GUI modules) and
 *     every shared library `ldd` lists for it and its extension modules;
 *   - node: the binary running this code (`process.execPath`) and its shared libraries;
 *   - /etc/passwd and /etc/group naming root and nobody (65534), CA certificates if present.
 *
 * The files are staged in a temporary directory laid out like the host (a usr-merged host
 * gets /bin -> usr/bin and friends), packed with `tar` and imported with the engine's
 * image import (`docker import`): one layer, PATH=/usr/local/bin:/usr/bin:/bin, user
 * 65534, working directory /workspace. Linux hosts only: the binaries must run in the engine's
 * kernel (a local engine on the same architecture).
 *
 * Idempotent: an image already present under the tag is kept unless `force`, or unless the
 * Node it holds is not the one this build would copy.
 */
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type Docker from 'dockerode';
import { DEFAULT_DOCKER_IMAGE } from '../docker/DockerExecutor';
import { dockerClient } from '../docker/endpoint';

export const DEFAULT_SANDBOX_IMAGE = DEFAULT_DOCKER_IMAGE;
/** Label on images this module built; its value is the build's inputs, for `image status`. */
export const SANDBOX_IMAGE_LABEL = 'org.peagen.sandbox';
const SANDBOX_PATH = '/usr/local/bin:/usr/bin:/bin';

export interface BuildImageOptions {
  /** Image reference to tag, default {@link DEFAULT_SANDBOX_IMAGE}. */
  tag?: string;
  /** Rebuild even if the tag exists (the old image is removed when nothing uses it). */
  force?: boolean;
  /** Engine client; default one for `dockerHost` / DOCKER_HOST / /var/run/docker.sock. */
  docker?: Docker;
  dockerHost?: string;
  /** Interpreter to copy; default /usr/bin/python3 (then python3 on PATH). */
  python?: string;
  /** Node binary to copy; default `process.execPath`. */
  node?: string;
  /** busybox binary to copy; default /usr/bin/busybox or /bin/busybox. */
  busybox?: string;
  /** Progress lines. */
  log?: (line: string) => void;
  /**
   * For images built on this recipe (the cluster's worker image, deploy/image/): host files or
   * directories copied to image paths, after the recipe's own files.
   */
  extraFiles?: ReadonlyArray<{ from: string; to: string }>;
  /** Image settings applied after the recipe's (a later ENV, USER, ENTRYPOINT or CMD wins). */
  extraChanges?: readonly string[];
  /** Recorded in the image's label beside the runtime versions (e.g. `{ peagen: '0.2.0' }`). */
  extraContents?: Record<string, string>;
}

export interface BuildImageResult {
  tag: string;
  id: string;
  /** False when the image was already there and nothing was built. */
  built: boolean;
  sizeBytes: number;
  seconds: number;
  /** What went in: runtime versions. */
  contents: Record<string, string>;
}

export interface ImageStatus {
  tag: string;
  present: boolean;
  id?: string;
  created?: string;
  sizeBytes?: number;
  /** The build inputs recorded by {@link buildSandboxImage}; absent on images made elsewhere. */
  contents?: Record<string, string>;
}

export class ImageBuildError extends Error {
  override name = 'ImageBuildError';
}

/** Whether `tag` exists in the engine, and what it holds. Throws only if the engine is unreachable. */
export async function sandboxImageStatus(options: { tag?: string; docker?: Docker; dockerHost?: string } = {}): Promise<ImageStatus> {
  const tag = options.tag ?? DEFAULT_SANDBOX_IMAGE;
  const docker = options.docker ?? (await dockerClient(options.dockerHost));
  try {
    const info = await docker.getImage(tag).inspect();
    const label = info.Config?.Labels?.[SANDBOX_IMAGE_LABEL];
    let contents: Record<string, string> | undefined;
    try {
      contents = label ? (JSON.parse(label) as Record<string, string>) : undefined;
    } catch {
      contents = undefined;
    }
    return { tag, present: true, id: info.Id, created: info.Created, sizeBytes: info.Size, ...(contents && { contents }) };
  } catch (error) {
    if ((error as { statusCode?: number }).statusCode === 404) return { tag, present: false };
    throw error;
  }
}

export async function buildSandboxImage(options: BuildImageOptions = {}): Promise<BuildImageResult> {
  const started = Date.now();
  const tag = options.tag ?? DEFAULT_SANDBOX_IMAGE;
  const log = options.log ?? (() => {});
  const docker = options.docker ?? (await dockerClient(options.dockerHost));
  const before = await sandboxImageStatus({ tag, docker });
  // An image whose Node is not the one this build would copy (the host's Node was upgraded
  // since) is rebuilt: kept, it would judge JavaScript on the old Node.
  const node = options.node ?? process.execPath;
  const sameNode = before.contents?.node === undefined || before.contents.node === firstLine(run(node, ['--version']).stdout);
  if (before.present && !options.force && sameNode) {
    return { tag, id: before.id ?? '', built: false, sizeBytes: before.sizeBytes ?? 0, seconds: (Date.now() - started) / 1000, contents: before.contents ?? {} };
  }
  if (process.platform !== 'linux') {
    throw new ImageBuildError(`the sandbox image is built from this machine's Linux binaries; on ${process.platform} build it on a Linux host and push it to a registry`);
  }

  const stage = fs.mkdtempSync(path.join(os.tmpdir(), 'peagen-image-'));
  try {
    const rootfs = new RootfsStage(path.join(stage, 'rootfs'));
    const contents: Record<string, string> = {};

    const busybox = options.busybox ?? firstExisting(['/usr/bin/busybox', '/bin/busybox']);
    if (!busybox) throw new ImageBuildError('busybox is missing: install it (Debian: apt-get install -y busybox-static)');
    contents.busybox = /BusyBox (v\S+)/.exec(run(busybox, []).stdout)?.[1] ?? 'unknown';
    log(`busybox: ${busybox} (${contents.busybox})`);
    rootfs.addBinary(busybox, '/usr/bin/busybox');
    for (const applet of run(busybox, ['--list']).stdout.split('\n')) {
      const name = applet.trim();
      if (/^[\w.[-]+$/.test(name) && name !== 'busybox') rootfs.link(`/usr/bin/${name}`, 'busybox');
    }

    const python = options.python ?? firstExisting(['/usr/bin/python3']) ?? which('python3');
    if (!python) throw new ImageBuildError('python3 is missing: install it (Debian: apt-get install -y python3)');
    const pythonInfo = JSON.parse(
      run(python, ['-c', 'import json, sys, sysconfig; print(json.dumps({"version": sys.version.split()[0], "stdlib": sysconfig.get_paths()["stdlib"], "dynload": sysconfig.get_paths()["platstdlib"] + "/lib-dynload"}))']).stdout,
    ) as { version: string; stdlib: string; dynload: string };
    contents.python = pythonInfo.version;
    const pythonReal = fs.realpathSync(python);
    log(`python: ${pythonReal} ${pythonInfo.version}, stdlib ${pythonInfo.stdlib}`);
    rootfs.addBinary(pythonReal, `/usr/bin/${path.basename(pythonReal)}`);
    if (path.basename(pythonReal) !== 'python3') rootfs.link('/usr/bin/python3', path.basename(pythonReal));
    rootfs.link('/usr/bin/python', 'python3');
    rootfs.addTree(pythonInfo.stdlib, (relative) => !STDLIB_SKIP.some((pattern) => pattern.test(relative)));
    if (fs.existsSync(pythonInfo.dynload)) {
      for (const module of fs.readdirSync(pythonInfo.dynload).filter((name) => name.endsWith('.so'))) rootfs.addLibraries(path.join(pythonInfo.dynload, module));
    }

    contents.node = firstLine(run(node, ['--version']).stdout);
    log(`node: ${node} ${contents.node}`);
    rootfs.addBinary(fs.realpathSync(node), '/usr/bin/node');

    rootfs.writeFile('/etc/passwd', 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n');
    rootfs.writeFile('/etc/group', 'root:x:0:\nnogroup:x:65534:\n');
    rootfs.writeFile('/etc/nsswitch.conf', 'passwd: files\ngroup: files\nhosts: files dns\n');
    for (const certs of ['/etc/ssl/certs/ca-certificates.crt']) if (fs.existsSync(certs)) rootfs.copyFile(certs, certs);
    for (const dir of ['/tmp', '/workspace', '/home/sandbox', '/proc', '/sys', '/dev', '/root', '/usr/local/bin']) rootfs.mkdir(dir);
    fs.chmodSync(rootfs.host('/tmp'), 0o1777);
    for (const { from, to } of options.extraFiles ?? []) {
      if (!fs.existsSync(from)) throw new ImageBuildError(`${from} is missing (to be copied to ${to} in the image)`);
      log(`adding ${from} as ${to}`);
      rootfs.copyPath(from, to);
    }
    Object.assign(contents, options.extraContents);

    log(`staged ${rootfs.files} files (${Math.round(rootfs.bytes / 1e6)} MB); importing as ${tag}`);
    const id = await importRootfs(docker, rootfs.root, tag, contents, options.extraChanges ?? []);
    if (before.present && before.id && before.id !== id) {
      // The previous build is now untagged; drop it unless a container still uses it.
      await docker
        .getImage(before.id)
        .remove()
        .catch(() => undefined);
    }
    const after = await sandboxImageStatus({ tag, docker });
    const seconds = (Date.now() - started) / 1000;
    log(`built ${tag} (${id.slice(7, 19)}, ${Math.round((after.sizeBytes ?? 0) / 1e6)} MB) in ${seconds.toFixed(1)} s`);
    return { tag, id, built: true, sizeBytes: after.sizeBytes ?? 0, seconds, contents };
  } finally {
    fs.rmSync(stage, { recursive: true, force: true });
  }
}

/** Parts of the standard library a sandbox never needs (relative to the stdlib directory). */
const STDLIB_SKIP = [/^test(\/|$)/, /^config-[^/]*(\/|$)/, /^idlelib(\/|$)/, /^tkinter(\/|$)/, /^turtledemo(\/|$)/, /^lib2to3\/tests(\/|$)/, /(^|\/)__pycache__\/.*\.opt-[12]\.pyc$/];

async function importRootfs(docker: Docker, root: string, tag: string, contents: Record<string, string>, extraChanges: readonly string[]): Promise<string> {
  const { repo, tag: version } = splitReference(tag);
  const tar = spawn('tar', ['--numeric-owner', '--owner=0', '--group=0', '-C', root, '-cf', '-', '.'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let tarError = '';
  tar.stderr.on('data', (chunk: Buffer) => (tarError += chunk.toString()));
  const tarDone = new Promise<number | null>((resolve, reject) => {
    tar.once('error', (error) => reject(new ImageBuildError(`cannot run tar: ${error.message}`)));
    tar.once('close', resolve);
  });
  const progress = await docker.importImage(tar.stdout, {
    repo,
    tag: version,
    changes: [
      `ENV PATH=${SANDBOX_PATH}`,
      'ENV LANG=C.UTF-8',
      'USER 65534:65534',
      'WORKDIR /workspace',
      'CMD ["sh"]',
      `LABEL ${SANDBOX_IMAGE_LABEL}=${JSON.stringify(JSON.stringify(contents))}`,
      ...extraChanges,
    ],
  });
  const events = await new Promise<Array<{ status?: string; error?: string; errorDetail?: { message?: string } }>>((resolve, reject) =>
    docker.modem.followProgress(progress, (error: Error | null, output: Array<{ status?: string; error?: string }>) => (error ? reject(error) : resolve(output))),
  );
  const code = await tarDone;
  if (code !== 0) throw new ImageBuildError(`tar failed (exit ${code}): ${tarError.trim()}`);
  const failure = events.find((event) => event.error);
  if (failure) throw new ImageBuildError(`the engine refused the image: ${failure.errorDetail?.message ?? failure.error}`);
  const id = [...events].reverse().find((event) => event.status?.startsWith('sha256:'))?.status;
  if (!id) throw new ImageBuildError(`the engine did not report an image id: ${JSON.stringify(events).slice(0, 500)}`);
  return id;
}

/** `registry:5000/name:tag` -> { repo: 'registry:5000/name', tag: 'tag' } (default tag `latest`). */
export function splitReference(reference: string): { repo: string; tag: string } {
  const slash = reference.lastIndexOf('/');
  const colon = reference.lastIndexOf(':');
  if (colon > slash) return { repo: reference.slice(0, colon), tag: reference.slice(colon + 1) };
  return { repo: reference, tag: 'latest' };
}

/**
 * A root filesystem being assembled in a host directory. Paths are image paths (`/usr/bin/x`);
 * each is stored where the host's own directory symlinks lead (on a usr-merged host /lib/x
 * lands in /usr/lib/x and the image gets the same /lib -> usr/lib link). Nothing is ever
 * written through a symlink, so an absolute link cannot reach the host's directories.
 */
class RootfsStage {
  files = 0;
  bytes = 0;
  private readonly libraries = new Set<string>();

  constructor(readonly root: string) {
    fs.mkdirSync(root, { recursive: true });
    fs.chmodSync(root, 0o755);
    for (const dir of ['bin', 'sbin', 'lib', 'lib32', 'lib64', 'libx32']) {
      const hostPath = `/${dir}`;
      let stat: fs.Stats;
      try {
        stat = fs.lstatSync(hostPath);
      } catch {
        continue;
      }
      if (!stat.isSymbolicLink()) continue;
      const target = fs.readlinkSync(hostPath);
      fs.symlinkSync(target, path.join(root, dir));
      // The link's target exists in the image too (an empty /usr/sbin rather than a dangling /sbin).
      fs.mkdirSync(path.join(root, path.posix.isAbsolute(target) ? target : path.posix.join('/', target)), { recursive: true, mode: 0o755 });
    }
  }

  /** The staging path of image path `imagePath`, with the host's directory links resolved. */
  host(imagePath: string): string {
    const dir = path.posix.dirname(imagePath);
    let resolved = dir;
    try {
      resolved = fs.realpathSync(dir);
    } catch {
      // not on the host: keep it as it is
    }
    return path.join(this.root, resolved, path.posix.basename(imagePath));
  }

  mkdir(imagePath: string): void {
    fs.mkdirSync(this.host(imagePath), { recursive: true, mode: 0o755 });
  }

  writeFile(imagePath: string, content: string): void {
    const target = this.host(imagePath);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, content, { mode: 0o644 });
    this.files += 1;
  }

  /** Copies the file `source` (symlinks followed) to `imagePath`. */
  copyFile(source: string, imagePath: string): void {
    const target = this.host(imagePath);
    if (fs.existsSync(target)) return;
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.copyFileSync(source, target);
    fs.chmodSync(target, fs.statSync(source).mode & 0o7777 & ~0o6000);
    this.files += 1;
    this.bytes += fs.statSync(target).size;
  }

  link(imagePath: string, target: string): void {
    const at = this.host(imagePath);
    if (fs.existsSync(at) || isLink(at)) return;
    fs.mkdirSync(path.dirname(at), { recursive: true });
    fs.symlinkSync(target, at);
  }

  /** An executable and the shared libraries (and ELF interpreter) it needs. */
  addBinary(source: string, imagePath: string): void {
    this.copyFile(source, imagePath);
    this.addLibraries(source);
  }

  addLibraries(elf: string): void {
    for (const library of sharedLibraries(elf)) {
      if (this.libraries.has(library)) continue;
      this.libraries.add(library);
      this.copyFile(library, library);
    }
  }

  /**
   * A host file or directory tree (symlinks followed) at image path `imagePath`, without
   * byte-code caches and local run output (`.peagen/`), which are never image content.
   */
  copyPath(source: string, imagePath: string): void {
    if (!fs.statSync(source).isDirectory()) return this.copyFile(source, imagePath);
    for (const entry of fs.readdirSync(source)) {
      if (entry !== '__pycache__' && entry !== '.peagen') this.copyPath(path.join(source, entry), path.posix.join(imagePath, entry));
    }
  }

  /** A directory tree at the same path, symlinks followed (dangling ones skipped). */
  addTree(source: string, include: (relative: string) => boolean): void {
    const walk = (dir: string): void => {
      for (const entry of fs.readdirSync(dir)) {
        const full = path.join(dir, entry);
        const relative = path.relative(source, full);
        if (!include(relative)) continue;
        let stat: fs.Stats;
        try {
          stat = fs.statSync(full);
        } catch {
          continue;
        }
        if (stat.isDirectory()) walk(full);
        else if (stat.isFile()) this.copyFile(full, full);
      }
    };
    this.mkdir(path.join(source, '.'));
    walk(source);
  }
}

function isLink(file: string): boolean {
  try {
    return fs.lstatSync(file).isSymbolicLink();
  } catch {
    return false;
  }
}

/** Absolute paths `ldd` resolves for `elf` (none for a static binary). */
function sharedLibraries(elf: string): string[] {
  const result = spawnSync('ldd', [elf], { encoding: 'utf8' });
  if (result.error) throw new ImageBuildError(`cannot run ldd (needed to find ${elf}'s libraries): ${result.error.message}`);
  const found: string[] = [];
  for (const line of (result.stdout ?? '').split('\n')) {
    if (/not found/.test(line)) throw new ImageBuildError(`${elf} needs a library that is missing on this host: ${line.trim()}`);
    const match = /(?:=>\s*)?(\/\S+)\s+\(0x[0-9a-f]+\)/.exec(line);
    if (match?.[1]) found.push(match[1]);
  }
  return found;
}

function run(command: string, args: string[]): { stdout: string } {
  const result = spawnSync(command, args, { encoding: 'utf8', env: { PATH: SANDBOX_PATH, LANG: 'C.UTF-8' } });
  if (result.error) throw new ImageBuildError(`cannot run ${command}: ${result.error.message}`);
  return { stdout: `${result.stdout ?? ''}${result.status === 0 ? '' : result.stderr ?? ''}` };
}

function firstLine(text: string): string {
  return text.split('\n')[0]?.trim() ?? '';
}

function firstExisting(candidates: string[]): string | undefined {
  return candidates.find((candidate) => fs.existsSync(candidate));
}

function which(command: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(':')) {
    const candidate = path.join(dir, command);
    if (dir && fs.existsSync(candidate)) return candidate;
  }
  return undefined;
}
