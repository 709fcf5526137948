/**
 * Configuration, lowest precedence first: built-in defaults, the project's `peagen.json`,
 * the environment (QUEUE_URL, WORKER_CAPS, ... as in the brief), then command-line flags.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as z from 'zod';
import { CapabilitySchema } from '../shared/task';
import { LlmConfigSchema } from './evolution/llm/llmConfig';
import { DEFAULT_MAX_LIMITS } from './sandbox/limitCeilings';

export const CONFIG_FILE_NAME = 'peagen.json';

/**
 * `memory://`, `redis://[user:password@]host[:port][/db]` (`rediss://` for TLS), or a Redis
 * Cluster: `redis+cluster://[user:password@]host:port[,host:port...]` (`rediss+cluster://`).
 * Checked here so that a typo is a configuration error naming the setting, not a failure later
 * on; shared/redisAddress.ts reads the parts (and says what is wrong in more detail).
 */
const REDIS_HOST_PORT = String.raw`(?:[A-Za-z0-9._-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?`;
const REDIS_QUERY = String.raw`(?:\?[A-Za-z0-9_.=&:-]*)?`;
const QUEUE_URL_FORM = new RegExp(
  String.raw`^(?:memory:\/\/` +
    String.raw`|rediss?:\/\/(?:[^\s/@]*@)?${REDIS_HOST_PORT}(?:\/\d+)?\/?${REDIS_QUERY}` +
    String.raw`|rediss?\+cluster:\/\/(?:[^\s/@]*@)?${REDIS_HOST_PORT}(?:,${REDIS_HOST_PORT})*(?:\/0)?\/?${REDIS_QUERY})$`,
);
const QUEUE_URL_EXPECTED =
  'expected memory:// or redis://host[:port][/db][?prefix=NAME] (rediss:// for TLS), or for a Redis Cluster redis+cluster://host:port[,host:port...][?prefix=NAME]';

const QueueSchema = z
  .object({
    url: z
      .string()
      .regex(QUEUE_URL_FORM, { error: QUEUE_URL_EXPECTED })
      .default('memory://'),
    leaseMs: z.number().int().positive().default(60_000),
    maxAttempts: z.number().int().positive().default(3),
    retryBaseMs: z.number().int().nonnegative().default(1_000),
  })
  .strict();

const WorkerSchema = z
  .object({
    caps: z.array(CapabilitySchema).default(['cpu']),
    concurrency: z.number().int().min(1).max(256).default(2),
    mode: z.enum(['in-process', 'one-shot']).default('in-process'),
    plugins: z.array(z.string().min(1)).default([]),
    exitAfterIdleMs: z.number().int().positive().optional(),
    /**
     * The task kinds this worker serves (default: every kind its handlers serve). On a cluster,
     * workers that make LLM calls (`mutate`) and workers that evaluate (`evaluate`) can then be
     * sized apart, so that a slot waiting on a model is never an evaluation slot.
     */
    kinds: z.array(z.string().regex(/^[a-z][a-z0-9._-]*$/, { error: 'a task kind such as evaluate or mutate' })).min(1).optional(),
    /**
     * On a shared (Redis) queue: the host directories a task may name (an execute task's
     * workspace and mounts, an evaluate task's example, a mutate task's prompt directory).
     * Default: the worker's current directory and Peagen's bundled examples.
     */
    roots: z.array(z.string().min(1)).optional(),
  })
  .strict();

const SandboxSchema = z
  .object({
    /** auto: docker if an engine and the image are there, else bwrap, else process. */
    /** Or an allowed plugin's executor by name: which names exist is known only once plugins load (selectExecutor). */
    executor: z
      .string()
      .regex(/^[a-z][\w@./-]*$/, { error: "expected auto, docker, bwrap, process or an allowed plugin's executor name" })
      .default('auto'),
    image: z.string().min(1).default('peagen-sandbox:latest'),
    dockerHost: z.string().optional(),
    /**
     * Run `execute` and `evaluate` tasks from a shared queue on an executor that does not
     * isolate (`process`). Off: such a worker refuses them (dead letter `isolation_required`),
     * since anyone who can write to the queue could run code as this worker's user. Tasks this
     * process submits itself (a memory:// queue, its own runs) are never refused for it.
     */
    allowUnisolated: z.boolean().default(false),
    /**
     * The most any task may ask of a sandbox here: a task's limits above these are lowered to
     * them, and the result says which (`limitsLowered`). The network stays off unless allowed here.
     */
    maxLimits: z
      .object({
        timeoutMs: z.number().int().positive().default(DEFAULT_MAX_LIMITS.timeoutMs),
        memoryMb: z.number().int().positive().default(DEFAULT_MAX_LIMITS.memoryMb),
        pids: z.number().int().positive().default(DEFAULT_MAX_LIMITS.pids),
        outputBytes: z.number().int().positive().default(DEFAULT_MAX_LIMITS.outputBytes),
        network: z.boolean().default(DEFAULT_MAX_LIMITS.network),
      })
      .strict()
      .prefault({}),
  })
  .strict();

const DaemonSchema = z
  .object({
    /** `unix:/path` or `tcp:127.0.0.1:port`; default: a socket in the state directory. */
    listen: z.string().optional(),
    /**
     * Run worker slots inside the daemon (default). False on a cluster's coordinator: its
     * tasks are served by `peagen worker start` on other hosts sharing the Redis queue.
     */
    workers: z.boolean().default(true),
    /**
     * Without workers: how long a run waits while no worker on the queue serves a kind of its
     * tasks (none started, or the last one stopped) before it stops with a checkpoint, to be
     * continued with `--resume` once workers are back. It says why it waits at once.
     */
    unservedWaitMs: z.number().int().min(1000).default(600_000),
  })
  .strict();

/** `host:port` to serve /metrics, /healthz and /readyz on, or `off`. Loopback unless widened on purpose. */
const LISTEN_FORM = /^(?:off|(?:[A-Za-z0-9._-]+|\[[0-9A-Fa-f:.]+\]):\d{1,5})$/;
const listenAddress = (fallback: string) =>
  z.string().regex(LISTEN_FORM, { error: 'expected host:port (e.g. 127.0.0.1:9464) or "off"' }).default(fallback);

const ObservabilitySchema = z
  .object({
    /** The daemon's metrics and health endpoint. */
    metricsListen: listenAddress('127.0.0.1:9464'),
    /** Each `peagen worker start` pool's own endpoint (a second pool on one host takes the next free port). */
    workerMetricsListen: listenAddress('127.0.0.1:9465'),
    /** OTLP/HTTP traces endpoint (e.g. http://collector:4318); tracing is off when unset. */
    otlpEndpoint: z.url().optional(),
  })
  .strict();

// Every level is strict: a misspelt key (`worker.concurency`) is an error, never a silently
// ignored setting that leaves the default in force.
export const ConfigSchema = z
  .object({
    queue: QueueSchema.prefault({}),
    worker: WorkerSchema.prefault({}),
    sandbox: SandboxSchema.prefault({}),
    daemon: DaemonSchema.prefault({}),
    llm: LlmConfigSchema.prefault({}),
    observability: ObservabilitySchema.prefault({}),
    /** Plugin packages (names or paths) allowed to load, besides worker.plugins (docs/plugins.md). */
    plugins: z.array(z.string().min(1)).default([]),
  })
  .strict();
export type PeagenConfig = z.infer<typeof ConfigSchema>;

/** The keys each object accepts, by path; for "did you mean". */
const KNOWN_KEYS: Record<string, readonly string[]> = {
  '': ['queue', 'worker', 'sandbox', 'daemon', 'llm', 'observability', 'plugins'],
  queue: Object.keys(QueueSchema.shape),
  worker: Object.keys(WorkerSchema.shape),
  sandbox: Object.keys(SandboxSchema.shape),
  'sandbox.maxLimits': Object.keys(SandboxSchema.shape.maxLimits.unwrap().shape),
  daemon: Object.keys(DaemonSchema.shape),
  llm: Object.keys(LlmConfigSchema.shape),
  observability: Object.keys(ObservabilitySchema.shape),
};

export class ConfigError extends Error {
  override name = 'ConfigError';

  /** The setting at fault when only a later check can tell (a plugin executor's name). */
  constructor(
    message: string,
    readonly setting?: SettingPath,
  ) {
    super(message);
  }
}

/** Where a setting came from: the variable (`WORKER_CONCURRENCY`) or the file and key. */
export type SettingSources = Partial<Record<SettingPath, string>>;
export type SettingPath = `${keyof PeagenConfig}.${string}`;

export interface LoadedConfig {
  config: PeagenConfig;
  /** Only the settings given explicitly (in the file or the environment), by key path. */
  sources: SettingSources;
}

/** Finds peagen.json in `start` or a parent directory. */
export function findConfigFile(start = process.cwd()): string | undefined {
  for (let dir = path.resolve(start); ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, CONFIG_FILE_NAME);
    if (fs.existsSync(candidate)) return candidate;
    if (path.dirname(dir) === dir) return undefined;
  }
}

export function loadConfig(file: string | undefined, env: NodeJS.ProcessEnv = process.env): PeagenConfig {
  return loadConfigWithSources(file, env).config;
}

export function loadConfigWithSources(file: string | undefined, env: NodeJS.ProcessEnv = process.env): LoadedConfig {
  let raw: unknown = {};
  const sources: SettingSources = {};
  if (file) {
    const shown = displayPath(file);
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch (error) {
      throw new ConfigError(`cannot read config file ${shown}: ${(error as Error).message}`);
    }
    try {
      raw = JSON.parse(text);
    } catch (error) {
      throw new ConfigError(`${shown} is not valid JSON: ${(error as Error).message}`);
    }
    const parsed = ConfigSchema.safeParse(raw);
    if (!parsed.success) throw new ConfigError(parsed.error.issues.map((issue) => `${shown}: ${describeIssue(issue)}`).join('\n'));
    for (const [section, values] of Object.entries(raw as Record<string, unknown>)) {
      if (Array.isArray(values)) continue;
      for (const key of Object.keys(values as object)) sources[`${section as keyof PeagenConfig}.${key}`] = `${shown} ${section}.${key}`;
    }
  }
  const fromFile = ConfigSchema.parse(raw);
  if (file) {
    // A plugin path in a config file means a path from that file, wherever the command runs (--config).
    const fromFileDir = (entry: string): string => (entry.startsWith('.') ? path.resolve(path.dirname(path.resolve(file)), entry) : entry);
    fromFile.plugins = fromFile.plugins.map(fromFileDir);
    fromFile.worker.plugins = fromFile.worker.plugins.map(fromFileDir);
  }
  return { config: applyEnv(fromFile, env, sources), sources };
}

interface EnvBinding {
  variable: string;
  section: 'queue' | 'worker' | 'sandbox' | 'observability';
  key: string;
  /** The value for the schema, or undefined when it is not `expected`. */
  parse(value: string): unknown;
  expected?: string;
  /** Applied only when the file leaves the setting unset (DOCKER_HOST is machine-wide). */
  fileWins?: boolean;
}

const asIs = (value: string): string => value;
const YES_OR_NO: Record<string, boolean> = { '1': true, true: true, '0': false, false: false };
const yesOrNo = (value: string): boolean | undefined => YES_OR_NO[value.trim().toLowerCase()];
const wholeNumber = (value: string): number | undefined => (/^\s*\d+\s*$/.test(value) ? Number(value) : undefined);

const ENV_BINDINGS: readonly EnvBinding[] = [
  { variable: 'QUEUE_URL', section: 'queue', key: 'url', parse: asIs },
  { variable: 'WORKER_CAPS', section: 'worker', key: 'caps', parse: splitList },
  { variable: 'WORKER_PLUGINS', section: 'worker', key: 'plugins', parse: splitList },
  { variable: 'WORKER_KINDS', section: 'worker', key: 'kinds', parse: splitList },
  { variable: 'PEAGEN_WORKER_ROOTS', section: 'worker', key: 'roots', parse: (value) => value.split(path.delimiter).filter((entry) => entry !== '') },
  { variable: 'WORKER_CONCURRENCY', section: 'worker', key: 'concurrency', parse: wholeNumber, expected: 'a whole number of task slots, 1 to 256' },
  {
    variable: 'WORKER_IDLE_EXIT',
    section: 'worker',
    key: 'exitAfterIdleMs',
    // Seconds here, milliseconds in the file.
    parse: (value) => {
      const seconds = wholeNumber(value);
      return seconds ? seconds * 1000 : undefined;
    },
    expected: 'a whole number of seconds greater than 0',
  },
  { variable: 'PEAGEN_EXECUTOR', section: 'sandbox', key: 'executor', parse: asIs },
  { variable: 'PEAGEN_ALLOW_UNISOLATED', section: 'sandbox', key: 'allowUnisolated', parse: yesOrNo, expected: '1 or 0 (true or false)' },
  { variable: 'DOCKER_HOST', section: 'sandbox', key: 'dockerHost', parse: asIs, fileWins: true },
  { variable: 'PEAGEN_METRICS_LISTEN', section: 'observability', key: 'metricsListen', parse: asIs },
  { variable: 'PEAGEN_WORKER_METRICS_LISTEN', section: 'observability', key: 'workerMetricsListen', parse: asIs },
  // The OpenTelemetry SDKs' own variable, so an existing collector setup needs nothing new.
  { variable: 'OTEL_EXPORTER_OTLP_ENDPOINT', section: 'observability', key: 'otlpEndpoint', parse: asIs },
];

function applyEnv(config: PeagenConfig, env: NodeJS.ProcessEnv, sources: SettingSources): PeagenConfig {
  const merged = {
    queue: { ...config.queue },
    worker: { ...config.worker },
    sandbox: { ...config.sandbox },
    daemon: config.daemon,
    llm: config.llm,
    observability: { ...config.observability },
    plugins: config.plugins,
  };
  const problems: string[] = [];
  const byPath = new Map<string, EnvBinding>();
  for (const binding of ENV_BINDINGS) {
    const value = env[binding.variable];
    if (!value) continue;
    const section = merged[binding.section] as Record<string, unknown>;
    if (binding.fileWins && section[binding.key] !== undefined) continue;
    const parsed = binding.parse(value);
    if (parsed === undefined) {
      problems.push(`${binding.variable}=${quote(value)}: expected ${binding.expected}`);
      continue;
    }
    section[binding.key] = parsed;
    sources[`${binding.section}.${binding.key}`] = binding.variable;
    byPath.set(`${binding.section}.${binding.key}`, binding);
  }
  const checked = ConfigSchema.safeParse(merged);
  if (!checked.success) {
    for (const issue of checked.error.issues) {
      // Only the environment can be at fault here: the file passed the same schema above.
      const binding = byPath.get(issue.path.slice(0, 2).join('.'));
      const value = binding ? env[binding.variable] : undefined;
      problems.push(binding && value !== undefined ? `${binding.variable}=${quote(value)}: ${issue.message}` : describeIssue(issue));
    }
  }
  if (problems.length > 0) throw new ConfigError(problems.join('\n'));
  return checked.data as PeagenConfig;
}

/** One line per problem: the key path, what is wrong, and for a misspelt key the likely one. */
function describeIssue(issue: z.core.$ZodIssue): string {
  const at = issue.path.join('.');
  if (issue.code === 'unrecognized_keys') {
    return issue.keys
      .map((key) => {
        const suggestion = closest(key, KNOWN_KEYS[at] ?? []);
        return `unknown key "${at ? `${at}.` : ''}${key}"${suggestion ? ` (did you mean "${suggestion}"?)` : ''}`;
      })
      .join('\n');
  }
  return `${at || '(top level)'}: ${issue.message}`;
}

/** The known key within edit distance 2 of `key` (or a case-insensitive match), if any. */
function closest(key: string, known: readonly string[]): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const name of known) {
    const distance = editDistance(key.toLowerCase(), name.toLowerCase());
    if (distance <= Math.min(2, Math.floor(name.length / 2)) && (!best || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/** Values are shown with credentials masked (a queue URL may carry a password). */
function quote(value: string): string {
  return JSON.stringify(value.replace(/\/\/[^@/]*@/, '//***@'));
}

/** The config file as the user would name it: relative to here when it is below here. */
function displayPath(file: string): string {
  const relative = path.relative(process.cwd(), file);
  return relative && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : file;
}

export function splitList(value: string): string[] {
  return value
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
}
