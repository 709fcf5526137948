/**
 * The work of one `render` task, wherever it runs (a worker, or this process with --sync): a
 * COPY record's rendered text is the file; a GENERATE record's rendered prompt goes to the
 * model, and its answer (temperature 0, the payload's seed) is the file. The templates were
 * rendered by `peagen render` (runRender.ts payloadOf), never here.
 */
import type { LlmUsage } from '../../shared/evolution';
import type { RenderPayload } from '../../shared/payloads';
import type { LlmBackend } from '../evolution/llm/LlmBackend';
import { renderTemplate } from './templates';

export const DEFAULT_SYSTEM_PROMPT =
  'You write one source file. Answer with the complete contents of the file only: no explanation, no Markdown fences.';

export interface RenderedFile {
  path: string;
  content: string;
  /** GENERATE only: who answered and what it cost. */
  model?: string;
  usage?: LlmUsage;
}

/** A record's template rendered: the file for COPY, the prompt for GENERATE. Throws TemplateError. */
export function renderText(templates: Readonly<Record<string, string>>, template: string, variables: Record<string, unknown>, dependencies: readonly { path: string; content: string }[]): string {
  return renderTemplate(templates, template, { ...variables, DEPENDENCIES: dependencies.map((dependency) => ({ PATH: dependency.path, CONTENT: dependency.content })) });
}

type GeneratePayload = Extract<RenderPayload, { processType: 'GENERATE' }>;

/** The messages a GENERATE task sends. */
export function generateMessages(payload: Pick<GeneratePayload, 'systemPrompt' | 'prompt'>): { role: 'system' | 'user'; content: string }[] {
  return [
    { role: 'system', content: payload.systemPrompt ?? DEFAULT_SYSTEM_PROMPT },
    { role: 'user', content: payload.prompt },
  ];
}

/** Renders the file. `backend` is needed for GENERATE only; LLM failures (LlmError) are thrown for the caller to report. */
export async function renderFile(payload: RenderPayload, backend: LlmBackend | undefined, signal?: AbortSignal): Promise<RenderedFile> {
  if (payload.processType === 'COPY') return { path: payload.path, content: payload.content };
  if (!backend) throw new Error(`${payload.path}: a GENERATE record needs an LLM backend`);
  const answer = await backend.complete({
    messages: generateMessages(payload),
    temperature: 0,
    seed: payload.seed,
    ...(payload.maxTokens !== undefined && { maxTokens: payload.maxTokens }),
    ...(signal && { signal }),
  });
  return { path: payload.path, content: fileText(answer.text), model: answer.model, usage: answer.usage };
}

/** The answer as a file: one enclosing Markdown fence removed, ending in one newline. */
export function fileText(answer: string): string {
  const fenced = /^\s*```[^\n]*\n([\s\S]*?)\n?```\s*$/.exec(answer);
  const body = fenced ? fenced[1]! : answer;
  return `${body.replace(/\s+$/, '')}\n`;
}
