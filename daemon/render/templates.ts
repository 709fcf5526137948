/**
 * Rendering Nunjucks (Jinja-compatible) templates of one template set. Templates see only
 * the set's own files (an in-memory loader: no include or import reaches the filesystem),
 * nothing is HTML-escaped (the output is code), and an undefined variable is an error that
 * names the template, the line and the expression rather than an empty string in the output.
 */
import * as nunjucks from 'nunjucks';

/** A template that failed to render: which one, where, and why. */
export class TemplateError extends Error {
  override name = 'TemplateError';
}

class SetLoader extends nunjucks.Loader {
  constructor(private readonly templates: Readonly<Record<string, string>>) {
    super();
  }

  getSource(name: string): nunjucks.LoaderSource {
    const src = Object.prototype.hasOwnProperty.call(this.templates, name) ? this.templates[name] : undefined;
    // nunjucks reports "template not found" for a null source.
    return (src === undefined ? null : { src, path: name, noCache: true }) as nunjucks.LoaderSource;
  }
}

function environment(templates: Readonly<Record<string, string>>): nunjucks.Environment {
  return new nunjucks.Environment(new SetLoader(templates), { autoescape: false, throwOnUndefined: true });
}

/** Renders the set's template `name` with `variables`. */
export function renderTemplate(templates: Readonly<Record<string, string>>, name: string, variables: Record<string, unknown>): string {
  try {
    return environment(templates).render(name, variables);
  } catch (error) {
    throw new TemplateError(describeRenderError(error, templates, name));
  }
}

/** Renders a one-line template (an output file name) given inline; `where` names its origin. */
export function renderInline(source: string, variables: Record<string, unknown>, where: string): string {
  try {
    return environment({}).renderString(source, variables);
  } catch (error) {
    throw new TemplateError(`${where}: ${describeRenderError(error, { [where]: source }, where, source)}`);
  }
}

/**
 * nunjucks says "(a.njk) [Line 3, Column 7] attempted to output null or undefined value",
 * nesting one "(name)" per include; the innermost one is where the problem is. That line and
 * column point at the `{{`, so the expression (the missing variable) is read from the source.
 */
function describeRenderError(error: unknown, templates: Readonly<Record<string, string>>, name: string, inline?: string): string {
  const message = error instanceof Error ? error.message : String(error);
  const frames = [...message.matchAll(/\(([^()\n]*)\)(?: \[Line (\d+), Column (\d+)\])?/g)];
  const innermost = frames[frames.length - 1];
  const template = inline !== undefined || !innermost || innermost[1] === 'unknown path' ? name : innermost[1]!;
  const line = innermost?.[2] !== undefined ? Number(innermost[2]) : undefined;
  const column = innermost?.[3] !== undefined ? Number(innermost[3]) : undefined;
  const reason = message.split('\n').map((part) => part.trim()).filter((part) => part && !/^(\([^)]*\)|Template render error:)/.test(part)).pop() ?? message;
  const where = inline !== undefined ? '' : `template ${template}${line !== undefined ? ` line ${line}` : ''}: `;
  if (/undefined value/.test(reason)) {
    const source = inline ?? templates[template];
    const expression = source !== undefined && line !== undefined && column !== undefined ? expressionAt(source, line, column) : undefined;
    return `${where}${expression ? `{{ ${expression} }} is undefined` : 'a variable is undefined'}: give it in the payload's EXTRAS or the manifest's VARIABLES`;
  }
  return `${where}${reason.replace(/^Error: /, '')}`;
}

/** The expression of the `{{ ... }}` starting at (1-based) line and column, if there is one. */
function expressionAt(source: string, line: number, column: number): string | undefined {
  const text = source.split('\n')[line - 1];
  if (text === undefined) return undefined;
  const match = /^\{\{-?\s*(.*?)\s*-?\}\}/.exec(text.slice(Math.max(0, column - 1)));
  return match?.[1];
}
