// The honest setting of bench:evolve: a model that is not on our side. Each answer is drawn
// uniformly from the moves of a move table (bench/moves/*.moves.json, sim-llm's documented
// format) that apply to the program in the prompt: few improve, about half break or slow the
// program, a repair turn is answered like any other request (no fix), and the k-th request
// about one program text always gets the same answer for a seed, so repeats are common.
// The model is test/fixtures/moveTableResponder.ts behind the local OpenAI wire server, or,
// with --sim-llm, the independent sim-llm server (../shared/sim-llm/server.mjs) itself.
//
// Two arms at one call budget, same model, same seed:
//  - Peagen: `peagen --json evolve run examples/<problem> --sync --workers W --max-llm-calls N`;
//  - best-of-N: N independent calls about the seed program (no repair; as many answers per
//    call as Peagen asks for), every distinct child evaluated by `peagen eval` in a fresh
//    sandbox; the best is measured again with another seed and the lower measurement counts,
//    as Peagen confirms a best.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The sim-llm server on a move table, once it listens: { baseUrl, close() }. */
export async function startSimLlm(server, table, seed, extraArgs = []) {
  const child = spawn(process.execPath, [server, '--moves', table, '--port', '0', '--seed', String(seed), ...extraArgs], { stdio: ['ignore', 'pipe', 'pipe'] });
  const baseUrl = await new Promise((resolve, reject) => {
    let text = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      text += chunk;
      const match = /listening on (http:\/\/\S+\/v1)/.exec(text);
      if (match) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`sim-llm exited (${code}) before listening: ${text}`)));
  });
  return { baseUrl, close: async () => void child.kill('SIGTERM') };
}

export function honestSetting(REPO) {
  const require = createRequire(import.meta.url);
  const out = (...parts) => join(REPO, 'out', ...parts);
  const { startOpenAiServer } = require(out('test', 'fixtures', 'llmWireServers.js'));
  const { honestResponder, loadMoveTable, applyTableMove, moveSpans } = require(out('test', 'fixtures', 'moveTableResponder.js'));
  const { createBackends } = require(out('daemon', 'evolution', 'llm', 'createBackends.js'));
  const { loadConfig } = require(out('daemon', 'config.js'));
  const { LlmPatchMutator } = require(out('daemon', 'evolution', 'mutation', 'LlmPatchMutator.js'));
  const { loadExample } = require(out('daemon', 'evaluation', 'example.js'));
  const { mutationTaskOf } = require(out('daemon', 'evolution', 'controller', 'taskSpecs.js'));
  const { programId } = require(out('shared', 'programId.js'));
  const CLI = join(REPO, 'dist', 'cli.js');
  /** The model name the runs ask for: only its price table matters (the model is scripted). */
  const MODEL = 'gpt-4o-mini';

  const tableFile = (problem) => join(REPO, 'bench', 'moves', `${problem}.moves.json`);
  const exampleDir = (problem) => join(REPO, 'examples', problem);

  function cleanEnv(extra) {
    const env = { ...process.env };
    for (const name of Object.keys(env)) if (/^(OPENAI|ANTHROPIC|PEAGEN)_/.test(name)) delete env[name];
    return { ...env, ...extra };
  }

  /** An OpenAI-compatible model for one problem and seed: { baseUrl, close() }. */
  async function startModel(problem, seed, simLlm) {
    if (!simLlm) {
      const server = await startOpenAiServer({ responder: honestResponder({ tables: [loadMoveTable(tableFile(problem))], seed }) });
      return { baseUrl: server.baseUrl, close: () => server.close() };
    }
    return startSimLlm(simLlm, tableFile(problem), seed);
  }

  /** Runs a command to its end: { code, stdout, stderr }. */
  function run(argv, options) {
    return new Promise((resolve) => {
      const child = spawn(process.execPath, argv, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (chunk) => (stdout += chunk));
      child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
      child.once('exit', (code, signal) => resolve({ code: code ?? (signal ? 128 : 1), stdout, stderr }));
    });
  }

  /**
   * How deep into the table's main chain a program is: the index of the first chain move
   * (or a variant: an `improve` move whose id is the chain id plus one letter) that applies
   * to it; the chain's length when none does and the chain's last algorithmic move is made;
   * NaN when the program left the chain (a neutral or harmful move took away the next move's
   * text), or took a deceptive table's side branch (the REPLACE text of a move of its `side` is
   * in it). A deceptive table's fixes ("effect": "fix", the last chain moves) may apply before
   * their place and on the side branch: they count only once the chain's last other move is
   * made, or they would count as depth. A move counts as made when its REPLACE text is in the
   * program, or most of its code lines are: neutral moves made after it (a comment dropped, a
   * type annotation removed, a loop written another way) leave the chain's end a chain's end.
   */
  function chainDepth(table, code) {
    const chain = table.chain ?? [];
    const sideMoves = table.moves.filter((move) => (table.side ?? []).includes(move.id));
    if (sideMoves.some((move) => (move.blocks ?? [{ replace: move.replace }]).every((block) => code.includes(block.replace.replace(/\n+$/, ''))))) return NaN;
    const variants = (id) => table.moves.filter((move) => move.id === id || (move.kind === 'improve' && move.id.startsWith(id) && /^[A-Za-z]$/.test(move.id.slice(id.length))));
    const codeLines = new Set(code.split('\n').map((line) => line.trim()));
    const present = (text) => {
      if (code.includes(text.replace(/\n+$/, ''))) return true;
      const lines = text.split('\n').map((line) => line.trim()).filter((line) => line !== '' && !/^(#|\/\/)/.test(line));
      return lines.length > 0 && lines.filter((line) => codeLines.has(line)).length * 2 > lines.length;
    };
    const made = (id) => variants(id).some((move) => (move.blocks ?? [{ replace: move.replace }]).every((block) => present(block.replace)));
    const isFix = (id) => table.moves.some((move) => move.id === id && move.effect === 'fix');
    const lastAlgorithmic = chain.filter((id) => !isFix(id)).at(-1);
    const algorithmDone = lastAlgorithmic === undefined || made(lastAlgorithmic);
    for (let step = 0; step < chain.length; step++) {
      if (isFix(chain[step]) && !algorithmDone) continue;
      if (variants(chain[step]).some((move) => moveSpans(code, move))) return step;
    }
    // No chain move applies any more: the fixes are made too (each would have applied otherwise).
    return algorithmDone ? chain.length : NaN;
  }

  /** The end of the table's chain, applied to the seed. */
  function chainEnd(problem) {
    const table = loadMoveTable(tableFile(problem));
    const example = loadExample(exampleDir(problem));
    let code = example.seedProgram();
    for (const id of table.chain ?? []) {
      const next = applyTableMove(code, table.moves.find((move) => move.id === id));
      if (next === undefined) throw new Error(`${problem}: chain move ${id} does not apply`);
      code = next;
    }
    return { table, code };
  }

  /** One `peagen eval` of a program: its objective, or null when it failed. */
  async function evaluate(problem, code, seed, quick) {
    const dir = mkdtempSync(join(tmpdir(), 'peagen-bench-eval-'));
    try {
      const file = join(dir, loadExample(exampleDir(problem)).config.program);
      writeFileSync(file, code);
      const result = await run([CLI, '--json', 'eval', exampleDir(problem), '--program', file, '--seed', String(seed), ...(quick ? ['--quick'] : [])], { cwd: dir, env: cleanEnv({ PEAGEN_HOME: join(dir, 'home') }) });
      try {
        const report = JSON.parse(result.stdout);
        return report.correct ? report.objective : null;
      } catch {
        return null;
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  /** What the chain's end scores over the seed (see measuredAgain). */
  async function bestReachable(problem, quick) {
    return (await measuredAgain(problem, chainEnd(problem).code, quick)).overSeed;
  }

  /**
   * What a program scores over the seed and over the chain's end, measured the way the best
   * reachable is: median of `rounds` rounds, each evaluating the program, the chain's end and
   * the seed one after the other on the same inputs. A run's best is the highest of many noisy
   * measurements, so its own figure is biased upwards (the winner's curse); measured again, it
   * compares fairly. And its share of the reachable is a ratio measured within each round: the
   * reachable measured once at the start of the bench drifts with the machine (slow_fib_js
   * --quick gave 6.19x one day and 16.2x another), a ratio of two programs timed together does not.
   */
  async function measuredAgain(problem, code, quick, rounds = 3) {
    const seedCode = loadExample(exampleDir(problem)).seedProgram();
    const endCode = chainEnd(problem).code;
    const overSeed = [];
    const ofReachable = [];
    for (let round = 0; round < rounds; round++) {
      const inputs = 900 + round;
      const best = await evaluate(problem, code, inputs, quick);
      const end = code === endCode ? best : await evaluate(problem, endCode, inputs, quick);
      const seed = await evaluate(problem, seedCode, inputs, quick);
      if (best !== null && seed !== null) overSeed.push(best / seed);
      if (best !== null && end !== null) ofReachable.push(best / end);
    }
    return { overSeed: middle(overSeed), ofReachable: middle(ofReachable) };
  }

  /** The median of a few values (the upper one of an even count), or 0 for none. */
  function middle(values) {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)] ?? 0;
  }

  /** An arm's best measured again: over the seed, and its share of the reachable (none when it did not improve: the seed's share is read off the reachable). */
  async function againAsArmFigures(problem, code, quick) {
    const { overSeed, ofReachable } = await measuredAgain(problem, code, quick);
    return { measuredAgain: overSeed, ofReachable };
  }

  /** Peagen's arm: `evolve run` against the model; the figures the bench prints. */
  async function peagenArm({ problem, seed, workers, calls, quick, simLlm, keep, ablate, choices, cli = CLI }) {
    const model = await startModel(problem, seed, simLlm);
    const project = mkdtempSync(join(tmpdir(), 'peagen-bench-honest-'));
    const started = Date.now();
    try {
      if (choices !== undefined) writeFileSync(join(project, 'peagen.json'), JSON.stringify({ llm: { choices } }));
      const env = cleanEnv({ OPENAI_BASE_URL: model.baseUrl, OPENAI_API_KEY: 'bench', OPENAI_MODEL: MODEL, PEAGEN_HOME: join(project, 'home'), ...(ablate && { PEAGEN_ABLATE: ablate }) });
      const argv = [cli, '--json', 'evolve', 'run', exampleDir(problem), '--sync', '--workers', String(workers), '--max-llm-calls', String(calls), '--seed', String(seed), '--project', project, ...(quick ? ['--quick'] : [])];
      const result = await run(argv, { cwd: project, env });
      let report;
      try {
        report = JSON.parse(result.stdout);
      } catch {
        throw new Error(`${problem} seed ${seed}: the run failed (exit ${result.code}): ${result.stderr.slice(-2000)}`);
      }
      const table = loadMoveTable(tableFile(problem));
      const seedObjective = report.seed.objective;
      const bestAt = (budget) => {
        const point = report.timeline.filter((entry) => entry.llmCalls <= budget).at(-1);
        return point ? point.objective / seedObjective : 1;
      };
      const p = report.progress;
      const e = report.economics ?? {};
      const byKind = e.callsByKind ?? {};
      const share = (kind) => (p.llmCalls > 0 ? (byKind[kind]?.calls ?? 0) / p.llmCalls : 0);
      const rate = (kind) => (byKind[kind]?.calls > 0 ? byKind[kind].successes / byKind[kind].calls : undefined);
      const bestCode = report.best ? readFileSync(report.best.file, 'utf8') : loadExample(exampleDir(problem)).seedProgram();
      return {
        bestAt: Object.fromEntries([50, 100, calls].map((budget) => [budget, bestAt(budget)])),
        improvement: report.best?.improvement ?? 1,
        ...(report.best ? await againAsArmFigures(problem, bestCode, quick) : { measuredAgain: 1, ofReachable: undefined }),
        depth: chainDepth(table, bestCode),
        callsUsed: p.llmCalls / calls,
        stopReason: report.stopReason,
        exhausted: report.stopReason === 'proposals_exhausted',
        barrenShare: e.barrenCalls !== undefined && p.llmCalls > 0 ? e.barrenCalls / p.llmCalls : undefined,
        callsPerEvaluation: p.evaluations > 0 ? p.llmCalls / p.evaluations : undefined,
        formatShare: share('format'),
        formatRate: rate('format'),
        reaskShare: share('known'),
        reaskRate: rate('known'),
        repairShare: share('evaluation'),
        repairRate: rate('evaluation'),
        failingEvaluations: report.failedEvaluationShare,
        bestParent: report.parentWasBestShare,
        evaluations: p.evaluations,
        minutes: (Date.now() - started) / 60_000,
        runDir: report.runDir,
      };
    } finally {
      await model.close();
      if (!keep) rmSync(project, { recursive: true, force: true });
    }
  }

  /** The control arm: best-of-N sampling from the seed at the same call budget. */
  async function bestOfNArm({ problem, seed, workers, calls, quick, simLlm, choices }) {
    const model = await startModel(problem, seed, simLlm);
    const started = Date.now();
    try {
      const env = { OPENAI_BASE_URL: model.baseUrl, OPENAI_API_KEY: 'bench', OPENAI_MODEL: MODEL };
      const llm = loadConfig(undefined, env).llm;
      const [backend] = createBackends(llm, env);
      const mutator = new LlmPatchMutator({ backend, repairAttempts: 0, reaskAttempts: 0, choices: choices ?? llm.choices });
      const example = loadExample(exampleDir(problem));
      const seedCode = example.seedProgram();
      const request = { parent: { id: programId(seedCode), code: seedCode, objective: 1 }, inspirations: [], avoid: [], task: mutationTaskOf(example.config) };
      /** Each distinct child and the call that first proposed it. */
      const children = new Map();
      for (let call = 1; call <= calls; call++) {
        const proposal = await mutator.propose({ ...request, seed: seed * 100_003 + call });
        if (!proposal.ok) continue;
        for (const { code } of [proposal, ...(proposal.siblings ?? [])]) if (!children.has(code)) children.set(code, call);
      }
      const evalSeed = seed * 7 + 1;
      const seedObjective = await evaluate(problem, seedCode, evalSeed, quick);
      const scored = [];
      const queue = [...children];
      await Promise.all(
        Array.from({ length: workers }, async () => {
          for (let next = queue.shift(); next; next = queue.shift()) {
            const [code, call] = next;
            const objective = await evaluate(problem, code, evalSeed, quick);
            if (objective !== null) scored.push({ code, call, objective });
          }
        }),
      );
      // A would-be best is measured again (another seed); the lower measurement counts.
      const confirmed = new Map();
      const confirm = async (entry) => {
        if (!confirmed.has(entry.code)) confirmed.set(entry.code, Math.min(entry.objective, (await evaluate(problem, entry.code, evalSeed + 1, quick)) ?? 0));
        return confirmed.get(entry.code);
      };
      const bestAt = async (budget) => {
        const candidates = scored.filter((entry) => entry.call <= budget && entry.objective > seedObjective).sort((a, b) => b.objective - a.objective);
        let best = seedObjective;
        // The first few by their first measurement, each confirmed: the best confirmed counts.
        for (const entry of candidates.slice(0, 3)) best = Math.max(best, await confirm(entry));
        return best / seedObjective;
      };
      const table = loadMoveTable(tableFile(problem));
      const bestAtCalls = {};
      for (const budget of [50, 100, calls]) bestAtCalls[budget] = await bestAt(budget);
      const top = scored.sort((a, b) => (confirmed.get(b.code) ?? 0) - (confirmed.get(a.code) ?? 0))[0];
      const improved = top !== undefined && (confirmed.get(top.code) ?? 0) > seedObjective;
      return {
        bestAt: bestAtCalls,
        improvement: bestAtCalls[calls],
        ...(improved ? await againAsArmFigures(problem, top.code, quick) : { measuredAgain: 1, ofReachable: undefined }),
        depth: improved ? chainDepth(table, top.code) : 0,
        callsUsed: 1,
        callsPerEvaluation: calls / Math.max(1, children.size),
        evaluations: children.size,
        failingEvaluations: children.size > 0 ? (children.size - scored.length) / children.size : 0,
        minutes: (Date.now() - started) / 60_000,
      };
    } finally {
      await model.close();
    }
  }

  /** The seed's objective as `peagen eval` measures it: the median of `rounds` evaluations. */
  async function seedObjective(problem, quick, rounds = 3) {
    const seedCode = loadExample(exampleDir(problem)).seedProgram();
    const values = [];
    for (let round = 0; round < rounds; round++) values.push(await evaluate(problem, seedCode, 900 + round, quick));
    return middle(values.filter((value) => value !== null));
  }

  return { peagenArm, bestOfNArm, bestReachable, chainEnd, chainDepth, measuredAgain, seedObjective };
}
