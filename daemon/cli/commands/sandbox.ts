/**
 * `peagen sandbox image build|status`: the docker executor's image, built offline from this
 * machine's busybox, python3 and node (see daemon/sandbox/image/buildImage.ts).
 * The engine is `sandbox.dockerHost` / DOCKER_HOST, else /var/run/docker.sock; the tag is
 * --tag, else `sandbox.image` in peagen.json, else peagen-sandbox:latest.
 */
import type { Command } from 'commander';
import { dockerClient, dockerEndpoint, explainEngineError } from '../../sandbox/docker/endpoint';
import { buildSandboxImage, DEFAULT_SANDBOX_IMAGE, ImageBuildError, type ImageStatus, sandboxImageStatus } from '../../sandbox/image/buildImage';
import { CliContext, CliError, ExitCode } from '../context';

interface ImageOptions {
  tag?: string;
  force?: boolean;
}

function settings(ctx: CliContext, options: ImageOptions): { tag: string; dockerHost: string | undefined } {
  const sandbox = ctx.config.sandbox;
  return { tag: options.tag ?? sandbox.image, dockerHost: sandbox.dockerHost };
}

/** Engine and build failures as CLI errors that say what to do. */
function cliError(error: unknown, dockerHost: string | undefined): CliError {
  if (error instanceof CliError) return error;
  if (error instanceof ImageBuildError) return new CliError(error.message, ExitCode.Failed);
  return new CliError(explainEngineError(error, dockerEndpoint(dockerHost).display), ExitCode.Failed);
}

function describeStatus(status: ImageStatus): string {
  if (!status.present) return `${status.tag}: missing — run \`peagen sandbox image build\``;
  const contents = status.contents ? Object.entries(status.contents).map(([name, version]) => `${name} ${version.split(' (')[0]}`).join(', ') : 'not built by peagen';
  return `${status.tag}: present (${status.id?.slice(7, 19)}, ${Math.round((status.sizeBytes ?? 0) / 1e6)} MB, created ${status.created}) — ${contents}`;
}

export function registerSandboxCommands(program: Command): void {
  const sandbox = program.command('sandbox').description('the sandboxes candidates run in');
  const image = sandbox.command('image').description("the docker executor's sandbox image");

  image
    .command('build')
    .description("build the sandbox image offline from this machine's busybox, python3 and node (skipped if present)")
    .option('--tag <tag>', `image tag (default: sandbox.image in peagen.json, else ${DEFAULT_SANDBOX_IMAGE})`)
    .option('--force', 'rebuild even if the image exists')
    .action(async (options: ImageOptions, command: Command) => {
      const ctx = CliContext.of(command);
      const { tag, dockerHost } = settings(ctx, options);
      try {
        const result = await buildSandboxImage({ tag, force: options.force ?? false, docker: await dockerClient(dockerHost), log: (line) => ctx.info(line) });
        ctx.output(result, () =>
          result.built
            ? `built ${result.tag} (${result.id.slice(7, 19)}, ${Math.round(result.sizeBytes / 1e6)} MB) in ${result.seconds.toFixed(1)} s`
            : `${result.tag} is already present (${result.id.slice(7, 19)}); --force rebuilds it`,
        );
      } catch (error) {
        throw cliError(error, dockerHost);
      }
    });

  image
    .command('status')
    .description('whether the sandbox image exists, and what is in it (exit 1 if it is missing)')
    .option('--tag <tag>', `image tag (default: sandbox.image in peagen.json, else ${DEFAULT_SANDBOX_IMAGE})`)
    .action(async (options: ImageOptions, command: Command) => {
      const ctx = CliContext.of(command);
      const { tag, dockerHost } = settings(ctx, options);
      let status: ImageStatus;
      try {
        status = await sandboxImageStatus({ tag, docker: await dockerClient(dockerHost) });
      } catch (error) {
        throw cliError(error, dockerHost);
      }
      ctx.output(status, () => describeStatus(status));
      if (!status.present) process.exitCode = ExitCode.Failed;
    });
}
