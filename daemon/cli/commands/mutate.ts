/**
 * `peagen mutate EXAMPLE`: one mutation round without evaluation (the brief's "Mutate (no
 * eval)" workflow): N proposals for the example's program (or --program), each printed as a
 * unified diff. --apply writes the first child over the program; --eval evaluates each child.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Command } from 'commander';
import { mutationTaskOf } from '../../evolution/controller/taskSpecs';
import { chooseMutator, MutatorChoiceError } from '../../evolution/controller/chooseMutator';
import { mutateOnce, type MutateOnceOutcome } from '../../usecases/mutateOnce';
import { createBackends } from '../../evolution/llm/createBackends';
import { isMultiFile, loadExample } from '../../evaluation/example';
import { unbundleProgram } from '../../../shared/programFiles';
import { regionProgramFileText, unifiedPatch } from '../../../shared/programWriteBack';
import { readSelectionJob } from '../../usecases/selectionJob';
import { activePlugins } from '../../plugins/activePlugins';
import { pluginBackends } from '../../plugins/pluginGuards';
import { CliContext, CliError, ExitCode, parsePositiveInt } from '../context';
import { readLiveRecord } from '../../../shared/discovery';
import { interruptSignal, openFabric } from '../runFabric';

interface MutateFlags {
  program?: string;
  n: number;
  model?: string;
  mutator?: string;
  seed?: number;
  apply?: boolean;
  eval?: boolean;
  sync?: boolean;
}

export function registerMutateCommand(program: Command): void {
  program
    .command('mutate <example-dir>')
    .description("propose patches to an example's program, printed as unified diffs (no evaluation unless --eval)")
    .option('--program <file>', "the program to mutate (default: the example's own)")
    .option('--n <count>', 'how many proposals', parsePositiveInt('--n'), 1)
    .option('--model <backend>', 'the configured LLM backend to ask (default: the first)')
    .option('--mutator <name>', "llm-patch, offline, auto (an LLM when one is configured), or an allowed plugin's (peagen plugins)")
    .option('--seed <n>', 'seed of the first proposal (the next ones count up)', parsePositiveInt('--seed'))
    .option('--apply', 'write the first child over the program file')
    .option('--eval', "evaluate each child with the example's evaluator")
    .option('--sync', 'run in this process (in-memory queue, in-process workers), even when a daemon runs')
    .action(async (exampleDir: string, flags: MutateFlags, command: Command) => {
      const ctx = CliContext.of(command);
      if (flags.n < 1) throw new CliError('--n must be at least 1', ExitCode.Usage);
      const config = ctx.config;
      let example;
      try {
        example = loadExample(exampleDir);
      } catch (error) {
        throw new CliError((error as Error).message, ExitCode.Usage);
      }
      // A multi-file example's program is the bundle of its files (--program names one file only).
      const bundled = isMultiFile(example) && flags.program === undefined;
      const file = flags.program ?? path.join(example.dir, example.programFiles[0]!);
      let code: string;
      try {
        code = bundled ? example.seedProgram() : fs.readFileSync(file, 'utf8');
      } catch (error) {
        throw new CliError(`cannot read the program ${file}: ${(error as Error).message}`, ExitCode.Usage);
      }
      // The mutator and the LLM backends may be an allowed plugin's, as in `evolve`.
      const plugins = activePlugins(config);
      let llmReady: boolean;
      try {
        llmReady = createBackends(config.llm).length + pluginBackends(plugins.llmBackends, process.env).length > 0;
      } catch (error) {
        throw new CliError(`the llm settings are unusable: ${(error as Error).message}`, ExitCode.Usage);
      }
      let mutator: string;
      try {
        const choice = chooseMutator(flags.mutator ?? 'auto', plugins, llmReady);
        mutator = choice.name;
        if (choice.name === 'offline' && flags.mutator !== 'offline') ctx.info('no LLM is configured: the offline mutator (genetic improvement) proposes the patches');
      } catch (error) {
        // A running daemon's workers may have plugins this shell has not: they judge the name
        // (a worker without it answers unknown_mutator), as they do for `evolve` through the daemon.
        if (!(error instanceof MutatorChoiceError) || !error.unknownName || flags.sync || !readLiveRecord(ctx.stateDir)) throw new CliError((error as Error).message, ExitCode.Usage);
        mutator = flags.mutator!;
      }
      const fabric = await openFabric(ctx, config, { ...(flags.sync !== undefined && { sync: flags.sync }), slots: Math.min(4, flags.n) + (flags.eval ? 1 : 0) });
      ctx.info(`${flags.n} proposal(s) for ${path.relative(process.cwd(), file) || file} by the ${mutator} mutator; tasks run in ${fabric.where}`);
      const interrupt = interruptSignal();
      const outcomes: MutateOnceOutcome[] = [];
      try {
        const base = flags.seed ?? 1;
        await Promise.all(
          Array.from({ length: flags.n }, async (_, index) => {
            const seed = base + index;
            const outcome = await mutateOnce(
              fabric.client,
              { code, task: mutationTaskOf(example.config), mutator, seed, ...(flags.model && { backend: flags.model }), ...(flags.eval && { example }), label: 'mutate' },
              interrupt.signal,
            );
            outcomes[index] = outcome;
          }),
        );
      } catch (error) {
        if (interrupt.signal.aborted) throw new CliError('interrupted: the proposals were cancelled', ExitCode.Interrupted);
        throw error;
      } finally {
        interrupt.dispose();
        await fabric.close();
      }
      // The patches name the files the user has (a/src/x.py), not the mutator's `a/program`.
      const userPatch = (child: string): string => patchForUser(example.dir, file, bundled && flags.program === undefined, code, child);
      const firstChild = outcomes.find((outcome) => outcome.proposal?.ok);
      if (flags.apply && firstChild?.proposal?.ok) {
        if (bundled) for (const changed of unbundleProgram(firstChild.proposal.code)) fs.writeFileSync(path.join(example.dir, changed.path), changed.text);
        else fs.writeFileSync(file, firstChild.proposal.code);
      }
      ctx.output(
        {
          program: file,
          mutator,
          applied: Boolean(flags.apply && firstChild),
          proposals: outcomes.map((outcome) => ({
            seed: outcome.seed,
            ok: outcome.proposal?.ok ?? false,
            ...(outcome.proposal?.ok ? { patch: userPatch(outcome.proposal.code), model: outcome.proposal.model, repairs: outcome.proposal.repairs } : { reason: outcome.proposal && !outcome.proposal.ok ? `${outcome.proposal.reason}: ${outcome.proposal.message}` : outcome.error }),
            llmCalls: outcome.proposal?.exchanges.length ?? 0,
            ...(outcome.evaluation && { evaluation: outcome.evaluation }),
          })),
        },
        () =>
          outcomes
            .map((outcome, index) => {
              const head = `# proposal ${index + 1} (seed ${outcome.seed})`;
              if (!outcome.proposal?.ok) return `${head}: no child — ${outcome.proposal && !outcome.proposal.ok ? `${outcome.proposal.reason}: ${outcome.proposal.message}` : outcome.error}`;
              const verdict = outcome.evaluation
                ? `\n# evaluation: ${outcome.evaluation.correct ? `correct, ${example.config.objective.name} ${outcome.evaluation.objective?.toFixed(3)}` : `FAILED (${outcome.evaluation.failure?.reason}): ${outcome.evaluation.failure?.message}`}`
                : '';
              return `${head}${outcome.proposal.model ? ` by ${outcome.proposal.model}` : ''}${verdict}\n${userPatch(outcome.proposal.code).replace(/\n$/, '')}`;
            })
            .join('\n\n') + (flags.apply ? (firstChild ? `\n\napplied proposal ${outcomes.indexOf(firstChild) + 1} to ${file}` : '\n\nnothing applied: no proposal gave a child') : ''),
      );
      if (!firstChild) process.exitCode = ExitCode.Failed;
    });
}

/**
 * The patch parent → child against the user's files: for an example `peagen init` made (its
 * own program not overridden by --program), their file without the markers init added; else
 * the program's file(s), named relative to the current directory when inside it.
 */
function patchForUser(exampleDir: string, file: string, bundled: boolean, parent: string, child: string): string {
  const named = (absolute: string, fallback: string): string => {
    const relative = path.relative(process.cwd(), absolute);
    return relative === '' || relative.startsWith('..') || path.isAbsolute(relative) ? fallback : relative.split(path.sep).join('/');
  };
  if (bundled) {
    const before = new Map(unbundleProgram(parent).map((entry) => [entry.path, entry.text]));
    return unifiedPatch(unbundleProgram(child).map((entry) => ({ path: named(path.join(exampleDir, ...entry.path.split('/')), entry.path), before: before.get(entry.path) ?? '', after: entry.text })));
  }
  let job;
  try {
    job = path.resolve(file) === path.resolve(exampleDir, path.basename(file)) ? readSelectionJob(exampleDir) : undefined;
  } catch {
    job = undefined;
  }
  if (job && job.record.program === path.basename(file) && path.isAbsolute(job.record.sourceFile)) {
    const { record, baseText } = job;
    try {
      return unifiedPatch([{ path: named(record.sourceFile, path.basename(record.sourceFile)), before: regionProgramFileText(baseText, record, parent), after: regionProgramFileText(baseText, record, child) }]);
    } catch {
      // A program whose markers were changed maps back to no region: the program's own patch says what changed.
    }
  }
  return unifiedPatch([{ path: named(path.resolve(file), path.basename(file)), before: parent, after: child }]);
}
