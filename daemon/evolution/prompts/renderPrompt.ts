/**
 * Prompt templates: Nunjucks (Jinja-compatible) files, searched in a project's own prompt
 * directory first (e.g. `<project>/.peagen/prompts`) and then in the templates Peagen ships
 * (`daemon/evolution/prompts/templates`). A template that outputs a missing value is an
 * error naming the file and line, never a prompt with a silent hole in it.
 *
 * Shipped templates: `system` (the model's role), `mutate` (propose one SEARCH/REPLACE edit
 * of the parent), `repair` (the last answer did not apply, or the child failed evaluation).
 */
import { isProgramBundle, unbundleProgram } from '../../../shared/programFiles';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as nunjucks from 'nunjucks';
import type { ChatMessage } from '../llm/LlmBackend';
import type { MutationRequest, MutationSubject } from '../mutation/Mutator';

/** Which template file rendered a prompt: recorded in each child's lineage. */
export interface TemplateRef {
  name: string;
  /** sha256 of the template's source, first 16 hex digits. */
  hash: string;
}

export interface RenderedPrompt {
  text: string;
  template: TemplateRef;
}

export interface RenderOptions {
  /** Directories searched before the shipped templates, first match wins. */
  searchPath?: readonly string[];
}

/** Caps on what a prompt carries besides the parent itself (which is never cut). */
export const PROMPT_LIMITS = {
  errorTextChars: 2_000,
  inspirationChars: 6_000,
  inspirations: 3,
  applyMessageChars: 4_000,
} as const;

const TEMPLATE_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;
const SHIPPED_RELATIVE = path.join('daemon', 'evolution', 'prompts', 'templates');

let shippedDir: string | undefined;

/** The shipped templates directory, found upwards from this file (dist/ or out/daemon/...). */
export function shippedTemplatesDir(): string {
  if (shippedDir) return shippedDir;
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, SHIPPED_RELATIVE);
    if (fs.existsSync(path.join(candidate, 'mutate.njk'))) return (shippedDir = candidate);
    if (path.dirname(dir) === dir) throw new Error(`the prompt templates (${SHIPPED_RELATIVE}) are missing beside ${__dirname}; reinstall Peagen`);
  }
}

/** A fenced Markdown block whose fence is longer than any backtick run inside `code`. */
export function fenced(code: string, language?: string | null): string {
  const longestRun = Math.max(0, ...Array.from(code.matchAll(/`+/g), (match) => match[0].length));
  const fence = '`'.repeat(Math.max(3, longestRun + 1));
  const body = code.endsWith('\n') ? code : `${code}\n`;
  return `${fence}${language ?? ''}\n${body}${fence}`;
}

const LANGUAGE_BY_EXTENSION: Record<string, string> = { py: 'python', js: 'javascript', mjs: 'javascript', cjs: 'javascript', ts: 'typescript', json: 'json', c: 'c', h: 'c', rs: 'rust', go: 'go' };

/**
 * A program for a prompt: one fenced block, or for a multi-file program (shared/programFiles.ts)
 * each file as its path line and a fenced block, the form the model's edits name files in.
 */
export function fencedProgram(code: string, language?: string | null): string {
  if (!isProgramBundle(code)) return fenced(code, language);
  let files;
  try {
    files = unbundleProgram(code);
  } catch {
    return fenced(code, language); // a capped inspiration may have lost a header: show it whole
  }
  return files.map((file) => `${file.path}\n${fenced(file.text, LANGUAGE_BY_EXTENSION[file.path.split('.').pop() ?? ''] ?? language)}`).join('\n\n');
}

/** Keeps the head and the tail of a long text (a traceback's last lines say the most). */
export function capText(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const head = Math.floor(maxChars / 2);
  const tail = maxChars - head;
  return `${text.slice(0, head)}\n[... ${text.length - maxChars} characters cut ...]\n${text.slice(text.length - tail)}`;
}

function environment(searchPath: readonly string[]): { env: nunjucks.Environment; loader: nunjucks.FileSystemLoader } {
  // noCache: a user editing their project templates sees the change at the next prompt.
  const loader = new nunjucks.FileSystemLoader([...searchPath, shippedTemplatesDir()], { noCache: true });
  const env = new nunjucks.Environment(loader, { autoescape: false, throwOnUndefined: true, trimBlocks: true, lstripBlocks: true });
  // A multi-file program shows file by file, in the shipped templates and a project's own alike.
  env.addFilter('fenced', (code: unknown, language?: unknown) => fencedProgram(String(code), typeof language === 'string' ? language : null));
  return { env, loader };
}

/**
 * Renders template `name` (`mutate` or `mutate.njk`) with `inputs`. Throws an Error naming
 * the template file and line when the template is missing, malformed or outputs an
 * undefined value.
 */
export function renderPrompt(name: string, inputs: object, options: RenderOptions = {}): RenderedPrompt {
  const base = name.endsWith('.njk') ? name.slice(0, -'.njk'.length) : name;
  if (!TEMPLATE_NAME.test(base)) throw new Error(`prompt template name ${JSON.stringify(name)}: use letters, digits, "_" or "-"`);
  const file = `${base}.njk`;
  const searchPath = options.searchPath ?? [];
  const { env, loader } = environment(searchPath);
  const source = loader.getSource(file);
  if (!source) throw new Error(`prompt template ${file} not found in ${[...searchPath, shippedTemplatesDir()].join(', ')}`);
  const hash = createHash('sha256').update(source.src).digest('hex').slice(0, 16);
  let text: string;
  try {
    text = new nunjucks.Template(source.src, env, source.path, true).render(inputs);
  } catch (error) {
    throw templateError(source.path, error);
  }
  return { text: text.trim() + '\n', template: { name: base, hash } };
}

function templateError(file: string, error: unknown): Error {
  const raw = error instanceof Error ? error.message : String(error);
  // Nunjucks messages read `(path) [Line 3, Column 12]\n  Template render error: ...`.
  const position = /\[Line (\d+), Column (\d+)\]/.exec(raw);
  const detail = raw
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('(') && !/^\[Line \d+/.test(line))
    .join(' ')
    .replace(/^(Template render error|Error):\s*/i, '');
  const where = position ? `${file}:${position[1]}:${position[2]}` : file;
  return new Error(`prompt template ${where}: ${detail || raw}`);
}

// ---------------------------------------------------------------- mutation prompts

/** The edit format every answer must follow (a template places it with `{{ format }}`). */
export function formatInstructions(allowRewrite: boolean, files: readonly string[] = []): string {
  if (files.length > 1) return multiFileFormatInstructions(files);
  const lines = [
    '## Edit format',
    'Give each edit as a SEARCH/REPLACE block:',
    '',
    '<<<<<<< SEARCH',
    'lines copied exactly from the current program',
    '=======',
    'the lines that replace them',
    '>>>>>>> REPLACE',
    '',
    'The SEARCH section must match the current program exactly, indentation included, and occur only once: a few lines around the change are enough. Several blocks apply in order. To delete lines, leave the REPLACE section empty.',
  ];
  if (allowRewrite) {
    lines.push(
      'For a change too large for SEARCH/REPLACE blocks you may instead give the whole new EVOLVE-BLOCK, from its EVOLVE-BLOCK-START line to its EVOLVE-BLOCK-END line, in one fenced code block.',
    );
  }
  return lines.join('\n');
}

/** The edit format for a multi-file program: each block after the line naming its file. */
function multiFileFormatInstructions(files: readonly string[]): string {
  return [
    '## Edit format',
    `The program has ${files.length} files: ${files.join(', ')}. Give each edit as a SEARCH/REPLACE block in a fenced block, with the path of the file it edits on the line before the fence:`,
    '',
    files[0]!,
    '```',
    '<<<<<<< SEARCH',
    'lines copied exactly from that file',
    '=======',
    'the lines that replace them',
    '>>>>>>> REPLACE',
    '```',
    '',
    'The SEARCH section must match that file exactly, indentation included, and occur only once in it: a few lines around the change are enough. A change may edit several files: give one block (or more) per file, each with its path line. Several blocks apply in order. To delete lines, leave the REPLACE section empty. Only the files listed may be edited, and only inside their EVOLVE-BLOCK regions.',
  ].join('\n');
}

export interface PromptProgram {
  id: string;
  code: string;
  /** Display form: a number, or `failed` when it has none. */
  objective: string;
  metrics: { name: string; value: string }[];
}

export type RepairInputs =
  | { kind: 'apply'; reason: string; message: string; attempt: number; attempts: number }
  /** `reason`: the evaluation's failure code (`crash`, `incorrect`, ...). */
  | { kind: 'evaluation'; reason: string; errorText: string };

/** Every variable the shipped templates read; absent optional values are null. */
export interface PromptInputs {
  task: {
    name: string;
    description: string | null;
    language: string | null;
    entry: string | null;
    objectiveName: string;
    direction: 'maximize' | 'minimize';
  };
  parent: PromptProgram;
  inspirations: PromptProgram[];
  format: string;
  repair: RepairInputs | null;
}

function displayNumber(value: number | null): string {
  if (value === null || !Number.isFinite(value)) return 'failed';
  return Number.isInteger(value) ? String(value) : String(Number(value.toPrecision(6)));
}

function promptProgram(subject: MutationSubject, maxChars?: number): PromptProgram {
  const metrics = Object.entries(subject.metrics ?? {})
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, value]) => ({ name, value: displayNumber(value) }));
  const code = maxChars === undefined ? subject.code : capText(subject.code, maxChars);
  return { id: subject.id, code, objective: displayNumber(subject.objective), metrics };
}

export interface MutationPromptOptions extends RenderOptions {
  /** The first user message's template when the request is not a repair (default `mutate`). */
  template?: string;
  allowRewrite?: boolean;
}

/** The template variables for one mutation request, with every cap applied. */
export function promptInputs(request: MutationRequest, options: MutationPromptOptions = {}): PromptInputs {
  const { task } = request;
  const failure = request.failure;
  return {
    task: {
      name: task.name,
      description: task.description ?? null,
      language: task.language ?? null,
      entry: task.entry ?? null,
      objectiveName: task.objectiveName,
      direction: task.direction,
    },
    parent: promptProgram(request.parent),
    inspirations: request.inspirations
      .filter((program) => program.id !== request.parent.id)
      .slice(0, PROMPT_LIMITS.inspirations)
      .map((program) => promptProgram(program, PROMPT_LIMITS.inspirationChars)),
    format: formatInstructions(options.allowRewrite ?? false, programFileNames(request.parent.code)),
    repair: failure
      ? { kind: 'evaluation', reason: failure.code, errorText: capText(failure.errorText, PROMPT_LIMITS.errorTextChars) }
      : null,
  };
}

/** The files of a multi-file program, or none for a single file (or a bundle that does not parse). */
function programFileNames(code: string): string[] {
  if (!isProgramBundle(code)) return [];
  try {
    return unbundleProgram(code).map((file) => file.path);
  } catch {
    return [];
  }
}

/**
 * The opening conversation for a request: the system prompt, then either the mutate prompt
 * or, when `request.failure` is set (the parent is a child that failed evaluation), the
 * repair prompt carrying the evaluator's error text. `template` is the user prompt's
 * template (what the lineage records).
 */
export function buildMutationMessages(
  request: MutationRequest,
  options: MutationPromptOptions = {},
): { messages: ChatMessage[]; template: TemplateRef; inputs: PromptInputs } {
  const inputs = promptInputs(request, options);
  const render: RenderOptions = options.searchPath ? { searchPath: options.searchPath } : {};
  const system = renderPrompt('system', inputs, render);
  const user = renderPrompt(request.failure ? 'repair' : (options.template ?? 'mutate'), inputs, render);
  return {
    messages: [
      { role: 'system', content: system.text },
      { role: 'user', content: user.text },
    ],
    template: user.template,
    inputs,
  };
}

/** The user message sent back when an answer did not apply: applyAnswer's exact reason. */
export function buildApplyRepairMessage(
  inputs: PromptInputs,
  failure: { reason: string; message: string; attempt: number; attempts: number },
  options: RenderOptions = {},
): ChatMessage {
  const repair: RepairInputs = { kind: 'apply', ...failure, message: capText(failure.message, PROMPT_LIMITS.applyMessageChars) };
  return { role: 'user', content: renderPrompt('repair', { ...inputs, repair }, options).text };
}
