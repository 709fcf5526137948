/**
 * The offline mutator: genetic improvement without an LLM. It edits whole statements inside
 * the parent's EVOLVE-BLOCK regions (the whole file when it has none): delete one, copy one to
 * another place, swap two siblings, replace one with a donor's statement, or take a donor's
 * version of a whole top-level definition. Every choice comes from `Rng(request.seed)`, so the
 * same request gives the same child. Candidates that break indentation or brackets are
 * discarded and another random edit is tried, a bounded number of times.
 */
import { programId } from '../../../shared/programId';
import { bundleProgram, isProgramBundle, unbundleProgram } from '../../../shared/programFiles';
import { Rng } from '../rng';
import type { MutationProposal, MutationRequest, Mutator } from './Mutator';
import { blocksOfLines, keepsFixedText } from '../../../shared/evolveBlocks';
import { fromDocument, toDocument } from '../../../shared/lines';
import { unifiedDiff } from './patch/unifiedDiff';
import {
  copyStatement,
  crossover,
  deadStores,
  deleteLines,
  deleteStatement,
  donorStatement,
  swapStatements,
  type Donor,
  type OperatorName,
  type Subject,
} from './offline/operators';
import { looksValid } from './offline/sanity';
import { detectSyntax, type Syntax } from './scan';
import { parseRegion, type Block } from './offline/statements';

/** Relative odds of each operator (among those that apply to the request). */
const OPERATOR_WEIGHTS: Record<OperatorName, number> = { delete: 4, copy: 1.5, swap: 1.5, donor: 2, crossover: 2 };

/** Same bound as the evaluate payload's program size: larger inputs are not worth parsing. */
const MAX_PROGRAM_CHARS = 4_000_000;

export interface OfflineMutatorOptions {
  /** Random edits tried before giving up with `no_mutation`. */
  attempts?: number;
}

export class OfflineMutator implements Mutator {
  readonly name = 'offline';
  readonly usesLlm = false;
  private readonly attempts: number;

  constructor(options: OfflineMutatorOptions = {}) {
    this.attempts = options.attempts ?? 64;
  }

  async propose(request: MutationRequest): Promise<MutationProposal> {
    try {
      return isProgramBundle(request.parent.code) ? this.proposeInFiles(request) : this.proposeSync(request);
    } catch (error) {
      // The operators are total by design; this is a last guard so a bug costs one proposal, not the run.
      return this.failure('internal_error', `offline mutator failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /**
   * A multi-file program (shared/programFiles.ts): one file is edited, its donors being the
   * inspirations' versions of the same file; files are tried in an order drawn from the seed
   * until one gives a child.
   */
  private proposeInFiles(request: MutationRequest): MutationProposal {
    const files = unbundleProgram(request.parent.code);
    const rng = new Rng(request.seed);
    const order = files.map((_, i) => i);
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(rng.next() * (i + 1));
      [order[i], order[j]] = [order[j]!, order[i]!];
    }
    let last: MutationProposal | undefined;
    for (const index of order) {
      const file = files[index]!;
      const donors = request.inspirations.flatMap((donor) => {
        if (!isProgramBundle(donor.code)) return [];
        try {
          const same = unbundleProgram(donor.code).find((other) => other.path === file.path);
          return same ? [{ ...donor, code: same.text }] : [];
        } catch {
          return [];
        }
      });
      const withFile = (text: string): string => bundleProgram(files.map((other, k) => (k === index ? { path: other.path, text } : other)));
      const language = /\.py$/.test(file.path) ? 'python' : /\.(c|m)?js$/.test(file.path) ? 'javascript' : request.task.language;
      const fileRequest: MutationRequest = {
        ...request,
        task: { ...request.task, ...(language !== undefined && { language }) },
        parent: { ...request.parent, code: file.text },
        inspirations: donors,
        seed: Math.floor(rng.next() * 2 ** 31),
      };
      last = this.proposeSync(fileRequest, withFile);
      if (last.ok) return last;
    }
    return last ?? this.failure('no_mutation', 'the program has no file to mutate');
  }

  /** A child of `request.parent.code`; `whole` puts an edited text back into the program it is part of. */
  private proposeSync(request: MutationRequest, whole: (text: string) => string = (text) => text): MutationProposal {
    const parent = request.parent.code;
    if (parent.length > MAX_PROGRAM_CHARS) return this.failure('no_mutation', `the program has ${parent.length} characters, more than the offline mutator edits`);
    const doc = toDocument(parent);
    const syntax = detectSyntax(doc.lines.join('\n'), request.task.language);
    const subject: Subject = { lines: doc.lines, blocks: regionStatements(doc.lines, syntax), syntax };
    if (subject.blocks.every((block) => block.statements.length === 0)) {
      return this.failure('no_mutation', 'the editable regions hold no statement to mutate');
    }
    const donors: Donor[] = request.inspirations
      .filter((donor) => donor.code.length <= MAX_PROGRAM_CHARS && donor.code !== parent)
      .map((donor) => {
        const lines = toDocument(donor.code).lines;
        return { lines, blocks: regionStatements(lines, syntax) };
      });
    const operators = (Object.keys(OPERATOR_WEIGHTS) as OperatorName[]).filter((op) => (op === 'donor' || op === 'crossover' ? donors.length > 0 : true));
    const parentIsSane = looksValid(doc.lines, syntax);
    const rng = new Rng(request.seed);
    const avoid = new Set(request.avoid ?? []);
    const child = (lines: string[] | null): MutationProposal | null => {
      if (lines === null) return null;
      const text = fromDocument({ ...doc, lines });
      if (text === parent) return null;
      const code = whole(text);
      if (avoid.size > 0 && avoid.has(programId(code))) return null;
      if (!keepsFixedText(doc.lines, lines)) return null;
      // A parent the check already rejects (unusual syntax) cannot be judged by it: let the evaluator decide.
      if (parentIsSane && !looksValid(lines, syntax)) return null;
      return { ok: true, mutator: this.name, exchanges: [], repairs: 0, code, patch: unifiedDiff(whole(parent), code) };
    };
    // Dead stores first (in an order drawn from the seed): the obvious win, within a few evaluations.
    for (const statement of rng.shuffle(deadStores(subject))) {
      const proposal = child(deleteLines(subject, statement));
      if (proposal) return proposal;
    }
    for (let attempt = 0; attempt < this.attempts; attempt++) {
      const operator = pickWeighted(rng, operators);
      const proposal = child(applyOperator(operator, subject, donors, rng));
      if (proposal) return proposal;
    }
    return this.failure('no_mutation', `no valid, different child in ${this.attempts} random edits`);
  }

  private failure(reason: string, message: string): MutationProposal {
    return { ok: false, mutator: this.name, exchanges: [], repairs: 0, reason, message };
  }
}

/** The statements of every EVOLVE-BLOCK region, or of the whole program when it has none. */
function regionStatements(lines: readonly string[], syntax: Syntax): Block[] {
  const regions = blocksOfLines(lines);
  if (regions.length === 0) return parseRegion(lines, 0, lines.length, syntax);
  return regions.flatMap((region) => parseRegion(lines, region.startLine, region.endLine - 1, syntax));
}

function pickWeighted(rng: Rng, operators: readonly OperatorName[]): OperatorName {
  const total = operators.reduce((sum, op) => sum + OPERATOR_WEIGHTS[op], 0);
  let roll = rng.next() * total;
  for (const op of operators) {
    roll -= OPERATOR_WEIGHTS[op];
    if (roll < 0) return op;
  }
  return operators[operators.length - 1]!;
}

function applyOperator(operator: OperatorName, subject: Subject, donors: readonly Donor[], rng: Rng): string[] | null {
  switch (operator) {
    case 'delete':
      return deleteStatement(subject, rng);
    case 'copy':
      return copyStatement(subject, rng);
    case 'swap':
      return swapStatements(subject, rng);
    case 'donor':
      return donorStatement(subject, donors, rng);
    case 'crossover':
      return crossover(subject, donors, rng);
  }
}
