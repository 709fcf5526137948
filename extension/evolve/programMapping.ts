/**
 * Where a program of a run belongs in the workspace: for a run of an Evolve Selection job, the
 * replaced lines of the selection's source file; for any other run, the example's program
 * file as a whole. vscode-free (programTarget.ts wraps it as a ProposalInput).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { toDocument } from '../../shared/lines';
import type { Program } from '../../shared/evolution';
import type { LineRegion } from './region';
import { readSelectionJob } from './selectionJob';
import { replacementFromProgram } from './selectionProgram';

export interface ProgramTarget {
  file: string;
  baseText: string;
  region: LineRegion;
  replacement: string;
  title: string;
}

interface RunManifestView {
  exampleDir: string;
  program: string;
  settings: { objectiveName: string };
}

/**
 * How a program was made when no model wrote it: the run's candidates made with no call from
 * programs it had (see the daemon's mutation/edits.ts), in words a user reads in a proposal.
 */
const MADE_WITHOUT_A_CALL: Record<string, string> = {
  split: 'a child without one of its edits',
  revert: 'an edit undone',
  transplant: 'an edit from another lineage',
};

/** One line naming a program, e.g. "speedup 12.3 (gen 4, openai/gpt-4o-mini)". */
export function programTitle(objectiveName: string, program: Pick<Program, 'objective' | 'lineage'>): string {
  const score = program.objective === null ? 'failed' : `${objectiveName} ${formatObjective(program.objective)}`;
  const by = program.lineage.model ?? MADE_WITHOUT_A_CALL[program.lineage.mutator] ?? program.lineage.mutator;
  return `${score} (gen ${program.lineage.generation}, ${by})`;
}

function formatObjective(value: number): string {
  return Math.abs(value) >= 100 ? value.toFixed(0) : Math.abs(value) >= 1 ? value.toFixed(1) : value.toPrecision(3);
}

/** Maps `program` of the run kept in `runDir` (its run.json names the example it ran). */
export function programTarget(runDir: string, program: Pick<Program, 'code' | 'objective' | 'lineage'>): ProgramTarget {
  const manifestFile = path.join(runDir, 'run.json');
  let manifest: RunManifestView;
  try {
    manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8')) as RunManifestView;
  } catch (error) {
    throw new Error(`cannot read the run's ${manifestFile}: ${(error as Error).message}`);
  }
  const title = programTitle(manifest.settings.objectiveName, program);
  const job = readSelectionJob(manifest.exampleDir);
  if (job) {
    return {
      file: job.record.sourceFile,
      baseText: job.baseText,
      region: job.record.replaceRange,
      replacement: replacementFromProgram(program.code, job.record.blockIndex),
      title,
    };
  }
  const file = path.join(manifest.exampleDir, manifest.program);
  let baseText: string;
  try {
    baseText = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(`the run's program file ${file} cannot be read (${(error as Error).message}); was the example moved?`);
  }
  return { file, baseText, region: { startLine: 0, endLine: toDocument(baseText).lines.length }, replacement: toDocument(program.code).lines.join('\n'), title };
}
