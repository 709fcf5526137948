/**
 * Running a render plan: a preview in this process first (every COPY file and every GENERATE
 * prompt rendered, so a missing variable is reported before any task is sent, and the
 * worst-case LLM spend is known), then one task per file, each sent as soon as the files it
 * depends on are rendered, carrying their text.
 */
import * as z from 'zod';
import type { RenderPayload } from '../../shared/payloads';
import { EnsembleRouter } from '../evolution/llm/EnsembleRouter';
import { estimateTokens, type SpendBound } from '../evolution/llm/pricing';
import { Rng } from '../evolution/rng';
import type { Pricing } from '../evolution/llm/llmConfig';
import type { PlannedFile, RenderPlan } from './plan';
import { DEFAULT_SYSTEM_PROMPT, type RenderedFile, renderText } from './renderFile';
import { TemplateError } from './templates';
import { RenderInputError } from './yamlInput';

export const RenderedFileSchema = z.object({
  path: z.string(),
  content: z.string(),
  model: z.string().optional(),
  usage: z.object({ inputTokens: z.number(), outputTokens: z.number() }).optional(),
});

export interface Preview {
  /** COPY files' text (final: the same inputs render the same text on any worker). */
  copies: Map<string, string>;
  /** GENERATE files' prompts, with every GENERATE dependency's text left empty. */
  prompts: Map<string, string>;
}

/** Renders what can be rendered here; a template failure is a RenderInputError naming the record. */
export function previewPlan(plan: RenderPlan): Preview {
  const copies = new Map<string, string>();
  const prompts = new Map<string, string>();
  for (const file of plan.files) {
    const dependencies = file.dependsOn.map((dependency) => ({ path: dependency, content: copies.get(dependency) ?? '' }));
    let text: string;
    try {
      text = renderRecord(file, dependencies);
    } catch (error) {
      if (error instanceof TemplateError) throw new RenderInputError(`${file.origin}: ${error.message}`);
      throw error;
    }
    (file.processType === 'COPY' ? copies : prompts).set(file.path, text);
  }
  return { copies, prompts };
}

export interface WorstCase extends SpendBound {
  calls: number;
}

/**
 * Every GENERATE call answering with its MAX_TOKENS, its prompt holding each GENERATE
 * dependency at its own MAX_TOKENS: Σ (input tokens + max_tokens). Priced at the dearest
 * backend (zero when no price is known).
 */
export function worstCaseSpend(plan: RenderPlan, preview: Preview, pricing: Pricing | undefined): WorstCase {
  const maxTokensOf = new Map(plan.files.map((file) => [file.path, file.maxTokens ?? 0]));
  let tokens = 0;
  let usd = 0;
  let calls = 0;
  for (const file of plan.files) {
    if (file.processType !== 'GENERATE') continue;
    const prompt = preview.prompts.get(file.path) ?? '';
    const input = estimateTokens((file.templateSet.manifest.SYSTEM_PROMPT ?? DEFAULT_SYSTEM_PROMPT) + prompt) + file.dependsOn.reduce((sum, dependency) => sum + (maxTokensOf.get(dependency) ?? 0), 0);
    const output = file.maxTokens ?? 0;
    calls += 1;
    tokens += input + output;
    if (pricing) usd += (input * pricing.inputPerMTok + output * pricing.outputPerMTok) / 1e6;
  }
  return { calls, tokens, usd };
}

/**
 * The backend of each GENERATE file, drawn by the ensemble's weighted routing from an Rng of
 * the render's seed in plan order: the same seed and settings choose the same models.
 */
export function chooseBackends(plan: RenderPlan, backends: readonly { name: string; weight: number }[], seed: number): Map<string, string> {
  const chosen = new Map<string, string>();
  if (backends.length === 0) return chosen;
  const router = new EnsembleRouter(backends, 'weighted');
  const rng = new Rng(seed);
  for (const file of plan.files) if (file.processType === 'GENERATE') chosen.set(file.path, router.choose(rng));
  return chosen;
}

function renderRecord(file: PlannedFile, dependencies: readonly { path: string; content: string }[]): string {
  return renderText(file.templateSet.templates, file.template, file.variables, dependencies);
}

/**
 * The task of one file, its template rendered here with its dependencies' text: workers get
 * text, never a template (a template can run code in whatever renders it). Throws
 * RenderFailure naming the record when the template fails on that text.
 */
export function payloadOf(file: PlannedFile, outputs: ReadonlyMap<string, string>, seed: number, backend: string | undefined): RenderPayload {
  let text: string;
  try {
    text = renderRecord(
      file,
      file.dependsOn.map((dependency) => ({ path: dependency, content: outputs.get(dependency)! })),
    );
  } catch (error) {
    if (error instanceof TemplateError) throw new RenderFailure(`${file.path} (${file.origin}): ${error.message}`);
    throw error;
  }
  if (file.processType === 'COPY') return { path: file.path, processType: 'COPY', content: text };
  return {
    path: file.path,
    processType: 'GENERATE',
    prompt: text,
    seed,
    ...(file.maxTokens !== undefined && { maxTokens: file.maxTokens }),
    ...(file.templateSet.manifest.SYSTEM_PROMPT !== undefined && { systemPrompt: file.templateSet.manifest.SYSTEM_PROMPT }),
    ...(backend !== undefined && { backend }),
  };
}

/** A file that could not be rendered; the render stops and writes nothing. */
export class RenderFailure extends Error {
  override name = 'RenderFailure';
}

export interface ExecuteOptions {
  seed: number;
  backends: ReadonlyMap<string, string>;
  /** Renders one file: a task on the fabric, or this process (--sync). */
  renderOne(payload: RenderPayload, file: PlannedFile): Promise<RenderedFile>;
  onRendered?(file: PlannedFile, rendered: RenderedFile, done: number): void;
}

/**
 * Renders every file, each once its dependencies are done (independent files in parallel).
 * The first failure stops new files from starting and is thrown once the running ones end.
 */
export async function executePlan(plan: RenderPlan, options: ExecuteOptions): Promise<Map<string, RenderedFile>> {
  const outputs = new Map<string, string>();
  const rendered = new Map<string, RenderedFile>();
  const running = new Map<string, Promise<void>>();
  let failure: Error | undefined;
  for (const file of plan.files) {
    // Plan order is topological, so every dependency's promise exists already.
    const dependencies = file.dependsOn.map((dependency) => running.get(dependency)!);
    running.set(
      file.path,
      Promise.all(dependencies).then(async () => {
        if (failure) throw failure;
        try {
          const result = await options.renderOne(payloadOf(file, outputs, options.seed, options.backends.get(file.path)), file);
          outputs.set(file.path, result.content);
          rendered.set(file.path, result);
          options.onRendered?.(file, result, rendered.size);
        } catch (error) {
          failure ??= error instanceof Error ? error : new Error(String(error));
          throw failure;
        }
      }),
    );
  }
  await Promise.allSettled(running.values());
  if (failure) throw failure;
  return rendered;
}
