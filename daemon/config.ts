/**
 * Configuration, lowest precedence first: built-in defaults, the project's `peagen.json`,
 * the environment (QUEUE_URL, WORKER_CAPS, ... as in the brief), then command-line flags.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { z } from 'zod';
import { CapabilitySchema } from '../shared/task';

export const CONFIG_FILE_NAME = 'peagen.json';

export const ConfigSchema = z
  .object({
    queue: z
      .object({
        url: z.string().min(1).default('memory://'),
        leaseMs: z.number().int().positive().default(60_000),
        maxAttempts: z.number().int().positive().default(3),
        retryBaseMs: z.number().int().nonnegative().default(1_000),
      })
      .prefault({}),
    worker: z
      .object({
        caps: z.array(CapabilitySchema).default(['cpu']),
        concurrency: z.number().int().min(1).max(256).default(2),
        mode: z.enum(['in-process', 'one-shot']).default('in-process'),
        plugins: z.array(z.string().min(1)).default([]),
        exitAfterIdleMs: z.number().int().positive().optional(),
      })
      .prefault({}),
    sandbox: z
      .object({
        /** auto: docker if an engine and the image are there, else bwrap, else process. */
        executor: z.enum(['auto', 'docker', 'bwrap', 'process']).default('auto'),
        image: z.string().min(1).default('peagen-sandbox:latest'),
        dockerHost: z.string().optional(),
      })
      .prefault({}),
    daemon: z
      .object({
        /** `unix:/path` or `tcp:127.0.0.1:port`; default: a socket in the state directory. */
        listen: z.string().optional(),
      })
      .prefault({}),
  })
  .strict();
export type PeagenConfig = z.infer<typeof ConfigSchema>;

export class ConfigError extends Error {
  override name = 'ConfigError';
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
  let raw: unknown = {};
  if (file) {
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch (error) {
      throw new ConfigError(`cannot read config file ${file}: ${(error as Error).message}`);
    }
    try {
      raw = JSON.parse(text);
    } catch (error) {
      throw new ConfigError(`config file ${file} is not valid JSON: ${(error as Error).message}`);
    }
  }
  const parsed = ConfigSchema.safeParse(raw);
  if (!parsed.success) {
    throw new ConfigError(`config file ${file} is invalid:\n${z.prettifyError(parsed.error)}`);
  }
  return applyEnv(parsed.data, env);
}

function applyEnv(config: PeagenConfig, env: NodeJS.ProcessEnv): PeagenConfig {
  const overrides = {
    queue: { ...config.queue, ...(env.QUEUE_URL && { url: env.QUEUE_URL }) },
    worker: {
      ...config.worker,
      ...(env.WORKER_CAPS && { caps: splitList(env.WORKER_CAPS) }),
      ...(env.WORKER_PLUGINS && { plugins: splitList(env.WORKER_PLUGINS) }),
      ...(env.WORKER_CONCURRENCY && { concurrency: Number(env.WORKER_CONCURRENCY) }),
      ...(env.WORKER_IDLE_EXIT && { exitAfterIdleMs: Number(env.WORKER_IDLE_EXIT) * 1000 }),
    },
    sandbox: {
      ...config.sandbox,
      ...(env.PEAGEN_EXECUTOR && { executor: env.PEAGEN_EXECUTOR }),
      ...(env.DOCKER_HOST && !config.sandbox.dockerHost && { dockerHost: env.DOCKER_HOST }),
    },
    daemon: config.daemon,
  };
  const checked = ConfigSchema.safeParse(overrides);
  if (!checked.success) {
    throw new ConfigError(`invalid value in the environment (QUEUE_URL / WORKER_*):\n${z.prettifyError(checked.error)}`);
  }
  return checked.data;
}

export function splitList(value: string): string[] {
  return value
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
}

/** Where the daemon keeps its socket, token and pid (PEAGEN_HOME, default ~/.peagen). */
export function stateDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.PEAGEN_HOME ? path.resolve(env.PEAGEN_HOME) : path.join(os.homedir(), '.peagen');
}
