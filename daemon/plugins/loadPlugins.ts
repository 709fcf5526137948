/**
 * Third-party handlers arrive as Node modules that export `handlers: TaskHandler[]`
 * (CommonJS, or ESM compiled to it). Named by path or package in `--plugins`/WORKER_PLUGINS.
 */
import { createRequire } from 'node:module';
import * as path from 'node:path';
import type { TaskHandler } from '../fabric/worker/TaskHandler';

export function loadPlugins(specifiers: readonly string[]): TaskHandler<unknown>[] {
  const requireFromCwd = createRequire(path.join(process.cwd(), 'noop.js'));
  return specifiers.flatMap((specifier) => {
    const resolved = specifier.startsWith('.') || path.isAbsolute(specifier) ? path.resolve(specifier) : specifier;
    let loaded: unknown;
    try {
      loaded = requireFromCwd(resolved);
    } catch (error) {
      throw new Error(`cannot load plugin "${specifier}": ${(error as Error).message}`);
    }
    const exported = loaded as { handlers?: unknown; default?: { handlers?: unknown } };
    const handlers = exported.handlers ?? exported.default?.handlers;
    if (!Array.isArray(handlers) || !handlers.every(isHandler)) {
      throw new Error(`plugin "${specifier}" must export "handlers": an array of { kind, provides, payloadSchema, handle }`);
    }
    return handlers;
  });
}

function isHandler(value: unknown): value is TaskHandler<unknown> {
  const candidate = value as Partial<TaskHandler<unknown>>;
  return (
    typeof candidate?.kind === 'string' &&
    Array.isArray(candidate.provides) &&
    typeof candidate.handle === 'function' &&
    typeof candidate.payloadSchema?.safeParse === 'function'
  );
}
