/**
 * Removing a docker sandbox's host directory. Files the command made belong to uid 65534; a
 * daemon that is neither root nor 65534 cannot delete them, so a short container as 65534
 * empties the directory first.
 */
import type Docker from 'dockerode';
import type { SandboxDir } from '../sandboxDir';
import { SANDBOX_USER } from './containerSpec';

export async function removeSandboxDir(docker: Docker, image: string, dir: SandboxDir): Promise<void> {
  try {
    dir.dispose();
    return;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EACCES' && code !== 'EPERM' && code !== 'ENOTEMPTY') throw error;
  }
  const cleaner = await docker.createContainer({
    Image: image,
    Entrypoint: ['rm'],
    Cmd: ['-rf', '/sandbox/workspace', '/sandbox/home', '/sandbox/tmp', '/sandbox/mounts'],
    User: SANDBOX_USER,
    NetworkDisabled: true,
    HostConfig: { NetworkMode: 'none', CapDrop: ['ALL'], SecurityOpt: ['no-new-privileges'], ReadonlyRootfs: true, Mounts: [{ Type: 'bind', Source: dir.root, Target: '/sandbox' }] },
  });
  try {
    await cleaner.start();
    await cleaner.wait();
  } finally {
    await cleaner.remove({ force: true }).catch(() => undefined);
  }
  dir.dispose();
}
