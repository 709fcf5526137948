/**
 * Where a program of a run belongs in the workspace, from the placement the daemon answers
 * with the program (GetProgram): for a run of an Evolve Selection job (or of an example
 * `peagen init` made, which records the same), the replaced lines of the source file, without
 * the markers Peagen added (shared/programWriteBack.ts, as `peagen evolve apply`); for
 * any other run, the example's program file as a whole. vscode-free (programTarget.ts wraps it
 * as a ProposalInput).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { toDocument } from '../../shared/lines';
import type { Program } from '../../shared/evolution';
import type { ProgramPlacement } from '../../shared/protocol';
import type { LineRegion } from '../../shared/lines';
import { regionProgramEdit } from '../../shared/programWriteBack';
import { unbundleProgram } from '../../shared/programFiles';
import { valueWithUnit } from '../../shared/objectiveText';

/** One file's change: `region` of `baseText` (the file as read here) becomes `replacement`. */
export interface FileTarget {
  file: string;
  baseText: string;
  region: LineRegion;
  replacement: string;
}

export interface ProgramTarget extends FileTarget {
  title: string;
  /** A multi-file program's other changed files (the first changed one is the target itself). */
  others?: FileTarget[];
}

/**
 * How a program was made when no model wrote it: the run's candidates made with no call from
 * programs it had (see the daemon's mutation/edits.ts), in words a user reads in a proposal.
 */
const MADE_WITHOUT_A_CALL: Record<string, string> = {
  split: 'a child without one of its edits',
  revert: 'an edit undone',
  transplant: 'an edit from another lineage',
  reduce: 'the best reduced to its smallest diff',
};

/** One line naming a program, e.g. "speedup 12.3 (gen 4, openai/gpt-4o-mini)", "score 68.7% (gen 4, offline)". */
export function programTitle(objectiveName: string, program: Pick<Program, 'objective' | 'lineage'>, objectiveUnit?: string): string {
  const score = program.objective === null ? 'failed' : `${objectiveName} ${valueWithUnit(formatObjective(program.objective), objectiveUnit)}`;
  const by = program.lineage.model ?? MADE_WITHOUT_A_CALL[program.lineage.mutator] ?? program.lineage.mutator;
  return `${score} (gen ${program.lineage.generation}, ${by})`;
}

function formatObjective(value: number): string {
  return Math.abs(value) >= 100 ? value.toFixed(0) : Math.abs(value) >= 1 ? value.toFixed(1) : value.toPrecision(3);
}

/** Maps `program` to its place; a plain example's program file is read from this machine. */
export function programTarget(placement: ProgramPlacement, objectiveName: string, program: Pick<Program, 'code' | 'objective' | 'lineage'>, objectiveUnit?: string): ProgramTarget {
  const title = programTitle(objectiveName, program, objectiveUnit);
  if (placement.kind === 'selection') {
    const { record, baseText } = placement;
    return { file: record.sourceFile, baseText, ...regionProgramEdit(record, program.code), title };
  }
  if (placement.programFiles && placement.programFiles.length > 1) return multiFileTarget(placement.exampleDir, placement.programFiles, program.code, title);
  return { ...wholeFile(path.join(placement.exampleDir, placement.program), program.code), title };
}

/** The file as a whole, replaced by `text`. */
function wholeFile(file: string, text: string): FileTarget {
  let baseText: string;
  try {
    baseText = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(`the run's program file ${file} cannot be read here (${(error as Error).message}); was the example moved, or does the daemon run on another machine?`);
  }
  return { file, baseText, region: { startLine: 0, endLine: toDocument(baseText).lines.length }, replacement: toDocument(text).lines.join('\n') };
}

/**
 * A multi-file program: each file whose text differs from the workspace's is a change; the
 * first is the target, the rest `others` (one proposal, accepted as one edit). A program that
 * changes no file targets its first file unchanged.
 */
function multiFileTarget(exampleDir: string, programFiles: readonly string[], code: string, title: string): ProgramTarget {
  let files;
  try {
    files = unbundleProgram(code);
  } catch (error) {
    throw new Error(`the run's program is not a bundle of its files (${(error as Error).message})`);
  }
  const changes = programFiles.map((name) => {
    const text = files.find((file) => file.path === name)?.text;
    if (text === undefined) throw new Error(`the run's program has no file ${name}`);
    return { target: wholeFile(path.join(exampleDir, ...name.split('/')), text), changed: false, text };
  });
  for (const change of changes) change.changed = change.target.baseText !== change.text;
  const changed = changes.filter((change) => change.changed).map((change) => change.target);
  const [first, ...others] = changed.length > 0 ? changed : [changes[0]!.target];
  return { ...first!, title, ...(others.length > 0 && { others }) };
}
