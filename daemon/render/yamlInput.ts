/**
 * Reading a render input (a projects payload, a template-set manifest): YAML parsed with line
 * numbers kept, then checked by a zod schema. Every complaint names the file, the line and
 * the key path (`PROJECTS[0].PACKAGES[1].NAME`), so the user can go straight to it.
 */
import * as fs from 'node:fs';
import { isMap, isNode, isScalar, LineCounter, parseDocument } from 'yaml';
import type * as z from 'zod';

/** Bad render input: a message that names the file and key, and what to do about it. */
export class RenderInputError extends Error {
  override name = 'RenderInputError';
}

export type KeyPath = readonly (string | number)[];

/** `PROJECTS[0].PACKAGES[1].NAME`; the empty path is the document itself. */
export function formatKeyPath(keyPath: KeyPath): string {
  let text = '';
  for (const key of keyPath) text += typeof key === 'number' ? `[${key}]` : text === '' ? key : `.${key}`;
  return text === '' ? '(top level)' : text;
}

/** A parsed YAML file that can say on which line a key path is. */
export class YamlInput {
  private constructor(
    readonly file: string,
    readonly data: unknown,
    private readonly locate: (keyPath: KeyPath) => number | undefined,
  ) {}

  /** Reads and parses `file`; a missing file or a YAML syntax error is a RenderInputError. */
  static read(file: string, what: string): YamlInput {
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch (error) {
      throw new RenderInputError(`${file}: cannot read the ${what}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`);
    }
    return YamlInput.parse(file, text);
  }

  static parse(file: string, text: string): YamlInput {
    const lineCounter = new LineCounter();
    const doc = parseDocument(text, { lineCounter, prettyErrors: true, uniqueKeys: true });
    const syntax = doc.errors[0];
    if (syntax) {
      const line = syntax.linePos?.[0].line;
      throw new RenderInputError(`${file}${line !== undefined ? `:${line}` : ''}: YAML error: ${syntax.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '')}`);
    }
    const locate = (keyPath: KeyPath): number | undefined => {
      // The deepest part of the path that exists (a missing key is reported at its parent);
      // a map entry at its key, not its value, which may start lines later.
      for (let length = keyPath.length; length >= 0; length -= 1) {
        const parent = length === 0 ? undefined : length === 1 ? doc.contents : doc.getIn(keyPath.slice(0, length - 1), true);
        const last = keyPath[length - 1];
        const pair = isMap(parent) ? parent.items.find((item) => isScalar(item.key) && item.key.value === last) : undefined;
        const node = isNode(pair?.key) ? pair.key : length === 0 ? doc.contents : doc.getIn(keyPath.slice(0, length), true);
        if (isNode(node) && node.range) return lineCounter.linePos(node.range[0]).line;
      }
      return undefined;
    };
    return new YamlInput(file, doc.toJS({ maxAliasCount: 100 }), locate);
  }

  /** `file:line: KEY.PATH: message`. */
  error(keyPath: KeyPath, message: string): RenderInputError {
    const line = this.locate(keyPath);
    return new RenderInputError(`${this.file}${line !== undefined ? `:${line}` : ''}: ${formatKeyPath(keyPath)}: ${message}`);
  }

  /** The data checked by `schema`; the first problem becomes an error naming its key. */
  validate<S extends z.ZodType>(schema: S): z.output<S> {
    const parsed = schema.safeParse(this.data ?? {});
    if (parsed.success) return parsed.data;
    const issue = parsed.error.issues[0]!;
    const keyPath = issue.path.filter((key): key is string | number => typeof key !== 'symbol');
    if (issue.code === 'unrecognized_keys') {
      const key = issue.keys[0]!;
      return throwError(this.error([...keyPath, key], `unknown key "${key}" (keys are upper case; see docs/render.md)`));
    }
    return throwError(this.error(keyPath, issue.message));
  }
}

function throwError(error: Error): never {
  throw error;
}
