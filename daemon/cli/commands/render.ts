/**
 * `peagen render PROJECTS.yaml`: expands the template sets a projects payload names into
 * files (docs/render.md). Each file is a `render` task on the fabric (the daemon's when one
 * runs, else an embedded engine), sent once the files it depends on are rendered; --sync
 * renders in this process without a queue. Nothing is written unless every file rendered.
 */
import { createHash } from 'node:crypto';
import * as path from 'node:path';
import type { Command } from 'commander';
import type { Result } from '../../../shared/task';
import { awaitResult } from '../../evolution/controller/TaskClient';
import { createBackends } from '../../evolution/llm/createBackends';
import type { LlmBackend } from '../../evolution/llm/LlmBackend';
import { LlmError } from '../../evolution/llm/LlmBackend';
import type { Pricing } from '../../evolution/llm/llmConfig';
import { pricingFor } from '../../evolution/llm/pricing';
import { offlinePlan, type PlannedFile, planRender, type RenderPlan } from '../../render/plan';
import { loadProjects } from '../../render/projects';
import { type RenderedFile, renderFile } from '../../render/renderFile';
import { chooseBackends, executePlan, previewPlan, RenderedFileSchema, type WorstCase, worstCaseSpend } from '../../render/runRender';
import { readLiveRecord } from '../../../shared/discovery';
import { writeTree, WriteTreeError } from '../../render/writeTree';
import { RenderInputError } from '../../render/yamlInput';
import { CliContext, CliError, ExitCode, parsePositiveInt } from '../context';
import { interruptSignal, openFabric } from '../runFabric';

interface RenderFlags {
  out: string;
  sync?: boolean;
  dryRun?: boolean;
  seed: number;
  model?: string;
  budgetTokens?: number;
  budgetUsd?: number;
  maxLlmCalls?: number;
}

export function registerRenderCommand(program: Command): void {
  program
    .command('render <projects-yaml>')
    .description('expand the template sets of a projects payload into files (COPY records rendered, GENERATE records answered by an LLM)')
    .option('--out <dir>', 'output directory; each project goes to its ROOT inside it', '.')
    .option('--sync', 'render in this process, without the task queue (a debugging path; same output)')
    .option('--dry-run', 'list the files that would be written (path, record type, dependencies) and write nothing')
    .option('--seed <n>', 'seed sent with every GENERATE call (with temperature 0) and used to choose among the ensemble', parsePositiveInt('--seed'), 0)
    .option('--model <backend>', 'send every GENERATE call to this configured LLM backend instead of the ensemble')
    .option('--budget-tokens <n>', 'refuse to start when the worst case spends more LLM tokens than this', positive('--budget-tokens', true))
    .option('--budget-usd <x>', 'refuse to start when the worst case costs more US dollars than this', positive('--budget-usd', false))
    .option('--max-llm-calls <n>', 'refuse to start when more LLM calls than this are needed', positive('--max-llm-calls', true))
    .action(async (projectsFile: string, flags: RenderFlags, command: Command) => {
      const ctx = CliContext.of(command);
      const config = ctx.config;
      let plan: RenderPlan;
      let preview: ReturnType<typeof previewPlan>;
      try {
        plan = planRender(loadProjects(path.resolve(projectsFile)));
        preview = previewPlan(plan);
      } catch (error) {
        if (error instanceof RenderInputError) throw new CliError(error.message, ExitCode.Usage);
        throw error;
      }
      let generates = plan.files.filter((file) => file.processType === 'GENERATE');
      let backends: LlmBackend[] = [];
      if (generates.length > 0) {
        try {
          backends = createBackends(config.llm);
        } catch (error) {
          throw new CliError(`the llm settings are unusable: ${(error as Error).message}`, ExitCode.Usage);
        }
        if (flags.model && !backends.some((backend) => backend.name === flags.model)) {
          throw new CliError(`--model ${flags.model}: no such LLM backend (configured: ${backends.map((backend) => backend.name).join(', ') || 'none'})`, ExitCode.Usage);
        }
      }
      // Without a daemon, the workers are this process's: with no model here, GENERATE tasks would
      // wait forever. Records that name an OFFLINE_TEMPLATE are rendered from it instead.
      let standIns = 0;
      if (generates.length > 0 && backends.length === 0 && (flags.sync || !readLiveRecord(ctx.stateDir))) {
        const offline = offlinePlan(plan);
        if (!offline) {
          throw new CliError(
            'GENERATE records need an LLM: set OPENAI_API_KEY (or OPENAI_BASE_URL) or ANTHROPIC_API_KEY, or add an `llm` section to peagen.json (or give each GENERATE record an OFFLINE_TEMPLATE to render without one)',
            ExitCode.Usage,
          );
        }
        standIns = generates.length;
        ctx.info(`no LLM configured: ${standIns} GENERATE file(s) rendered from their OFFLINE_TEMPLATE stand-ins; set OPENAI_API_KEY (or OPENAI_BASE_URL) or ANTHROPIC_API_KEY to have a model write them`);
        plan = offline;
        preview = previewPlan(plan);
        generates = [];
      }
      const pricing = dearestPricing(backends, config.llm.backends);
      const worstCase = generates.length > 0 ? worstCaseSpend(plan, preview, pricing) : undefined;
      if (worstCase) {
        const price = pricing ? `$${worstCase.usd.toFixed(2)}` : backends.length > 0 ? '$? (no price known for the configured models)' : '$? (no LLM configured here)';
        ctx.info(`${generates.length} GENERATE file(s): worst-case spend: ${worstCase.calls} LLM calls, ${worstCase.tokens.toLocaleString('en-US')} tokens, ${price} (input tokens + max_tokens of every call; prices from the pricing table, an estimate)`);
        checkBudgets(worstCase, flags);
      }

      if (flags.dryRun) {
        const rows = plan.files.map((file) => ({ path: file.path, processType: file.processType, dependsOn: file.dependsOn, origin: file.origin }));
        ctx.output({ dryRun: true, out: path.resolve(flags.out), files: rows, ...(worstCase && { worstCase }), ...(standIns > 0 && { offlineStandIns: standIns }) }, () =>
          [
            `${plan.files.length} file(s) would be written under ${path.resolve(flags.out)} (in this order; nothing written: --dry-run):`,
            ...rows.map((row) => `  ${row.path}  ${row.processType}${row.dependsOn.length > 0 ? `  after ${row.dependsOn.join(', ')}` : ''}`),
          ].join('\n'),
        );
        return;
      }

      const chosen = flags.model
        ? new Map(generates.map((file) => [file.path, flags.model!]))
        : chooseBackends(plan, backends.map((backend) => ({ name: backend.name, weight: config.llm.backends.find((b) => b.name === backend.name)?.weight ?? 1 })), flags.seed);
      const started = Date.now();
      const interrupt = interruptSignal();
      let rendered: Map<string, RenderedFile>;
      let where = 'this process (--sync, no queue)';
      const progress = (file: PlannedFile, result: RenderedFile, done: number): void =>
        ctx.info(`[${done}/${plan.files.length}] ${file.path} (${file.processType}${result.model ? ` by ${result.model}` : ''})`);
      try {
        if (flags.sync) {
          rendered = await executePlan(plan, {
            seed: flags.seed,
            backends: chosen,
            onRendered: progress,
            renderOne: async (payload) => {
              const wanted = payload.processType === 'GENERATE' ? payload.backend : undefined;
              const backend = wanted ? backends.find((candidate) => candidate.name === wanted) : backends[0];
              try {
                return await renderFile(payload, backend, interrupt.signal);
              } catch (error) {
                if (error instanceof LlmError) throw new Error(`${payload.path}: ${error.message}`);
                throw error;
              }
            },
          });
        } else {
          const fabric = await openFabric(ctx, config, { slots: Math.min(4, plan.files.length) });
          where = fabric.where;
          ctx.info(`rendering ${plan.files.length} file(s) from ${path.relative(process.cwd(), projectsFile) || projectsFile}; tasks run in ${where}`);
          try {
            rendered = await executePlan(plan, {
              seed: flags.seed,
              backends: chosen,
              onRendered: progress,
              renderOne: async (payload) => {
                const taskId = await fabric.client.submit({ kind: 'render', payload, requires: payload.processType === 'GENERATE' ? ['llm'] : ['cpu'] });
                return renderedOf(await awaitResult(fabric.client, taskId, interrupt.signal), payload.path);
              },
            });
          } finally {
            await fabric.close();
          }
        }
      } catch (error) {
        if (interrupt.signal.aborted) throw new CliError('interrupted: nothing was written', ExitCode.Interrupted);
        throw new CliError(`${(error as Error).message}; nothing was written to ${path.resolve(flags.out)}`, ExitCode.Failed);
      } finally {
        interrupt.dispose();
      }

      let written: string[];
      try {
        written = writeTree(flags.out, new Map([...rendered].map(([file, result]) => [file, result.content])));
      } catch (error) {
        if (error instanceof WriteTreeError) throw new CliError(error.message, ExitCode.Failed);
        throw error;
      }
      const files = [...rendered.values()].sort((a, b) => (a.path < b.path ? -1 : 1));
      const usage = files.reduce((sum, file) => ({ calls: sum.calls + (file.usage ? 1 : 0), inputTokens: sum.inputTokens + (file.usage?.inputTokens ?? 0), outputTokens: sum.outputTokens + (file.usage?.outputTokens ?? 0) }), { calls: 0, inputTokens: 0, outputTokens: 0 });
      const seconds = (Date.now() - started) / 1000;
      ctx.output(
        {
          out: path.resolve(flags.out),
          files: files.map((file) => ({ path: file.path, processType: plan.files.find((planned) => planned.path === file.path)!.processType, bytes: Buffer.byteLength(file.content), sha256: createHash('sha256').update(file.content).digest('hex'), ...(file.model && { model: file.model }) })),
          llm: usage,
          ...(worstCase && { worstCase }),
          ...(standIns > 0 && { offlineStandIns: standIns }),
          seconds,
        },
        () =>
          [
            ...written.map((file) => `wrote ${shortPath(file)}`),
            `${written.length} file(s) in ${path.resolve(flags.out)} (${seconds.toFixed(1)}s${usage.calls > 0 ? `; ${usage.calls} LLM calls, ${usage.inputTokens + usage.outputTokens} tokens` : ''})`,
          ].join('\n'),
      );
    });
}

function renderedOf(result: Result, file: string): RenderedFile {
  if (result.status !== 'ok') throw new Error(`${file}: ${result.error ? `${result.error.code}: ${result.error.message}` : `the render task ended with status ${result.status}`}`);
  const parsed = RenderedFileSchema.safeParse(result.data);
  if (!parsed.success) throw new Error(`${file}: the render task answered without a rendered file`);
  return parsed.data as RenderedFile;
}

/** The dearest configured price bounds every call; undefined when none is known. */
function dearestPricing(backends: readonly LlmBackend[], configured: readonly { name: string; pricing?: Pricing | undefined }[]): Pricing | undefined {
  let dearest: Pricing | undefined;
  for (const backend of backends) {
    const pricing = pricingFor(backend.model, configured.find((b) => b.name === backend.name)?.pricing, backend.baseUrl);
    if (pricing) dearest = { inputPerMTok: Math.max(dearest?.inputPerMTok ?? 0, pricing.inputPerMTok), outputPerMTok: Math.max(dearest?.outputPerMTok ?? 0, pricing.outputPerMTok) };
  }
  return dearest;
}

function checkBudgets(worstCase: WorstCase, flags: RenderFlags): void {
  const over: string[] = [];
  if (flags.maxLlmCalls !== undefined && worstCase.calls > flags.maxLlmCalls) over.push(`${worstCase.calls} LLM calls > --max-llm-calls ${flags.maxLlmCalls}`);
  if (flags.budgetTokens !== undefined && worstCase.tokens > flags.budgetTokens) over.push(`${worstCase.tokens} tokens > --budget-tokens ${flags.budgetTokens}`);
  if (flags.budgetUsd !== undefined && worstCase.usd > flags.budgetUsd) over.push(`$${worstCase.usd.toFixed(4)} > --budget-usd ${flags.budgetUsd}`);
  if (over.length > 0) {
    throw new CliError(`refusing to start: the worst case exceeds the budget (${over.join('; ')}); raise the limit or lower MAX_TOKENS in the template set's manifest`, ExitCode.Usage);
  }
}

function positive(name: string, whole: boolean) {
  return (value: string): number => {
    const parsed = Number(value);
    if (!Number.isFinite(parsed) || parsed <= 0 || (whole && !Number.isInteger(parsed))) throw new CliError(`${name} must be a positive ${whole ? 'whole ' : ''}number (got "${value}")`, ExitCode.Usage);
    return parsed;
  };
}

/** Relative to the current directory when inside it, else absolute. */
function shortPath(file: string): string {
  const relative = path.relative(process.cwd(), file);
  return relative === '' || relative.startsWith('..') || path.isAbsolute(relative) ? file : relative;
}
