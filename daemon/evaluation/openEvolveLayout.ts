/**
 * OpenEvolve's example layout, run as it is: a directory with `initial_program.py` (the code
 * to evolve between EVOLVE-BLOCK markers), `evaluator.py` (`evaluate(program_path)` returning
 * metrics with `combined_score`) and optionally `config.yaml`, but no peagen.example.json.
 * The example config is synthesised: the evaluator is Peagen's trusted adapter
 * (harness/python/peagen_openevolve), which runs the user's evaluator.py in the sandbox with a
 * stand-in for the candidate and prints Peagen's sealed verdict line (verdictSeal.ts). What config.yaml asks of a run is read here; which of it a run
 * uses is decided where the run is planned (evolution/controller/exampleRunSettings.ts).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse as parseYaml } from 'yaml';
import * as z from 'zod';
import { EXAMPLE_CONFIG_FILE, type ExampleConfig, ExampleConfigSchema } from '../../shared/evaluation';
import {
  OPENEVOLVE_CONFIG_FILE,
  OPENEVOLVE_DEFAULT_METRIC,
  OPENEVOLVE_EVALUATOR_FILE,
  OPENEVOLVE_PROGRAM_FILE,
  type OpenEvolveConfig,
  type OpenEvolveModel,
  OpenEvolveConfigSchema,
} from '../../shared/openEvolveConfig';

/** OpenEvolve's own defaults where they differ from Peagen's (its evaluations are slower, heavier). */
const DEFAULT_TIMEOUT_S = 300;
const DEFAULT_CASCADE_THRESHOLDS = [0.5, 0.75, 0.9];
const LIMITS = { memoryMb: 2048, pids: 64 };
/**
 * The archive's grid. combined_score is by convention a score in [0, 1]: one bin per 0.05 up
 * to 1 (Peagen's default, a bin per doubling, would put every score above 0.5 in one niche),
 * then a bin per doubling for scores that are not normalised; and the code length, as usual.
 */
const FEATURES = [
  { name: 'objective', from: 'objective', bins: [...Array.from({ length: 20 }, (_, i) => (i + 1) / 20), ...Array.from({ length: 10 }, (_, i) => 2 ** (i + 1))] },
  { name: 'codeLength', from: 'codeLength', bins: Array.from({ length: 16 }, (_, i) => (i + 1) * 500) },
];
/** harness/python/peagen_openevolve: the adapter, run as `python3 -m`. */
const ADAPTER_MODULE = 'peagen_openevolve';

/**
 * Said once per run (CLI and report): the adapter keeps the candidate out of the evaluator's
 * process and its verdict out of reach, but cannot harden a judgement it did not write.
 */
export const OPENEVOLVE_CAVEAT =
  "evaluator.py is OpenEvolve's kind of evaluator: it judges the candidate its own way (what it checks, how it times). Peagen runs the candidate in a locked-down process of its own behind a stand-in when initial_program.py allows it (module-level functions and plain data; otherwise in evaluator.py's process, where it can fool it, and each verdict says which: process_boundary), and its sandbox bounds time, memory, processes and network. Port it to the harness (peagen_harness) for a hardened evaluation: see docs/openevolve.md";

/** What config.yaml asks of a run, in Peagen's terms; absent when it does not say. */
export interface OpenEvolveSettings {
  /** config.yaml, when the example has one. */
  configFile?: string;
  /** The metric maximised: `peagen.objective`, else combined_score. */
  metric: string;
  maxIterations?: number;
  randomSeed?: number;
  islands?: number;
  /** The models config.yaml names, and what goes with them. */
  llm?: {
    models: { name: string; weight: number; apiBase?: string; apiKeyEnv?: string; temperature?: number; maxTokens?: number }[];
    temperature?: number;
    /** `diff_based_evolution: false`: whole rewrites of the block are welcome. */
    allowRewrite?: boolean;
  };
  /** Keys of config.yaml that mean nothing here, as dotted paths: said once, at the start. */
  ignoredKeys: string[];
}

/** Whether `dir` is in OpenEvolve's layout (and has no peagen.example.json, which would win). */
export function isOpenEvolveLayout(dir: string): boolean {
  return (
    !fs.existsSync(path.join(dir, EXAMPLE_CONFIG_FILE)) &&
    fs.existsSync(path.join(dir, OPENEVOLVE_PROGRAM_FILE)) &&
    fs.existsSync(path.join(dir, OPENEVOLVE_EVALUATOR_FILE))
  );
}

/** The synthesised example config and config.yaml's settings; errors name the file and key at fault. */
export function loadOpenEvolveExample(dir: string): { config: ExampleConfig; openEvolve: OpenEvolveSettings } {
  const configFile = path.join(dir, OPENEVOLVE_CONFIG_FILE);
  let text: string | undefined;
  try {
    text = fs.readFileSync(configFile, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw new Error(`cannot read ${configFile}: ${(error as Error).message}`);
  }
  return openEvolveExample(exampleName(dir), text === undefined ? undefined : { file: configFile, text });
}

/**
 * The same from content (an editor's selection job sends the files, not a path): `name` is the
 * example's, `configYaml` config.yaml's text when there is one.
 */
export function openEvolveExample(name: string, configYaml: { file: string; text: string } | undefined): { config: ExampleConfig; openEvolve: OpenEvolveSettings } {
  const read = configYaml ? parseConfigYaml(configYaml.file, configYaml.text) : undefined;
  const yaml = read?.config;
  const openEvolve = settingsOf(read, configYaml?.file);
  const evaluatorSection = yaml?.evaluator ?? undefined;
  const cascade = evaluatorSection?.cascade_evaluation === true ? (evaluatorSection.cascade_thresholds ?? DEFAULT_CASCADE_THRESHOLDS) : undefined;
  const config = ExampleConfigSchema.parse({
    name: name.replace(/[^A-Za-z0-9._-]+/g, '_') || 'openevolve',
    // What the model is told about the problem (Peagen's prompts show the example's description).
    ...(yaml?.prompt?.system_message?.trim() && { description: yaml.prompt.system_message.trim() }),
    language: 'python',
    program: OPENEVOLVE_PROGRAM_FILE,
    evaluator: [
      'python3',
      '-m',
      ADAPTER_MODULE,
      '{program}',
      '--metric',
      openEvolve.metric,
      ...(cascade && cascade.length > 0 ? ['--cascade', cascade.join(',')] : []),
      // The example's choice (never a candidate's): the weaker mode, said in every verdict.
      ...(yaml?.peagen?.in_process === true ? ['--in-process'] : []),
    ],
    objective: { name: openEvolve.metric, direction: 'maximize' },
    limits: { timeoutMs: Math.round((evaluatorSection?.timeout ?? DEFAULT_TIMEOUT_S) * 1000), ...LIMITS },
    features: FEATURES,
  });
  return { config, openEvolve };
}

/** The lines a user reads before such an example runs: what was recognised, mapped and ignored. */
export function describeOpenEvolve(dir: string, settings: OpenEvolveSettings): string[] {
  const lines = [
    `${dir} is in OpenEvolve's layout (${OPENEVOLVE_PROGRAM_FILE} + ${OPENEVOLVE_EVALUATOR_FILE}, no ${EXAMPLE_CONFIG_FILE}): its evaluate() runs in the sandbox through Peagen's adapter; objective: ${settings.metric}, maximised`,
  ];
  if (settings.ignoredKeys.length > 0) {
    lines.push(`${settings.configFile ?? OPENEVOLVE_CONFIG_FILE}: ignored (no meaning in Peagen, see docs/openevolve.md): ${settings.ignoredKeys.join(', ')}`);
  }
  return lines;
}

/** The checked keys, and the file's own object (its key order, for the list of ignored keys). */
interface ReadConfig {
  config: OpenEvolveConfig;
  raw: Record<string, unknown>;
}

function parseConfigYaml(file: string, text: string): ReadConfig {
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (error) {
    throw new Error(`${file} is not valid YAML: ${(error as Error).message.split('\n')[0]}`);
  }
  const parsed = OpenEvolveConfigSchema.safeParse(raw ?? {});
  if (!parsed.success) throw new Error(`${file} is invalid:\n${z.prettifyError(parsed.error)}`);
  return { config: parsed.data, raw: (raw ?? {}) as Record<string, unknown> };
}

/** Keys of config.yaml that Peagen maps (dotted paths; `llm.models` covers each model's keys). */
const MAPPED = new Set([
  'max_iterations',
  'random_seed',
  'diff_based_evolution',
  'llm.models',
  'llm.api_base',
  'llm.api_key',
  'llm.temperature',
  'llm.max_tokens',
  'llm.primary_model',
  'llm.primary_model_weight',
  'llm.secondary_model',
  'llm.secondary_model_weight',
  'evaluator.timeout',
  'evaluator.cascade_evaluation',
  'evaluator.cascade_thresholds',
  'database.num_islands',
  'prompt.system_message',
  'peagen.objective',
  'peagen.in_process',
]);

function settingsOf(read: ReadConfig | undefined, configFile: string | undefined): OpenEvolveSettings {
  const yaml = read?.config;
  const settings: OpenEvolveSettings = {
    ...(configFile && { configFile }),
    metric: yaml?.peagen?.objective ?? OPENEVOLVE_DEFAULT_METRIC,
    ignoredKeys: read ? ignoredKeys(read.raw) : [],
  };
  if (!yaml) return settings;
  if (yaml.max_iterations !== undefined) settings.maxIterations = yaml.max_iterations;
  if (yaml.random_seed !== undefined && yaml.random_seed !== null) settings.randomSeed = yaml.random_seed;
  if (yaml.database?.num_islands) settings.islands = yaml.database.num_islands;
  const llm = yaml.llm ?? undefined;
  const models = llm ? modelsOf(llm) : [];
  if (models.length > 0 || llm?.temperature != null || yaml.diff_based_evolution === false) {
    settings.llm = {
      models: models.map((model) => {
        const apiBase = model.api_base ?? llm?.api_base ?? undefined;
        const keyEnv = keyVariable(model.api_key ?? llm?.api_key ?? undefined);
        const temperature = model.temperature ?? llm?.temperature ?? undefined;
        const maxTokens = model.max_tokens ?? llm?.max_tokens ?? undefined;
        return {
          name: model.name,
          weight: model.weight ?? 1,
          ...(apiBase && { apiBase }),
          ...(keyEnv && { apiKeyEnv: keyEnv }),
          ...(temperature !== undefined && { temperature }),
          ...(maxTokens !== undefined && { maxTokens }),
        };
      }),
      ...(llm?.temperature != null && { temperature: llm.temperature }),
      ...(yaml.diff_based_evolution === false && { allowRewrite: true }),
    };
  }
  return settings;
}

/** `models`, or the older `primary_model` / `secondary_model` pair. */
function modelsOf(llm: NonNullable<OpenEvolveConfig['llm']>): OpenEvolveModel[] {
  if (llm.models && llm.models.length > 0) return llm.models;
  const pair: OpenEvolveModel[] = [];
  if (llm.primary_model) pair.push({ name: llm.primary_model, weight: llm.primary_model_weight ?? 1 });
  if (llm.secondary_model && (llm.secondary_model_weight ?? 1) > 0) pair.push({ name: llm.secondary_model, weight: llm.secondary_model_weight ?? 1 });
  return pair;
}

/** `${VARIABLE}` names where the key is; a literal key in a file is never used (nor repeated). */
function keyVariable(apiKey: string | undefined): string | undefined {
  return /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$/.exec(apiKey?.trim() ?? '')?.[1];
}

/** Every leaf key path of config.yaml that Peagen does not map, at most two levels deep. */
function ignoredKeys(yaml: Record<string, unknown>): string[] {
  const ignored: string[] = [];
  for (const [key, value] of Object.entries(yaml)) {
    if (MAPPED.has(key) || value === undefined) continue;
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      for (const inner of Object.keys(value)) if (!MAPPED.has(`${key}.${inner}`)) ignored.push(`${key}.${inner}`);
    } else ignored.push(key);
  }
  return ignored;
}

function exampleName(dir: string): string {
  return path.basename(path.resolve(dir));
}

/**
 * Whether an example's evaluator is the adapter: then it judges candidates the way
 * OpenEvolve's evaluators do, however the example was written (synthesised here, or a
 * peagen.example.json naming the adapter, as an editor's selection job does).
 */
export function usesOpenEvolveAdapter(config: ExampleConfig): boolean {
  const at = config.evaluator.indexOf('-m');
  return at >= 0 && config.evaluator[at + 1] === ADAPTER_MODULE;
}
