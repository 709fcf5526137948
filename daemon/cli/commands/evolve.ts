/**
 * `peagen evolve run|step|list|show|best|apply|replay|merge`: evolutionary search as work on the task
 * fabric. The controller runs here; its mutate and evaluate tasks run on the daemon's
 * workers when a daemon runs (and --sync is not given), else on an embedded engine.
 */
import { unbundleProgram } from '../../../shared/programFiles';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ErrorCodes, ResponseError } from 'vscode-languageserver-protocol/node';
import { StartRun, StopRun } from '../../../shared/protocol';
import { MAX_EVAL_TIMEOUT_MS } from '../../../shared/payloads';
import { readLiveRecord } from '../../../shared/discovery';
import type { Command } from 'commander';
import type { RunProgress } from '../../../shared/evolution';
import { evolutionRunOf, mutateSlotsOf, workersWithinLimit } from '../../usecases/startRun';
import { type PreparedRun, prepareRun, type RunRequest, RunSetupError } from '../../evolution/controller/prepareRun';
import { type MergeResult, MergeRefused, mergeRuns } from '../../evolution/controller/mergeRuns';
import { replayRun } from '../../evolution/controller/replay';
import { runTaskKinds } from '../../evolution/controller/taskSpecs';
import { activePlugins } from '../../plugins/activePlugins';
import { readReport, type RunReport } from '../../evolution/controller/report';
import { reasonsLine } from '../../evolution/controller/failureReasons';
import { offlineAdviceText, offlineFoundNothing } from '../../evolution/controller/modelAdvice';
import { objectiveValue, seedComparison, shortComparison, type ObjectiveTerms } from '../../../shared/objectiveText';
import { confidenceText, confirmationLine, isConfirmedGain } from '../../../shared/gainText';
import type { RunManifest, StopConditions } from '../../../shared/runManifest';
import { checkedBestFolder, recordedBest } from '../../evolution/controller/recordedBest';
import { DamagedRunError, LATEST_RUN, RunDir, RUNS_DIR } from '../../evolution/controller/runDir';
import { type AppliedFile, type ApplyPlan, ApplyRefused, NothingToApply, planApply, writeApply } from '../../usecases/applyRun';
import { SelectionJobError } from '../../usecases/selectionJob';
import { RunBusyError } from '../../evolution/controller/runLock';
import { readJournal } from '../../evolution/evodb/journal';
import { SELECTOR_NAMES } from '../../evolution/selection/createSelector';
import { DEFAULT_REDUCE_BUDGET } from '../../evolution/reduce/reduceBest';
import { loadExample } from '../../evaluation/example';
import { CliContext, CliError, ExitCode, parsePositiveInt } from '../context';
import { noRunsHint } from '../noRunsHint';
import { ProgressDisplay } from '../runProgress';
import { interruptSignal, openFabric } from '../runFabric';
import { describeEnvironmentUse } from '../../evaluation/environment/environmentAccess';

interface RunFlags {
  generations?: number;
  evaluations?: number;
  minutes?: number;
  target?: number;
  patience?: number;
  spendAll?: boolean;
  budgetTokens?: number;
  budgetUsd?: number;
  maxLlmCalls?: number;
  workers?: number;
  children?: number;
  selector?: string;
  mutator?: string;
  seed?: number;
  islands?: number;
  quick?: boolean;
  resume?: string;
  reduceBudget?: number;
  evalTimeout?: number;
  confirmPairs?: number;
  sync?: boolean;
  project?: string;
}

const DEFAULT_STOP: StopConditions = { generations: 120, wallMs: 10 * 60_000 };

/** A count that must be at least 1 (0 workers would wait forever; 0 generations is no run). */
function atLeastOne(name: string) {
  return parsePositiveInt(name, 1);
}

function positiveNumber(name: string) {
  return (value: string): number => {
    const parsed = Number(value);
    if (!Number.isFinite(parsed) || parsed <= 0) throw new CliError(`${name} must be a positive number (got "${value}")`, ExitCode.Usage);
    return parsed;
  };
}

/** `--eval-timeout <seconds>`: in ms, at most the hour a worker's sandbox allows by default. */
function evalTimeoutMs(value: string): number {
  const seconds = Number(value);
  const ms = Math.round(seconds * 1000);
  if (value.trim() === '' || !Number.isFinite(seconds) || ms < 1) throw new CliError(`--eval-timeout must be a positive number of seconds (got "${value}")`, ExitCode.Usage);
  if (ms > MAX_EVAL_TIMEOUT_MS) throw new CliError(`--eval-timeout must be at most ${MAX_EVAL_TIMEOUT_MS / 1000} seconds (got "${value}"), the longest a worker's sandbox allows by default`, ExitCode.Usage);
  return ms;
}

function finiteNumber(name: string) {
  return (value: string): number => {
    const parsed = Number(value);
    if (!Number.isFinite(parsed)) throw new CliError(`${name} must be a number (got "${value}")`, ExitCode.Usage);
    return parsed;
  };
}

function stopConditions(flags: RunFlags): StopConditions {
  return {
    ...(flags.generations !== undefined && { generations: flags.generations }),
    ...(flags.evaluations !== undefined && { evaluations: flags.evaluations }),
    ...(flags.minutes !== undefined && { wallMs: Math.round(flags.minutes * 60_000) }),
    ...(flags.target !== undefined && { target: flags.target }),
    ...(flags.patience !== undefined && { noImprovement: flags.patience }),
    ...(flags.budgetTokens !== undefined && { budgetTokens: flags.budgetTokens }),
    ...(flags.budgetUsd !== undefined && { budgetUsd: flags.budgetUsd }),
    ...(flags.maxLlmCalls !== undefined && { maxLlmCalls: flags.maxLlmCalls }),
    ...(flags.spendAll && { spendAll: true }),
  };
}

function addRunOptions(command: Command): Command {
  return command
    .option('--workers <n>', 'evaluations in flight at once (default: the configured worker concurrency)', atLeastOne('--workers'))
    .option('--children <n>', 'children per generation (default: --workers)', atLeastOne('--children'))
    .option('--selector <name>', `parent selector: ${SELECTOR_NAMES.join(', ')}, or an allowed plugin's (peagen plugins)`)
    .option('--mutator <name>', "llm-patch, offline, auto (an LLM when one is configured), or an allowed plugin's (peagen plugins)")
    .option('--seed <n>', 'seed of the run (selection, mutation, held-out inputs)', parsePositiveInt('--seed'))
    .option('--islands <n>', 'independent sub-populations that take turns and exchange their bests (default 1)', atLeastOne('--islands'))
    .option('--quick', "pass --quick to the evaluator (smaller inputs: faster, noisier)")
    .option('--eval-timeout <seconds>', "each evaluation's time limit, replacing the example's (its limits.timeoutMs; an OpenEvolve layout's evaluator.timeout, default 300 s; else 60 s); a resumed run keeps its own unless given", evalTimeoutMs)
    .option('--resume <run>', `continue a run (its id, a unique start of one, ${LATEST_RUN}, or its directory) from its checkpoint and journal`)
    .option('--reduce-budget <n>', `evaluations to spend, as the run ends, reducing the best to the smallest diff from the seed that keeps 90% of its gain (0: none; default ${DEFAULT_REDUCE_BUDGET})`, parsePositiveInt('--reduce-budget'))
    .option('--confirm-pairs <n>', 'as the run ends, measure the best against the seed again, interleaved, in at most N pairs (at least 2) until the gain is measurable (0: none; default 5)', parsePositiveInt('--confirm-pairs'))
    .option('--sync', 'run everything in this process (in-memory queue, in-process workers), even when a daemon runs')
    .option('--project <dir>', 'where .peagen/runs/ is kept (default: the current directory)');
}

function addStopOptions(command: Command): Command {
  return command
    .option('--generations <n>', 'stop after N generations (of --children children)', atLeastOne('--generations'))
    .option('--evaluations <n>', 'stop after N evaluated children', atLeastOne('--evaluations'))
    .option('--minutes <m>', 'stop after this much wall time', positiveNumber('--minutes'))
    .option('--target <x>', 'stop when the best objective reaches x', finiteNumber('--target'))
    .option('--patience <n>', 'stop after N evaluations without a new best', atLeastOne('--patience'))
    .option('--spend-all', 'keep asking the model to the end of the budget, even once its answers bring nothing new (by default the run then stops early and says what it saved)')
    .option('--budget-tokens <n>', 'hard stop: never spend more LLM tokens than this', atLeastOne('--budget-tokens'))
    .option('--budget-usd <x>', 'hard stop: never spend more than this many US dollars', positiveNumber('--budget-usd'))
    .option('--max-llm-calls <n>', 'hard stop: never make more LLM calls than this', atLeastOne('--max-llm-calls'));
}

function summaryLines(report: RunReport, runDir: RunDir): string {
  const lines = [`run ${report.runId}: stopped by ${report.stopReason}`];
  if (report.best) {
    const b = report.best;
    const terms: ObjectiveTerms = { name: report.objectiveName, direction: report.direction, unit: report.objectiveUnit };
    const versus = seedComparison(terms, report.seed.objective, b.objective);
    lines.push(
      `best ${report.objectiveName}: ${objectiveValue(b.objective, terms)}${versus !== undefined ? ` (${versus})` : ''}${report.confirmation ? ` ${confidenceText(report.confirmation)}` : ''}, generation ${b.generation}, measured ${b.measurements.length}x: ${b.measurements.map((m) => objectiveValue(m.objective, terms)).join(', ')}`,
      `best program: ${b.file}`,
    );
    if (report.confirmation) lines.push(confirmationLine(report.objectiveName, report.confirmation));
    if (report.reduction) {
      const r = report.reduction;
      lines.push(r.reduced ? `smallest diff that keeps the gain: ${r.summary}: ${r.file} (the full best: ${b.file})` : `diff from the seed: ${r.summary}`);
    }
  }
  // Also for a run in the daemon, whose log (not this terminal) had the line at the seed.
  for (const use of report.environments ?? []) lines.push(`environment: ${describeEnvironmentUse(use)}`);
  const p = report.progress;
  lines.push(`${p.evaluations} evaluations (${p.failedEvaluations} failed), ${p.llmCalls} LLM calls, ${p.tokens.inputTokens + p.tokens.outputTokens} tokens, $${p.costUsd.toFixed(4)}`);
  if (report.failureReasons && report.failureReasons.length > 0) lines.push(`why children failed: ${reasonsLine(report.failureReasons)}`);
  if (offlineFoundNothing(report)) lines.push(offlineAdviceText());
  lines.push(`report: ${runDir.reportFile}`);
  // Only a gain measured to be one goes home by default: otherwise apply would refuse it.
  if (report.best && report.best.id !== report.seed.id) {
    if (isConfirmedGain(report.confirmation)) lines.push(`take it home: peagen evolve apply ${report.runId} (--diff prints it as a patch)`);
    else if (!report.confirmation) lines.push(`its best was not measured again beside the seed: \`peagen evolve apply ${report.runId} --unconfirmed\` takes it all the same`);
  }
  return lines.join('\n');
}

/**
 * A run that stopped because its tasks kept failing is a failed command, with the cause
 * (the last job's failure, as journaled) where the user looks first.
 */
function reportFailingTasks(ctx: CliContext, report: RunReport, runDir: RunDir): void {
  // The run log said why, naming the server; the command failed.
  if (report.stopReason === 'model_unusable') process.exitCode = ExitCode.Failed;
  if (report.stopReason !== 'tasks_failing') return;
  let last: string | undefined;
  try {
    const abandons = readJournal(runDir.journalFile).events.filter((event) => (event as { type?: unknown }).type === 'abandon');
    last = (abandons.at(-1) as { reason?: string } | undefined)?.reason;
  } catch {
    // The report itself is already out; the cause is a nicety.
  }
  ctx.info(`the run stopped because its tasks kept failing${last ? `; the last failure: ${last}` : ''} (every failure is an "abandon" event in ${runDir.journalFile})`);
  process.exitCode = ExitCode.Failed;
}

async function runEvolution(ctx: CliContext, exampleDir: string | undefined, flags: RunFlags, step: boolean): Promise<void> {
  const config = ctx.config;
  const capped = workersWithinLimit(flags.workers ?? config.worker.concurrency);
  if (capped.note) ctx.info(capped.note);
  const workers = capped.workers;
  const given = stopConditions(flags);
  if (!exampleDir && !flags.resume) throw new CliError('name the example directory (e.g. examples/bad_sort) or --resume a run', ExitCode.Usage);
  const exampleStop = step || Object.keys(given).length > 0 || flags.resume || !exampleDir ? undefined : stopOfExample(exampleDir);
  const stop = step || Object.keys(given).length > 0 || flags.resume ? given : (exampleStop?.stop ?? DEFAULT_STOP);
  if (exampleStop) ctx.info(exampleStop.note);
  const request: RunRequest = {
    ...(exampleDir !== undefined && { exampleDir }),
    projectDir: flags.project ?? process.cwd(),
    stop,
    workers,
    ...(flags.children !== undefined && { childrenPerGeneration: flags.children }),
    ...(flags.selector && { selector: flags.selector }),
    ...(flags.mutator && { mutator: flags.mutator }),
    ...(flags.seed !== undefined && { seed: flags.seed }),
    ...(flags.islands !== undefined && { islands: flags.islands }),
    ...(flags.quick && { quick: true }),
    ...(flags.resume && { resume: flags.resume }),
    ...(flags.reduceBudget !== undefined && { reduceBudget: flags.reduceBudget }),
    ...(flags.evalTimeout !== undefined && { evalTimeoutMs: flags.evalTimeout }),
    ...(flags.confirmPairs !== undefined && { confirmPairs: flags.confirmPairs }),
  };
  // The daemon runs the controller when one is running (and nothing asks for this process):
  // the run survives this terminal, and the editor sees it.
  if (!flags.sync && !step && readLiveRecord(ctx.stateDir)) {
    await runInDaemon(ctx, request);
    return;
  }
  let prepared;
  try {
    // Tasks run on an engine built here from this configuration unless a daemon serves them.
    prepared = prepareRun({ ...request, ownWorkers: Boolean(flags.sync) || !readLiveRecord(ctx.stateDir) }, config);
  } catch (error) {
    if (error instanceof RunSetupError) throw new CliError(error.message, ExitCode.Usage);
    throw error;
  }
  await runLocally(ctx, prepared, flags, step, stop, workers);
}

async function runLocally(ctx: CliContext, prepared: PreparedRun, flags: RunFlags, step: boolean, stop: StopConditions, workers: number): Promise<void> {
  // The user's configuration, with the example's own models when it names none (its workers call them).
  const config = prepared.config;
  const { manifest, runDir } = prepared;
  for (const note of prepared.notes) ctx.info(note);
  if (stop === DEFAULT_STOP) ctx.info('stop: after 120 generations or 10 minutes (set --generations, --evaluations, --minutes, --target or --patience)');
  const mutateSlots = mutateSlotsOf(manifest, workers);
  // On a shared queue with workers serving evaluations, they are the run's W evaluation slots:
  // this process takes none of them, and makes the LLM calls (mutate tasks) unless workers
  // there serve those too. The run asks for at most a proposal per free slot plus mutateSlots
  // ahead: as many slots here, so that none of them waits in the queue.
  const fabric = await openFabric(ctx, config, {
    ...(flags.sync !== undefined && { sync: flags.sync }),
    slots: 2 * workers + mutateSlots,
    ...(!flags.sync && { share: { tasks: Object.values(runTaskKinds(manifest)), ownSlots: workers + mutateSlots } }),
  });
  ctx.info(`${flags.resume ? 'resuming' : 'starting'} run ${manifest.runId} (${runDir.dir}); tasks run in ${fabric.where}; Ctrl-C checkpoints and stops`);
  const interrupt = interruptSignal();
  const display = new ProgressDisplay();
  const run = evolutionRunOf(prepared, workers, {
    client: fabric.client,
    signal: interrupt.signal,
    ...(step && { extraGenerations: 1 }),
    log: (line) => {
      display.done();
      ctx.info(line);
    },
    onProgress: (progress) => {
      if (!ctx.json) display.update(progress);
    },
  });
  let outcome;
  try {
    outcome = await run.run({ resume: Boolean(flags.resume) });
  } catch (error) {
    // Another process took the run between the check in prepareRun and the start: nothing ran.
    if (error instanceof RunBusyError) throw new CliError(error.message, ExitCode.Usage);
    // A run file that is not what Peagen wrote: resuming again would meet it again.
    if (error instanceof DamagedRunError) throw new CliError(error.message, ExitCode.Failed);
    throw new CliError(`the run stopped with an error: ${(error as Error).message}\nits state is checkpointed in ${runDir.dir}; after fixing the cause: peagen evolve run --resume ${manifest.runId}`, ExitCode.Failed);
  } finally {
    display.done();
    interrupt.dispose();
    await fabric.close();
  }
  const report = outcome.report;
  ctx.output({ ...report, runDir: runDir.dir }, () => summaryLines(report, runDir));
  reportFailingTasks(ctx, report, runDir);
  if (outcome.stopReason === 'interrupted') {
    ctx.info(`interrupted: the run is checkpointed; continue it with: peagen evolve run --resume ${manifest.runId}${flags.project ? ` --project ${flags.project}` : ''}`);
    process.exitCode = ExitCode.Interrupted;
  }
}

/**
 * The stop an example asks for when no flag gives one (OpenEvolve's `max_iterations`: one
 * iteration is one evaluated child there). Undefined when it asks none, or cannot be read
 * (prepareRun then reports why).
 */
function stopOfExample(exampleDir: string): { stop: StopConditions; note: string } | undefined {
  let iterations: number | undefined;
  try {
    iterations = loadExample(exampleDir).openEvolve?.maxIterations;
  } catch {
    return undefined;
  }
  if (iterations === undefined) return undefined;
  return {
    stop: { evaluations: iterations },
    note: `stop: after ${iterations} evaluations (max_iterations in config.yaml; set --evaluations, --generations, --minutes, --target or --patience to change it)`,
  };
}

/** Starts the run in the daemon and follows its progress notifications until it ends. */
async function runInDaemon(ctx: CliContext, request: RunRequest): Promise<void> {
  await ctx.withDaemon(
    async (client) => {
      const display = new ProgressDisplay();
      let runId: string | undefined;
      const early: RunProgress[] = [];
      let finish!: (progress: RunProgress) => void;
      const ended = new Promise<RunProgress>((resolve) => (finish = resolve));
      let notice: string | undefined;
      const onProgress = (progress: RunProgress): void => {
        if (progress.runId !== runId) return;
        // What the run waits for that nobody provides (a daemon without workers): said once, as it changes.
        if (progress.notice !== notice) {
          notice = progress.notice;
          display.done();
          ctx.info(notice ?? `run ${runId}: a worker on the queue serves its tasks again`);
        }
        if (!ctx.json) display.update(progress);
        if (progress.state === 'finished' || progress.state === 'interrupted' || progress.state === 'failed') finish(progress);
      };
      client.onRunProgress((progress) => {
        if (runId === undefined) early.push(progress);
        else onProgress(progress);
      });
      const interrupt = interruptSignal();
      try {
        let started;
        try {
          started = await client.request(StartRun.type, {
            ...request,
            ...(request.exampleDir !== undefined && { exampleDir: path.resolve(request.exampleDir) }),
            projectDir: path.resolve(request.projectDir),
            // The daemon takes run ids only: a run named by its directory is sent as its id and project.
            ...(request.resume !== undefined && runByIdIn(request.resume, request.projectDir)),
          });
        } catch (error) {
          if (error instanceof ResponseError && error.code === ErrorCodes.InvalidParams) throw new CliError(error.message.replace(/^invalid params: /, ''), ExitCode.Usage);
          throw error;
        }
        runId = started.runId;
        for (const note of started.notes) ctx.info(note);
        ctx.info(`run ${runId} started in the daemon (pid ${client.handshake.pid}; ${started.runDir}); Ctrl-C stops it with a checkpoint`);
        for (const progress of early) onProgress(progress);
        interrupt.signal.addEventListener('abort', () => void client.request(StopRun.type, { runId: runId! }).catch(() => {}), { once: true });
        const last = await Promise.race([
          ended,
          client.closedSignal.then(() => {
            throw new CliError(`the daemon went away during run ${runId}; continue it with: peagen evolve run --resume ${runId}`, ExitCode.Failed);
          }),
        ]);
        display.done();
        const runDir = new RunDir(started.runDir);
        const report = readReport(runDir);
        if (report) {
          ctx.output({ ...report, runDir: runDir.dir }, () => summaryLines(report, runDir));
          reportFailingTasks(ctx, report, runDir);
        } else ctx.output(last, `run ${runId}: ${last.state}`);
        if (last.state === 'interrupted') {
          ctx.info(`interrupted: the run is checkpointed; continue it with: peagen evolve run --resume ${runId}`);
          process.exitCode = ExitCode.Interrupted;
        } else if (last.state === 'failed') {
          if (last.error) ctx.info(`run ${runId} failed: ${last.error}`);
          process.exitCode = ExitCode.Failed;
        }
      } finally {
        display.done();
        interrupt.dispose();
      }
    },
    { settings: { alternative: 'add --sync to run here' } },
  );
}

export function registerEvolveCommands(program: Command): void {
  const evolve = program.command('evolve').description('evolutionary search: mutate, evaluate, keep the best per niche');

  addRunOptions(addStopOptions(evolve.command('run [example-dir]').description('evolve until a stop condition (default: 120 generations or 10 minutes)'))).action(
    async (exampleDir: string | undefined, flags: RunFlags, command: Command) => runEvolution(CliContext.of(command), exampleDir, flags, false),
  );

  addRunOptions(evolve.command('step [example-dir]').description('one generation of --children children, then stop (with --resume: the next generation of a run)')).action(
    async (exampleDir: string | undefined, flags: RunFlags, command: Command) => runEvolution(CliContext.of(command), exampleDir, flags, true),
  );

  evolve
    .command('list')
    .description('the runs kept in .peagen/runs')
    .option('--project <dir>', 'where .peagen/runs/ is kept (default: the current directory)')
    .action((flags: { project?: string }, command: Command) => {
      const ctx = CliContext.of(command);
      const projectDir = flags.project ?? process.cwd();
      const runs = RunDir.list(projectDir).map((runDir) => {
        let manifest: RunManifest;
        let report: RunReport | undefined;
        try {
          manifest = runDir.readManifest();
          report = readReport(runDir);
        } catch (error) {
          // One damaged run is listed as such, with what to do; it never hides the others.
          if (error instanceof DamagedRunError) return { runId: runDir.id, state: 'damaged' as const, problem: error.message, dir: runDir.dir };
          throw error;
        }
        const terms: ObjectiveTerms = { name: manifest.settings.objectiveName, direction: manifest.settings.direction, unit: manifest.settings.objectiveUnit };
        return {
          runId: manifest.runId,
          example: manifest.exampleName,
          createdAt: manifest.createdAt,
          state: report ? (report.stopReason === 'interrupted' ? 'interrupted' : 'finished') : 'running or killed',
          best: report?.best?.objective ?? null,
          improvement: report?.best?.improvement ?? null,
          /** How the best compares with the seed, in the example's terms (`2.6x`, `seed 61.517%`). */
          versusSeed: shortComparison(terms, report?.seed.objective, report?.best?.objective),
          /** The best in the example's unit (`67.688%`), for the listing. */
          bestText: objectiveValue(report?.best?.objective, terms),
          evaluations: report?.progress.evaluations ?? null,
          dir: runDir.dir,
        };
      });
      ctx.output({ runs }, () =>
        runs.length === 0
          ? noRunsHint(projectDir)
          : runs
              .map((run) =>
                'problem' in run ? `${run.runId}  damaged: ${run.problem}` : `${run.runId}  ${run.example}  ${run.state}  best ${run.bestText}${run.versusSeed ? ` (${run.versusSeed})` : ''}  ${run.evaluations ?? '?'} evals`,
              )
              .join('\n'),
      );
    });

  evolve
    .command('show <run>')
    .description(`a run's report (run id, a unique start of one, ${LATEST_RUN}, or its directory)`)
    .option('--project <dir>', 'where .peagen/runs/ is kept')
    .action((run: string, flags: { project?: string }, command: Command) => {
      const ctx = CliContext.of(command);
      const runDir = resolveRun(run, flags.project);
      const report = readReport(runDir);
      if (!report) throw new CliError(`run ${runDir.id} has no report yet (it is running, or was killed: continue it with \`peagen evolve run --resume ${runDir.id}\`)`, ExitCode.Failed);
      ctx.output(report, () => fs.readFileSync(runDir.reportFile, 'utf8').trimEnd());
    });

  evolve
    .command('best <run>')
    .description(
      "print a run's best program (run id, a unique start of one, latest, or its directory): the smallest diff from the seed that keeps its gain, when the run reduced it; a multi-file program prints as one text with a header line per file",
    )
    .option('--full', 'the full best, with every change, when best/ holds its reduction')
    .option('--recorded', "the program the run recorded in its journal, not best/ (when best/ was altered)")
    .option('--output <file>', 'write it to this file instead (a multi-file program: to this directory, one file each)')
    .option('--project <dir>', 'where .peagen/runs/ is kept')
    .action((run: string, flags: { full?: boolean; recorded?: boolean; output?: string; project?: string }, command: Command) => {
      const ctx = CliContext.of(command);
      const runDir = resolveRun(run, flags.project);
      const manifest = runDir.readManifest();
      const report = readReport(runDir);
      // best/ is checked against the run's record (its journal), never handed out on trust.
      const recorded = recordedBest(runDir, manifest, activePlugins(ctx.config).selectors);
      // best/ holds the reduction when the run reduced its best (best-full/ the full best).
      const reduction = recorded?.reduced && report?.reduction?.reduced !== undefined ? report.reduction : undefined;
      const folder = flags.full && recorded?.reduced ? 'best-full' : 'best';
      const code = flags.recorded ? (folder === 'best' && recorded?.reduced ? recorded.reduced.code : recorded?.best.code) : checkedBestFolder(runDir, manifest, recorded, folder);
      if (code === undefined) throw new CliError(`run ${runDir.id} has no best program yet`, ExitCode.Failed);
      // Both figures, where a person reads them: stdout stays the program alone.
      const described = reduction ? `${flags.full ? 'the full best' : 'the reduced best'}: ${reduction.summary}${flags.full ? '' : ' (--full for the full best)'}` : undefined;
      // Whether its gain was measured to be one, beside the figure.
      const measured = report?.confirmation ? confirmationLine(report.objectiveName, report.confirmation) : undefined;
      const which = described && measured ? `${described}; ${measured}` : (described ?? measured);
      const json = { report: report?.best ?? null, ...(report?.reduction && { reduction: report.reduction }), ...(reduction && { full: flags.full === true }), ...(report?.confirmation && { confirmation: report.confirmation }) };
      if (flags.output && manifest.programFiles) {
        const written = unbundleProgram(code).map((file) => {
          const target = path.join(flags.output!, ...file.path.split('/'));
          fs.mkdirSync(path.dirname(target), { recursive: true });
          fs.writeFileSync(target, file.text);
          return target;
        });
        ctx.output({ files: written, ...json }, `wrote ${written.join(', ')}${which ? ` (${which})` : ''}`);
      } else if (flags.output) {
        fs.writeFileSync(flags.output, code);
        ctx.output({ file: flags.output, ...json }, `wrote ${flags.output}${which ? ` (${which})` : ''}`);
      } else if (ctx.json) ctx.output({ code, ...json }, '');
      else {
        if (which) process.stderr.write(`${which}\n`);
        process.stdout.write(code);
      }
    });

  evolve
    .command('apply [run]')
    .description(`write a run's best back into your files (default: the latest run of this folder): its reduction to the smallest diff that keeps the gain, without the EVOLVE-BLOCK markers peagen init added; refused when a file changed since the run began`)
    .option('--diff', 'print the change as a patch against your files (git apply takes it) instead of writing it')
    .option('--full', 'the full best, with every change, instead of its reduction')
    .option('--project <dir>', 'where .peagen/runs/ is kept, and the folder files are written in (default: the current directory)')
    .option('--unconfirmed', 'write a best that was never measured again beside your code (an interrupted run, --confirm-pairs 0): its in-run figure has no interval')
    .addHelpText('after', `\nA run is named by its directory, its id, any unique start of its id, or ${LATEST_RUN}.\nExample:\n  peagen evolve apply --diff | git apply --check\n  peagen evolve apply`)
    .action((run: string | undefined, flags: { diff?: boolean; full?: boolean; project?: string; unconfirmed?: boolean }, command: Command) => {
      const ctx = CliContext.of(command);
      applyRunCommand(ctx, resolveRun(run ?? LATEST_RUN, flags.project), flags);
    });

  evolve
    .command('replay <run>')
    .description('re-derive a run from its journal and recorded LLM answers (no LLM calls), check the best program is byte-identical, re-measure it')
    .option('--no-measure', 'skip re-measuring the best')
    .option('--sync', 'measure in this process even when a daemon runs')
    .option('--project <dir>', 'where .peagen/runs/ is kept')
    .action(async (run: string, flags: { measure: boolean; sync?: boolean; project?: string }, command: Command) => {
      const ctx = CliContext.of(command);
      const runDir = resolveRun(run, flags.project);
      const fabric = flags.measure ? await openFabric(ctx, ctx.config, { ...(flags.sync !== undefined && { sync: flags.sync }), slots: 1 }) : undefined;
      let result;
      try {
        result = await replayRun(runDir, { ...(fabric && { client: fabric.client }), plugins: activePlugins(ctx.config), log: (line) => ctx.info(line) });
      } finally {
        await fabric?.close();
      }
      const unit = { unit: runDir.readManifest().settings.objectiveUnit };
      ctx.output(result, () =>
        [
          `replayed ${result.events} events of run ${runDir.id}: ${result.children} children re-derived from their parents and recorded answers, ${result.plans} selections identical`,
          `best program: ${result.identical ? 'byte-identical' : 'DIFFERENT'} (${result.bestId.slice(0, 12)}${result.reducedId ? `; best/ holds its reduction ${result.reducedId.slice(0, 12)}, derived again` : ''})`,
          ...(result.remeasured
            ? [`re-measured ${result.remeasured.objectiveName}: ${objectiveValue(result.remeasured.objective, unit)} vs recorded ${objectiveValue(result.remeasured.recorded, unit)} (${result.remeasured.differencePct >= 0 ? '+' : ''}${result.remeasured.differencePct.toFixed(1)}%)`]
            : []),
        ].join('\n'),
      );
      if (!result.identical) process.exitCode = ExitCode.Failed;
    });

  evolve
    .command('merge <run...>')
    .description("merge runs' programs into the archive of the --into run (its elites per niche, its best), to resume it from the best of all")
    .requiredOption('--into <run>', 'the run to merge into (run id or directory); the only one changed')
    .option('--project <dir>', 'where .peagen/runs/ is kept (default: the current directory)')
    .addHelpText('after', MERGE_HELP)
    .action((runs: string[], flags: { into: string; project?: string }, command: Command) => {
      const ctx = CliContext.of(command);
      let result;
      try {
        result = mergeRuns({ into: flags.into, sources: runs, projectDir: flags.project ?? process.cwd(), selectors: activePlugins(ctx.config).selectors });
      } catch (error) {
        if (error instanceof MergeRefused) throw new CliError(error.message, ExitCode.Usage);
        throw error;
      }
      ctx.output(result, () => mergeSummary(result));
      if (result.added > 0) ctx.info(`continue from the merged archive: peagen evolve run --resume ${result.runId}${flags.project ? ` --project ${flags.project}` : ''}`);
    });
}

const MERGE_HELP = `
Every program of the given runs that the --into run lacks joins its archive, where it
competes for its niche: the elites per niche and the best may change (a program both runs
found keeps the --into run's measurement). The merge is one event of that run's journal, so
\`evolve run --resume RUN\` continues from the merged archive and \`evolve replay RUN\`
replays it; \`evolve show RUN\` lists the elites. The other runs are only read. All of them
must be runs of one example measured the same way (the same --quick, objective, niches and
seed program), and none may be in use (running, or being resumed or merged into). Merging
what the run already holds changes nothing.`;

function mergeSummary(result: MergeResult): string {
  const from = result.sources.map((source) => `${source.added} of run ${source.runId}'s ${source.programs}`).join(', ');
  if (result.added === 0) return `nothing to merge: run ${result.runId} already holds every program of ${result.sources.map((source) => `run ${source.runId}`).join(', ')} (nothing was written)`;
  const { before, after } = result.best;
  const lines = [`merged ${result.added} programs into run ${result.runId}: ${from}; niches with an elite: ${result.niches.before} -> ${result.niches.after}`];
  if (after) lines.push(`best ${result.objectiveName}: ${after.objective.toFixed(3)} (${after.from === result.runId ? 'its own' : `from run ${after.from}`}; before the merge: ${before?.objective.toFixed(3) ?? '—'})`);
  lines.push(result.report ? `report: ${new RunDir(result.runDir).reportFile}` : `run ${result.runId} has no report yet (it was killed before its end); resuming it writes one`);
  return lines.join('\n');
}

/** A run named by id or directory, as the id and project directory the daemon accepts. */
function runByIdIn(run: string, projectDir: string): { resume: string; projectDir: string } {
  const runDir = resolveRun(run, projectDir);
  const project = path.resolve(runDir.dir, '..', '..', '..');
  if (path.join(project, RUNS_DIR, runDir.id) !== path.resolve(runDir.dir)) {
    throw new CliError(`${runDir.dir} is not under a project's ${RUNS_DIR}: resume it here with --sync`, ExitCode.Usage);
  }
  return { resume: runDir.id, projectDir: project };
}

/** `evolve apply`: the plan (usecases/applyRun.ts) written, or printed as a patch; a refusal is a failed command with its reason. */
function applyRunCommand(ctx: CliContext, runDir: RunDir, flags: { diff?: boolean; full?: boolean; project?: string; unconfirmed?: boolean }): void {
  const projectDir = flags.project ?? process.cwd();
  let plan: ApplyPlan;
  let written: AppliedFile[] = [];
  try {
    plan = planApply({ runDir, projectDir, ...(flags.full && { full: true }), ...(flags.unconfirmed && { unconfirmed: true }), selectors: activePlugins(ctx.config).selectors });
    if (!flags.diff) written = writeApply(plan);
  } catch (error) {
    if (error instanceof NothingToApply) {
      // With --diff, stdout is where a patch goes: the reason goes to stderr, stdout stays empty.
      if (flags.diff && !ctx.json) ctx.info(error.message);
      else ctx.output({ runId: runDir.id, applied: false, reason: error.message }, error.message);
      return;
    }
    if (error instanceof ApplyRefused || error instanceof SelectionJobError || error instanceof DamagedRunError) throw new CliError(error.message, ExitCode.Failed);
    throw error;
  }
  const which =
    plan.program.which === 'reduced' ? `the reduced best (${plan.reduction ?? 'its smallest diff'}; --full for every change)` : flags.full ? 'the full best' : `the best${plan.reduction ? ` (${plan.reduction})` : ''}`;
  const json = { runId: plan.runId, program: plan.program, ...(plan.reduction && { reduction: plan.reduction }), files: plan.files.map((file) => file.path), changedSinceRun: plan.changedSinceRun, patch: plan.patch, ...(plan.leftOutTests && { leftOutTests: plan.leftOutTests }) };
  // Said where the change is taken: init said it once, and no candidate was checked by these tests.
  const unchecked = plan.leftOutTests && plan.patch !== ''
    ? `; ${plan.leftOutTests.tests} of your tests were left out of its evaluation (they fail only in the sandbox: ${path.relative(projectDir, plan.leftOutTests.file)}), so run your tests on it`
    : '';
  if (flags.diff) {
    if (plan.changedSinceRun.length > 0) ctx.info(`note: ${plan.changedSinceRun.join(', ')} changed since run ${plan.runId} began: the patch is against the text the run evolved`);
    if (ctx.json) ctx.output(json, '');
    else if (plan.patch === '') ctx.info(`run ${plan.runId}: its best changes nothing in ${plan.files.map((file) => file.path).join(', ')}`);
    else {
      ctx.info(`run ${plan.runId}: ${which}${unchecked}`);
      process.stdout.write(plan.patch);
    }
    return;
  }
  const paths = written.map((file) => file.path);
  ctx.output({ ...json, written: paths }, () =>
    written.length === 0
      ? `nothing to apply: ${plan.files.map((file) => file.path).join(', ')} already ${plan.files.length > 1 ? 'hold' : 'holds'} the best of run ${plan.runId}`
      : `applied ${which} of run ${plan.runId} to ${paths.join(', ')}; review it with \`git diff\` (undo: git checkout -- ${paths.join(' ')})${unchecked}`,
  );
}

function resolveRun(run: string, project: string | undefined): RunDir {
  try {
    return RunDir.resolve(run, project ?? process.cwd());
  } catch (error) {
    throw new CliError((error as Error).message, ExitCode.Usage);
  }
}
