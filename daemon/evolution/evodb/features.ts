/**
 * The MAP-Elites grid: which niche a program lands in. Each descriptor is one axis; a value's
 * bin on an axis is the number of that axis's edges at or below the value, so a program's
 * coordinates are small integers and its niche key (`objective=3|codeLength=2`) names a cell.
 */
import { FeatureDescriptorSchema, type Direction, type FeatureDescriptor } from '../../../shared/evaluation';
import { lineCount } from '../../../shared/lines';
import { comparesByFactor, type ObjectiveTerms } from '../../../shared/objectiveText';
import { structureLanguage, structureOf, type ProgramStructure, type StructureAxis, type StructureLanguage } from './structure';

/** What a program contributes to its coordinates. */
export interface FeatureInput {
  code: string;
  objective: number | null;
  metrics?: Readonly<Record<string, number>>;
}

/** Bin coordinates by descriptor name (what Program.features holds). */
export type FeatureBins = Record<string, number>;

/** Powers of two from 2^from to 2^to: log-spaced edges, one bin per doubling. */
function powersOfTwo(from: number, to: number): number[] {
  const edges: number[] = [];
  for (let exponent = from; exponent <= to; exponent++) edges.push(2 ** exponent);
  return edges;
}

export class FeatureSpace {
  readonly descriptors: readonly FeatureDescriptor[];

  /** @throws Error naming the bad descriptor (unknown source, unsorted edges, duplicate name). */
  constructor(descriptors: readonly FeatureDescriptor[]) {
    const names = new Set<string>();
    this.descriptors = descriptors.map((descriptor, index) => {
      const parsed = FeatureDescriptorSchema.safeParse(descriptor);
      if (!parsed.success) throw new Error(`feature ${index}: ${parsed.error.issues.map((issue) => issue.message).join('; ')}`);
      const { name, from, bins, language } = parsed.data;
      // `|` and `=` separate a niche key's parts; a name holding them would make keys ambiguous.
      if (/[|=]/.test(name)) throw new Error(`feature ${name}: a name may not contain "|" or "="`);
      if (names.has(name)) throw new Error(`feature ${name}: declared twice`);
      names.add(name);
      bins.forEach((edge, at) => {
        if (!Number.isFinite(edge)) throw new Error(`feature ${name}: bin edges must be finite numbers`);
        if (at > 0 && edge <= bins[at - 1]!) throw new Error(`feature ${name}: bin edges must be strictly ascending`);
      });
      if (from.startsWith('structure:') && language === undefined) {
        throw new Error(`feature ${name}: ${from} reads the program's structure and needs its language ("language": "python" or "javascript")`);
      }
      return { name, from, bins: [...bins], ...(language !== undefined && { language }) };
    });
  }

  /**
   * The grid used when an example declares none: the objective's axis (see objectiveEdges) and
   * the code length every 500 characters up to 8000. `objective` defaults to a speedup when
   * only the direction is known (archives made before the unit was passed in).
   */
  static defaults(direction: Direction, objective?: Omit<ObjectiveTerms, 'direction'>): FeatureSpace {
    const codeLengthEdges = Array.from({ length: 16 }, (_, index) => (index + 1) * 500);
    return new FeatureSpace([
      { name: 'objective', from: 'objective', bins: objectiveEdges({ name: objective?.name ?? 'speedup', unit: objective?.unit, direction }) },
      { name: 'codeLength', from: 'codeLength', bins: codeLengthEdges },
    ]);
  }

  /**
   * The grid of a new run whose example declares none: for a Python or JavaScript program the
   * objective's axis x loop nesting (none, 1, 2, 3+) x native built-ins (none, 1-2, 3+) x
   * recursion (no, yes) x hashed containers built (none, maps, sets, both), so that a program of
   * another algorithm family (a heap, a recursion, a flatter loop, a running count in a map) has
   * a niche of its own; for another language today's objective x code length.
   * A run records the grid it resolves to (its manifest's settings.features), and a run without
   * one keeps `defaults`: a default changed later never moves an existing run's niches.
   */
  static forNewRun(direction: Direction, objective: Omit<ObjectiveTerms, 'direction'>, language: StructureLanguage | undefined): FeatureSpace {
    if (language === undefined) return FeatureSpace.defaults(direction, objective);
    return new FeatureSpace([
      { name: 'objective', from: 'objective', bins: objectiveEdges({ name: objective.name, unit: objective.unit, direction }) },
      ...STRUCTURE_DEFAULT_AXES.map((axis) => ({ ...axis, bins: [...axis.bins], language })),
    ]);
  }

  /**
   * The axes a run of an example uses: its declared `features`, each structure axis given the
   * program's language (written on the descriptor, or the example's), or forNewRun's
   * structural grid. Undefined for an undeclared grid of another language: the run records
   * none, and binds by `defaults` as every run did before structural axes.
   * @throws Error saying what to write when a structure axis has no language to read.
   */
  static resolve(
    example: { objective: ObjectiveTerms; language?: string | undefined; features?: readonly FeatureDescriptor[] | undefined },
    programFile: string,
  ): FeatureDescriptor[] | undefined {
    const language = structureLanguage(example.language, programFile);
    const { direction, ...objective } = example.objective;
    if (!example.features) return language === undefined ? undefined : [...FeatureSpace.forNewRun(direction, objective, language).descriptors];
    return new FeatureSpace(
      example.features.map((descriptor) => {
        if (!descriptor.from.startsWith('structure:') || descriptor.language !== undefined) return descriptor;
        if (language === undefined) {
          const what = example.language ? `language "${example.language}"` : `program ${programFile}`;
          throw new Error(
            `feature ${descriptor.name}: ${descriptor.from} reads Python or JavaScript, and the example's ${what} is neither; set the example's "language" to python or javascript, or use another axis (objective, codeLength, lines, metric:NAME)`,
          );
        }
        return { ...descriptor, language };
      }),
    ).descriptors.slice();
  }

  /** The raw value a descriptor reads, or undefined when the program has none (a failure, a missing metric). */
  value(descriptor: FeatureDescriptor, input: FeatureInput, structure?: () => ProgramStructure): number | undefined {
    if (descriptor.from === 'objective') return input.objective ?? undefined;
    if (descriptor.from === 'codeLength') return input.code.length;
    if (descriptor.from === 'lines') return lineCount(input.code);
    if (descriptor.from.startsWith('structure:')) {
      const axis = descriptor.from.slice('structure:'.length) as StructureAxis;
      return (structure ?? (() => structureOf(input.code, descriptor.language ?? 'python')))()[axis];
    }
    return input.metrics?.[descriptor.from.slice('metric:'.length)];
  }

  /** A value's bin on an axis: the number of edges at or below it; 0 when there is no value. */
  static bin(edges: readonly number[], value: number | undefined): number {
    if (value === undefined || Number.isNaN(value)) return 0;
    // Binary search for the first edge above the value.
    let low = 0;
    let high = edges.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (edges[middle]! <= value) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  features(input: FeatureInput): FeatureBins {
    const bins: FeatureBins = {};
    // The text is scanned once per language, however many structure axes read it.
    const scans = new Map<StructureLanguage, ProgramStructure>();
    for (const descriptor of this.descriptors) {
      const language = descriptor.language ?? 'python';
      const structure = (): ProgramStructure => {
        let scan = scans.get(language);
        if (!scan) scans.set(language, (scan = structureOf(input.code, language)));
        return scan;
      };
      bins[descriptor.name] = FeatureSpace.bin(descriptor.bins, this.value(descriptor, input, structure));
    }
    return bins;
  }

  /**
   * A program's family: its niche key without the objective's axes (`loops=2|builtins=1|recursion=0`),
   * so programs of one family at different objective levels share it. Selection can credit and
   * spread its calls per family. The empty string when every axis is an objective axis.
   */
  familyKey(features: Readonly<FeatureBins>): string {
    return this.descriptors
      .filter(({ from }) => from !== 'objective')
      .map(({ name }) => `${name}=${features[name] ?? 0}`)
      .join('|');
  }

  /** `name=bin|name=bin` in descriptor order; a missing coordinate counts as bin 0. */
  nicheKey(features: Readonly<FeatureBins>): string {
    return this.descriptors.map(({ name }) => `${name}=${features[name] ?? 0}`).join('|');
  }

  /** The coordinates a niche key names (the inverse of nicheKey). */
  static parseNicheKey(key: string): FeatureBins {
    const bins: FeatureBins = {};
    if (key === '') return bins;
    for (const part of key.split('|')) {
      const [name, bin] = part.split('=');
      if (name === undefined || bin === undefined || !/^\d+$/.test(bin)) throw new Error(`not a niche key: ${key}`);
      bins[name] = Number(bin);
    }
    return bins;
  }
}

/**
 * The structural axes of forNewRun's grid (edges: loops 0, 1, 2, 3+; built-ins 0, 1-2, 3+;
 * recursion 0, 1; containers: none, maps, sets, maps and sets).
 */
const STRUCTURE_DEFAULT_AXES: readonly Omit<FeatureDescriptor, 'language'>[] = [
  { name: 'loops', from: 'structure:loops', bins: [1, 2, 3] },
  { name: 'builtins', from: 'structure:builtins', bins: [1, 3] },
  { name: 'recursion', from: 'structure:recursion', bins: [1] },
  { name: 'containers', from: 'structure:containers', bins: [1, 2, 3] },
];

/**
 * Default edges of the objective's axis. A factor-like objective spans orders of magnitude: a
 * maximized one (a speedup) one bin per doubling from 0.5 to 1024, a minimized one (a time, a
 * cost, anywhere from milliseconds to millions) from 2^-10 to 2^20. A score moves by small
 * steps, and one bin per doubling would hold a whole run's progress (61% to 69%) in one niche:
 * a percentage gets one bin per 5 points, any other score one bin per quarter doubling (about
 * 19% apart) from 2^-8 to 2^12, so it needs no declared range.
 */
export function objectiveEdges(terms: ObjectiveTerms): number[] {
  if (comparesByFactor(terms)) return terms.direction === 'maximize' ? powersOfTwo(-1, 10) : powersOfTwo(-10, 20);
  if (terms.unit === '%') return Array.from({ length: 20 }, (_, index) => (index + 1) * 5);
  return Array.from({ length: 81 }, (_, index) => Number((2 ** (index / 4 - 8)).toPrecision(4)));
}
