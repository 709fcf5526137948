// The Docker engine the docker suites share, started once for a whole run of `npm test` instead
// of once per file (test/fixtures/dockerEngine.ts reuses the engine PEAGEN_TEST_DOCKER_HOST
// names and starts none of its own), with its sandbox image built once by the command users
// run (`peagen sandbox image build`). Stopped at the end of the run, and after Ctrl-C, only if
// this run started it.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MARKER } from './processes.mjs';

let started;

function node(repo, args, env = {}) {
  const environment = { ...process.env, ...env };
  // The engine outlives the run's marked processes (test/runner/processes.mjs): it is stopped by its pid.
  delete environment[MARKER];
  return spawnSync(process.execPath, args, { cwd: repo, encoding: 'utf8', env: environment, stdio: ['ignore', 'pipe', 'inherit'] });
}

/** Starts (or reuses) the private engine and builds its image; returns its DOCKER_HOST form. */
export async function startDockerEngine(repo) {
  const script = join(repo, 'scripts', 'provision', 'docker.mjs');
  const engine = node(repo, [script, 'start']);
  if (engine.status !== 0) throw new Error(`scripts/provision/docker.mjs start exited ${engine.status}`);
  const record = JSON.parse(engine.stdout.trim().split('\n').pop() ?? '{}');
  if (record.started) started = { repo, script };
  const dockerHost = `unix://${record.socket}`;
  // A home of its own, so that no peagen.json of this machine's user changes the image.
  const home = mkdtempSync(join(tmpdir(), 'peagen-test-image-'));
  try {
    const image = node(repo, [join(repo, 'dist', 'cli.js'), 'sandbox', 'image', 'build'], { DOCKER_HOST: dockerHost, PEAGEN_HOME: home });
    if (image.status !== 0) throw new Error(`peagen sandbox image build exited ${image.status}: ${image.stdout}`);
    console.log(`[fixtures] Docker engine at ${dockerHost}${record.started ? ' (started for this run)' : ' (already running)'}; ${image.stdout.trim()}`);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
  return dockerHost;
}

/** Stops the engine if this run started it. */
export async function stopDockerEngine() {
  if (!started) return;
  const { repo, script } = started;
  started = undefined;
  node(repo, [script, 'stop']);
}
