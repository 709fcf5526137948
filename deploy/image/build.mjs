#!/usr/bin/env node
// The cluster's worker image (also the daemon's), built OFFLINE with the sandbox image's
// recipe (daemon/sandbox/image/buildImage.ts: this machine's busybox, python3 and node, no
// registry, no Dockerfile) plus Peagen itself: the bundles, the harness library, the prompt
// templates and the examples, at the image paths deploy/image/worker-image.json names.
// The manifests in deploy/kubernetes/ run exactly this tag (a unit test checks it).
//
// Usage (from the repository root, after `node scripts/build.mjs --production`):
//   node deploy/image/build.mjs [--tag TAG] [--force] [--save FILE.tar]
//   --tag   image reference (default peagen-worker:<package.json version>)
//   --force rebuild even if the tag exists
//   --save  also write the image as a tar archive (`docker save` format) for nodes that have
//           no registry: `kind load image-archive FILE`, `k3s ctr images import FILE`, ...
// The engine is DOCKER_HOST, else /var/run/docker.sock.
import { createWriteStream, existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const recipe = JSON.parse(readFileSync(join(root, 'deploy', 'image', 'worker-image.json'), 'utf8'));
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

/** The tag the manifests run: `<repository>:<package version>`. */
function workerImageTag() {
  return `${recipe.repository}:${version}`;
}

async function main() {
  const { values } = parseArgs({ options: { tag: { type: 'string' }, force: { type: 'boolean' }, save: { type: 'string' } } });
  const compiled = join(root, 'out', 'daemon', 'sandbox', 'image', 'buildImage.js');
  const missing = [compiled, ...recipe.files.map((file) => join(root, file.from))].filter((file) => !existsSync(file));
  if (missing.length > 0) throw new Error(`missing ${missing.join(', ')}: run \`node scripts/build.mjs --production\` first`);
  const { buildSandboxImage } = createRequire(import.meta.url)(compiled);
  const { dockerClient } = createRequire(import.meta.url)(join(root, 'out', 'daemon', 'sandbox', 'docker', 'endpoint.js'));
  const docker = dockerClient(undefined);
  const tag = values.tag ?? workerImageTag();
  const result = await buildSandboxImage({
    tag,
    force: values.force ?? false,
    docker,
    log: (line) => process.stderr.write(`${line}\n`),
    extraFiles: recipe.files.map((file) => ({ from: join(root, file.from), to: file.to })),
    // The recipe's user (65534) and working directory stay; the entrypoint is the CLI.
    extraChanges: [`ENTRYPOINT ["node", "${recipe.cli}"]`, 'CMD ["worker", "start"]', `LABEL org.opencontainers.image.version=${version}`],
    extraContents: { peagen: version },
  });
  process.stderr.write(result.built ? `built ${tag} in ${result.seconds.toFixed(1)} s (${Math.round(result.sizeBytes / 1e6)} MB)\n` : `${tag} is already present; --force rebuilds it\n`);
  if (values.save) {
    await pipeline(await docker.getImage(tag).get(), createWriteStream(values.save));
    process.stderr.write(`saved ${tag} to ${values.save}\n`);
  }
  process.stdout.write(`${JSON.stringify({ tag, id: result.id, built: result.built, sizeBytes: result.sizeBytes })}\n`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error) => {
    process.stderr.write(`deploy/image/build.mjs: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
