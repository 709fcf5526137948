// The friendly setting of bench:evolve (the bench before the honest one, kept as it was):
// examples/bad_sort evolved by `peagen evolve run --sync --workers W --minutes M` against the
// scripted badSortResponder (60% improving answers, repairs that fix) behind the local OpenAI
// wire server, 2 s ± 0.5 s latency per call, 3% of calls answered 429 (retry-after 1 s) and 2%
// answered 500 (after the latency, like a server that gave up). Its target: >= 25x within 15
// minutes with 4 workers; it must not get worse than it was.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function friendlySetting(REPO) {
  const require = createRequire(import.meta.url);
  const { startOpenAiServer } = require(join(REPO, 'out', 'test', 'fixtures', 'llmWireServers.js'));
  const { badSortResponder } = require(join(REPO, 'out', 'test', 'fixtures', 'badSortMoves.js'));
  const { Rng } = require(join(REPO, 'out', 'daemon', 'evolution', 'rng.js'));
  const SERVER_ERROR_PROBABILITY = 0.02;
  const MODEL = 'gpt-4o-mini';

  /** One run; resolves with its report.json (and the server's counts) or throws. */
  async function friendlyRun({ seed, minutes, workers, keep }) {
    // The server's own randomness (latency jitter, 429s, 500s) is seeded too; the order in which
    // requests arrive still depends on timing, so two runs with one seed are alike, not identical.
    const serverRng = new Rng(seed * 7919 + 1);
    const scripted = badSortResponder({ seed });
    let serverErrors = 0;
    const server = await startOpenAiServer({
      responder: (request) => {
        if (serverRng.next() < SERVER_ERROR_PROBABILITY) {
          serverErrors++;
          // The wire server answers a responder that throws with HTTP 500.
          throw new Error('scripted overload');
        }
        return scripted(request);
      },
      latencyMs: { meanMs: 2000, jitterMs: 500 },
      rateLimitProbability: 0.03,
      rateLimitRetryAfterSeconds: 1,
      random: () => serverRng.next(),
    });
    const project = mkdtempSync(join(tmpdir(), 'peagen-bench-evolve-'));
    const env = { ...process.env };
    for (const name of Object.keys(env)) if (/^(OPENAI|ANTHROPIC|PEAGEN)_/.test(name)) delete env[name];
    Object.assign(env, { OPENAI_BASE_URL: server.baseUrl, OPENAI_API_KEY: 'test', OPENAI_MODEL: MODEL, PEAGEN_HOME: join(project, 'home') });
    const argv = [join(REPO, 'dist', 'cli.js'), '--json', 'evolve', 'run', join(REPO, 'examples', 'bad_sort'), '--sync', '--workers', String(workers), '--minutes', String(minutes), '--seed', String(seed), '--project', project];
    console.log(`  friendly seed ${seed}: ${workers} workers, ${minutes} min; scripted LLM at ${server.baseUrl} (2 s ± 0.5 s, 3% 429, ${SERVER_ERROR_PROBABILITY * 100}% 500); project ${project}`);

    const started = Date.now();
    const child = spawn(process.execPath, argv, { cwd: project, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk) => {
      for (const line of chunk.split('\n')) if (line.trim() !== '') process.stderr.write(`    [peagen] ${line}\n`);
    });
    // Once a minute: what the server saw and what the run's last checkpoint says.
    const ticker = setInterval(() => {
      const minute = ((Date.now() - started) / 60_000).toFixed(1);
      const answered = server.requests.map((request) => request.answered);
      const count = (status) => answered.filter((value) => value === status).length;
      process.stderr.write(`    [bench] ${minute} min: ${server.requests.length} LLM requests (${count(200)} answered, ${count(429)} x 429, ${serverErrors} x 500)${checkpointSummary(project)}\n`);
    }, 60_000);
    const exitCode = await new Promise((done) => child.once('exit', (code, signal) => done(code ?? (signal ? 128 : 1))));
    clearInterval(ticker);
    const served = server.requests;
    await server.close();
    let report;
    try {
      report = JSON.parse(stdout);
    } catch {
      report = undefined;
    }
    if (exitCode !== 0 || !report) throw new Error(`the friendly run failed (exit ${exitCode}); stdout: ${stdout.slice(0, 2000) || '(empty)'}; its files are kept in ${project}`);
    if (!keep) rmSync(project, { recursive: true, force: true });
    const count = (status) => served.filter((request) => request.answered === status).length;
    return { report, server: { requests: served.length, answered: count(200), rateLimited: count(429), errors: serverErrors } };
  }

  function checkpointSummary(project) {
    try {
      const runs = join(project, '.peagen', 'runs');
      const [run] = readdirSync(runs);
      const file = join(runs, run, 'checkpoint.json');
      if (!existsSync(file)) return '';
      const { data } = JSON.parse(readFileSync(file, 'utf8'));
      const history = data.state.bestHistory;
      const seed = history[0]?.objective;
      const best = history.at(-1)?.objective;
      return `; checkpoint: ${data.state.counters.evaluations} evaluations, best ${best?.toFixed(3)} (${seed ? (best / seed).toFixed(1) : '?'}x)`;
    } catch {
      return '';
    }
  }

  return { friendlyRun };
}
