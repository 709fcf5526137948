/**
 * Everything decided before a run starts: the example, the mutator (an LLM when one is
 * configured, else the offline mutator, and the user is told), the run directory and its
 * manifest, and the worst-case spend. Used by `evolve run|step` and `mutate`, embedded or
 * in the daemon; {@link estimateRun} decides the same without touching the disk.
 */
import * as path from 'node:path';
import type { PeagenConfig } from '../../config';
import { type Example, loadExample } from '../../evaluation/example';
import { createBackends } from '../llm/createBackends';
import type { LlmBackend } from '../llm/LlmBackend';
import { estimateTokens, pricingFor } from '../llm/pricing';
import { SELECTOR_NAMES } from '../selection/createSelector';
import type { SelectorPlugin } from '../selection/ParentSelector';
import { activePlugins } from '../../plugins/activePlugins';
import type { PluginSet } from '../../plugins/loadPlugins';
import { pluginBackends } from '../../plugins/pluginGuards';
import { chooseMutator, type MutatorChoice, PLUGIN_HINT } from './chooseMutator';
import { type ExampleRunSettings, exampleRunSettings } from './exampleRunSettings';
import { type CallCost, type Spend, worstCasePerCall, worstCaseRun } from './budget';
import { type Ablation, ABLATIONS, type RunManifest, type StopConditions } from '../../../shared/runManifest';
import { RunDir } from './runDir';
import { FeatureSpace } from '../evodb/features';
import { EXAMPLE_CONFIG_FILE } from '../../../shared/evaluation';
import { RunBusyError, runLockHolder } from './runLock';
import { SEARCH_POLICY } from './RunState';

export interface RunRequest {
  /** The example to run; not needed to resume a run. */
  exampleDir?: string;
  /** Where `.peagen/runs/` lives (the project; default: the current directory). */
  projectDir: string;
  stop: StopConditions;
  /** Evaluations in flight at once. */
  workers: number;
  childrenPerGeneration?: number;
  selector?: string;
  /** `auto`, `llm-patch`, `offline`, or the name of an allowed plugin's mutator. */
  mutator?: string;
  seed?: number;
  islands?: number;
  /** Pass --quick to the evaluator (smaller inputs: faster, noisier). */
  quick?: boolean;
  /** Continue this run (its id or directory) instead of starting one. */
  resume?: string;
  /** Evaluations to spend reducing the best to its smallest diff as the run ends (0: none; default DEFAULT_REDUCE_BUDGET). */
  reduceBudget?: number;
  /** Each evaluation's time limit in ms (`--eval-timeout`), replacing the example's own; kept on resume unless given again. */
  evalTimeoutMs?: number;
  /** Pairs to measure the best against the seed again as the run ends (0: none). */
  confirmPairs?: number;
  /**
   * The run's workers are built from the configuration given here (the CLI's own engine), so
   * an example's own model list (OpenEvolve's config.yaml) may choose the LLM. Default false:
   * a daemon's workers call the models configured for them.
   */
  ownWorkers?: boolean;
}

export interface PreparedRun {
  manifest: RunManifest;
  runDir: RunDir;
  example: Example;
  /** Worst-case spend of one LLM call, for the budget guard (zeros without an LLM). */
  perCallSpend: Spend;
  /** Worst case of the whole run; undefined when nothing bounds the number of LLM calls. */
  worstCase: (Spend & { jobs: number }) | undefined;
  /** Lines the user should read before the run starts (which mutator, what it may cost). */
  notes: string[];
  backends: LlmBackend[];
  /** The allowed plugins' selectors: the run is handed them (its selector may be one). */
  selectors: SelectorPlugin[];
  /** The configuration the run uses: the one given, with the example's models where it names none. */
  config: PeagenConfig;
}

export class RunSetupError extends Error {
  override name = 'RunSetupError';
}

const PROMPT_OVERHEAD_CHARS = 4_000;
/**
 * @param plugins the allowed plugins (the daemon hands in the set its composition root
 *   loaded); the run's selector and mutator may be a plugin's, not only the workers'.
 */
export function prepareRun(request: RunRequest, config: PeagenConfig, env: NodeJS.ProcessEnv = process.env, plugins: PluginSet = activePlugins(config)): PreparedRun {
  const planned = planRun(request, config, env, true, plugins);
  const runDir = planned.runDir!;
  return { ...planned, runDir, ...spendNotes(planned, planned.config) };
}

/** What a run would be and spend, for a look before starting it. */
export interface RunEstimate {
  /** The same lines {@link prepareRun} gives (which mutator, the worst-case spend). */
  notes: string[];
  /** `llm-patch` or `offline`. */
  mutator: string;
  /** Undefined when no LLM is used or nothing bounds the number of calls. */
  worstCase: (Spend & { jobs: number }) | undefined;
}

/**
 * Everything {@link prepareRun} decides before a run, without creating (or, for a resume,
 * changing) any run directory: what an editor shows before it asks to start.
 */
export function estimateRun(request: RunRequest, config: PeagenConfig, env: NodeJS.ProcessEnv = process.env, plugins: PluginSet = activePlugins(config)): RunEstimate {
  const planned = planRun(request, config, env, false, plugins);
  const { notes, worstCase } = spendNotes(planned, planned.config);
  return { notes, mutator: planned.manifest.settings.mutator, worstCase };
}

interface PlannedRun {
  manifest: RunManifest;
  /** Absent when planning without touching the disk. */
  runDir: RunDir | undefined;
  example: Example;
  notes: string[];
  backends: LlmBackend[];
  selectors: SelectorPlugin[];
  config: PeagenConfig;
}

function planRun(request: RunRequest, given: PeagenConfig, env: NodeJS.ProcessEnv, write: boolean, plugins: PluginSet): PlannedRun {
  const notes: string[] = [];
  let runDir: RunDir | undefined;
  let manifest: RunManifest | undefined;
  let example: Example;
  let resumed: RunDir | undefined;
  try {
    if (request.resume) {
      resumed = RunDir.resolve(request.resume, request.projectDir);
      manifest = resumed.readManifest();
      example = loadExample(manifest.exampleDir);
    } else {
      if (request.exampleDir === undefined) throw new Error('name the example directory to run (or a run to resume)');
      example = loadExample(request.exampleDir);
    }
  } catch (error) {
    throw new RunSetupError((error as Error).message);
  }
  let own: ExampleRunSettings;
  try {
    own = exampleRunSettings(example, given, env, { ownWorkers: request.ownWorkers ?? false });
  } catch (error) {
    throw new RunSetupError((error as Error).message);
  }
  const config = own.config;
  notes.push(...example.notes, ...own.notes, ...example.cautions.map((caution) => `warning: ${caution}`));
  let backends: LlmBackend[] = [];
  try {
    backends = [...createBackends(config.llm, env), ...pluginBackends(plugins.llmBackends, env, (line) => notes.push(line))];
  } catch (error) {
    throw new RunSetupError(`the llm settings are unusable: ${(error as Error).message}`);
  }
  if (resumed && manifest) {
    // Before run.json is rewritten: it is the live run's (the run takes the lock itself as it starts).
    const holder = runLockHolder(resumed);
    if (holder !== undefined) throw new RunSetupError(new RunBusyError(resumed.id, holder).message);
    // New stop conditions (e.g. more evaluations) replace the old ones; the rest stays as it was.
    if (Object.keys(request.stop).length > 0) manifest = { ...manifest, stop: request.stop };
    manifest = {
      ...manifest,
      workers: request.workers,
      ...(request.reduceBudget !== undefined && { reduce: { budget: request.reduceBudget } }),
      ...(request.evalTimeoutMs !== undefined && { evalTimeoutMs: request.evalTimeoutMs }),
      ...(request.confirmPairs !== undefined && { confirm: { pairs: request.confirmPairs } }),
    };
    if (write) {
      resumed.writeManifest(manifest);
      runDir = resumed;
    }
  } else {
    const selector = request.selector ?? 'epsilon-greedy';
    const selectors = [...SELECTOR_NAMES, ...plugins.selectors.map((plugin) => plugin.name)];
    if (!selectors.includes(selector)) throw new RunSetupError(`unknown selector "${selector}" (one of ${selectors.join(', ')}${PLUGIN_HINT})`);
    let choice: MutatorChoice;
    try {
      choice = chooseMutator(request.mutator ?? 'auto', plugins, backends.length > 0);
    } catch (error) {
      throw new RunSetupError((error as Error).message);
    }
    const usesLlm = choice.usesLlm;
    if (choice.note) notes.push(choice.note);
    const ablate = ablationsOf(env);
    if (ablate.length > 0) notes.push(`search mechanisms switched off (PEAGEN_ABLATE): ${ablate.join(', ')}`);
    let features: RunManifest['settings']['features'];
    try {
      // Fixed here and recorded: resume and replay bin by the grid the run was made with.
      features = FeatureSpace.resolve(example.config, example.programFiles[0]!);
    } catch (error) {
      throw new RunSetupError(`${EXAMPLE_CONFIG_FILE}: ${(error as Error).message}`);
    }
    if (write) runDir = RunDir.create(request.projectDir, example.config.name);
    const children = request.childrenPerGeneration ?? request.workers;
    manifest = {
      version: 1,
      runId: runDir?.id ?? '(estimate)',
      createdAt: new Date().toISOString(),
      exampleDir: example.dir,
      exampleName: example.config.name,
      program: example.programFiles[0]!,
      ...(example.programFiles.length > 1 && { programFiles: example.programFiles }),
      settings: {
        direction: example.config.objective.direction,
        objectiveName: example.config.objective.name,
        ...(example.config.objective.unit && { objectiveUnit: example.config.objective.unit }),
        ...(features && { features }),
        islands: request.islands ?? own.islands ?? 1,
        selector,
        mutator: choice.name,
        usesLlm,
        backends: usesLlm ? backends.map((backend) => ({ name: backend.name, weight: config.llm.backends.find((b) => b.name === backend.name)?.weight ?? 1 })) : [],
        routing: config.llm.routing,
        childrenPerGeneration: children,
        inspirations: 4,
        repairFailedChildren: usesLlm,
        confirmBest: true,
        seed: request.seed ?? own.seed ?? 1,
        policy: SEARCH_POLICY,
        ...(ablate.length > 0 && { ablate }),
      },
      stop: request.stop,
      evaluatorArgs: request.quick ? ['--quick'] : [],
      ...(request.evalTimeoutMs !== undefined && { evalTimeoutMs: request.evalTimeoutMs }),
      llm: {
        temperature: config.llm.temperature,
        maxTokens: Math.min(...(backends.length > 0 ? backends.map((backend) => config.llm.backends.find((b) => b.name === backend.name)?.maxTokens ?? 4096) : [4096])),
        repairAttempts: config.llm.repairAttempts,
        allowRewrite: config.llm.allowRewrite,
        choices: config.llm.choices,
        promptDir: path.join(path.resolve(request.projectDir), '.peagen', 'prompts'),
      },
      workers: request.workers,
      ...(request.reduceBudget !== undefined && { reduce: { budget: request.reduceBudget } }),
      ...(request.confirmPairs !== undefined && { confirm: { pairs: request.confirmPairs } }),
      ...(example.cautions.length > 0 && { cautions: example.cautions }),
    };
    runDir?.writeManifest(manifest);
  }
  return { manifest, runDir, example, notes, backends, selectors: plugins.selectors, config };
}

/** PEAGEN_ABLATE=credit,climb,...: the search mechanisms a benchmark switches off to measure what each brings. */
function ablationsOf(env: NodeJS.ProcessEnv): Ablation[] {
  const names = (env.PEAGEN_ABLATE ?? '').split(',').map((name) => name.trim()).filter(Boolean);
  const unknown = names.filter((name) => !(ABLATIONS as readonly string[]).includes(name));
  if (unknown.length > 0) throw new RunSetupError(`PEAGEN_ABLATE: unknown mechanism ${unknown.join(', ')} (one of ${ABLATIONS.join(', ')})`);
  return [...new Set(names)] as Ablation[];
}

/** The per-job and whole-run worst cases, and the planned notes with the spend lines added. */
function spendNotes(planned: PlannedRun, config: PeagenConfig): Pick<PreparedRun, 'perCallSpend' | 'worstCase' | 'notes'> {
  const { manifest, example, backends } = planned;
  const notes = [...planned.notes];
  const perCallSpend = manifest.settings.usesLlm ? worstCasePerCall(callCost(manifest, example, backends, config)) : { tokens: 0, usd: 0, calls: 0 };
  const worstCase = manifest.settings.usesLlm ? worstCaseRun(callCost(manifest, example, backends, config), manifest.stop, manifest.settings.childrenPerGeneration) : undefined;
  if (manifest.settings.usesLlm) {
    notes.push(`mutator: llm-patch on ${backends.map((backend) => `${backend.name} (${backend.model})`).join(', ')}`);
    const { budgetTokens, budgetUsd } = manifest.stop;
    const caps = [budgetTokens !== undefined && `${budgetTokens.toLocaleString('en-US')} tokens (--budget-tokens)`, budgetUsd !== undefined && `$${budgetUsd.toFixed(2)} (--budget-usd)`].filter(Boolean);
    const capped = caps.length > 0 ? `; the budget stops it at ${caps.join(' and ')}` : '';
    notes.push(
      worstCase
        ? `worst-case spend: ${worstCase.calls} LLM calls, ${worstCase.tokens.toLocaleString('en-US')} tokens, $${worstCase.usd.toFixed(2)} (every call answering with max_tokens; prices from the pricing table, an estimate)${capped}`
        : caps.length > 0
          ? `worst-case spend: no evaluation, generation or call limit${capped}`
          : 'worst-case spend: unbounded (no evaluation, generation or call limit); set --max-llm-calls, --budget-tokens or --budget-usd to cap it',
    );
  }
  return { perCallSpend, worstCase, notes };
}

function callCost(manifest: RunManifest, example: Example, backends: LlmBackend[], config: PeagenConfig): CallCost {
  // The prompt holds the parent and a few inspirations of about its size, plus the instructions.
  const inputTokens = estimateTokens(example.seedProgram().repeat(1 + Math.min(3, manifest.settings.inspirations))) + estimateTokens(' '.repeat(PROMPT_OVERHEAD_CHARS));
  // The dearest configured model bounds the cost of any call.
  let usdIn = 0;
  let usdOut = 0;
  for (const backend of backends) {
    const pricing = pricingFor(backend.model, config.llm.backends.find((b) => b.name === backend.name)?.pricing, backend.baseUrl);
    if (pricing) {
      usdIn = Math.max(usdIn, pricing.inputPerMTok / 1e6);
      usdOut = Math.max(usdOut, pricing.outputPerMTok / 1e6);
    }
  }
  // A call's output is every answer it asked for, each up to max_tokens.
  return { inputTokens, maxTokens: manifest.llm.maxTokens * manifest.llm.choices, usdPerInputToken: usdIn, usdPerOutputToken: usdOut, callsPerJob: 1 + 2 * manifest.llm.repairAttempts };
}
