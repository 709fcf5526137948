/**
 * What a plugin may provide, one entry per plug point, and the shape each provided object
 * must have. A package declares its plug points in the `peagen` field of its package.json:
 *
 *   "peagen": { "mutators": "./index.js", "selectors": "./selectors.js" }
 *
 * and the module named for a plug point exports an array under that plug point's name
 * (`exports.mutators = [...]`). The shapes are checked here, when the plugin loads, so that a
 * plugin built against another interface is reported and skipped instead of failing in the
 * middle of a run. Behaviour beyond the shape is what the conformance suites check
 * (`peagen/conformance`, see docs/plugins.md).
 */
import * as z from 'zod';
import type { Executor, SandboxSettings } from '../sandbox/Executor';
import type { LlmBackend } from '../evolution/llm/LlmBackend';
import type { Mutator } from '../evolution/mutation/Mutator';
import type { SelectorPlugin } from '../evolution/selection/ParentSelector';
import type { TaskHandler } from '../fabric/worker/TaskHandler';

export const PLUG_POINTS = ['handlers', 'mutators', 'selectors', 'executors', 'llmBackends'] as const;
export type PlugPoint = (typeof PLUG_POINTS)[number];


/** An executor is made by the process that runs sandboxes, from the sandbox settings. */
export interface ExecutorPlugin {
  readonly name: string;
  create(settings: SandboxSettings, warn: (message: string) => void): Executor;
}

/** A backend is made in the process that calls the model, with that process's environment (its keys). */
export interface LlmBackendPlugin {
  readonly name: string;
  create(env: Record<string, string | undefined>): LlmBackend;
}

export type { SelectorPlugin };

export interface PlugPointObjects {
  handlers: TaskHandler<unknown>;
  mutators: Mutator;
  selectors: SelectorPlugin;
  executors: ExecutorPlugin;
  llmBackends: LlmBackendPlugin;
}

const modulePath = z.string().min(1, { error: 'must name a module file, e.g. "./index.js"' });

/** The `peagen` field of a plugin's package.json. */
export const PluginManifestSchema = z
  .object(Object.fromEntries(PLUG_POINTS.map((point) => [point, modulePath.optional()])) as Record<PlugPoint, z.ZodOptional<typeof modulePath>>)
  .strict()
  .refine((manifest) => PLUG_POINTS.some((point) => manifest[point] !== undefined), {
    error: `names no plug point: give at least one of ${PLUG_POINTS.join(', ')} with the module that provides it`,
  });
export type PluginManifest = z.infer<typeof PluginManifestSchema>;

const fn = z.custom<(...args: never[]) => unknown>((value) => typeof value === 'function', { error: 'must be a function' });
const name = z.string().min(1).regex(/^[\w@./-]+$/, { error: 'must be a non-empty name of letters, digits and _ @ . / -' });

/** The shape of each provided object; functions are checked to be functions, not called. */
const SHAPES: Record<PlugPoint, z.ZodType> = {
  handlers: z.object({
    kind: name,
    provides: z.array(z.string().min(1)),
    payloadSchema: z.custom((value) => typeof (value as { safeParse?: unknown } | null)?.safeParse === 'function', {
      error: 'must be a zod schema (an object with safeParse)',
    }),
    handle: fn,
  }),
  mutators: z.object({ name, usesLlm: z.boolean(), propose: fn }),
  selectors: z.object({ name, create: fn }),
  executors: z.object({ name, create: fn }),
  llmBackends: z.object({ name, create: fn }),
};

/** The identifying name of a provided object: a handler's task kind, everything else's name. */
export function nameOf(point: PlugPoint, object: unknown): string {
  const candidate = object as { kind?: string; name?: string };
  return (point === 'handlers' ? candidate.kind : candidate.name) ?? '?';
}

/**
 * The objects a module provides for one plug point: its export of that name (or its default
 * export's), an array of objects of the plug point's shape. Throws an Error saying what is
 * wrong, with the index and field (`mutators[0].propose: must be a function`).
 */
export function providedObjects<P extends PlugPoint>(point: P, moduleExports: unknown): PlugPointObjects[P][] {
  const exported = moduleExports as Record<string, unknown> | null | undefined;
  const list = exported?.[point] ?? (exported?.default as Record<string, unknown> | undefined)?.[point];
  if (list === undefined) throw new Error(`its module exports no "${point}" (expected \`exports.${point} = [ ... ]\`)`);
  if (!Array.isArray(list)) throw new Error(`"${point}" must be an array, got ${typeof list}`);
  if (list.length === 0) throw new Error(`"${point}" is empty`);
  const parsed = z.array(SHAPES[point]).safeParse(list);
  if (!parsed.success) {
    throw new Error(
      parsed.error.issues
        .map((issue) => `${point}${issue.path.map((part) => (typeof part === 'number' ? `[${part}]` : `.${String(part)}`)).join('')}: ${issue.message}`)
        .join('; '),
    );
  }
  return list as PlugPointObjects[P][];
}
