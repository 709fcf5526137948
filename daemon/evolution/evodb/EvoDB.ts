/**
 * EvoDB: the run's MAP-Elites archive. It remembers every program ever evaluated, by content
 * hash, failures included, so an identical child is never evaluated twice; and it keeps, per
 * island and niche, the one best correct program (the elite) plus a short history of what
 * landed there. Everything a selector, the controller and a checkpoint need is cheap with
 * tens of thousands of programs: `add` touches one cell, the best is cached, and the elite
 * lists are kept slot by slot as cells change.
 *
 * Programs are held by reference: the archive sets `features` and `niche` on the program it
 * is given, and `updateObjective` changes the object in place, so every holder sees the
 * confirmed score.
 */
import * as z from 'zod';
import { DirectionSchema, FeatureDescriptorSchema, type Direction, type FeatureDescriptor } from '../../../shared/evaluation';
import { ProgramIdSchema, ProgramSchema, type Measurement, type Program } from '../../../shared/evolution';
import type { Rng } from '../rng';
import type { ArchiveView } from '../selection/ParentSelector';
import { FeatureSpace } from './features';
import { programId } from '../../../shared/programId';

export interface EvoDBOptions {
  direction: Direction;
  /** The grid's axes; FeatureSpace.defaults(direction) when absent. */
  features?: readonly FeatureDescriptor[];
  /** Independent sub-populations, joined by migration (default 1). */
  islands?: number;
  /** How many recent placements each niche remembers (default 8). */
  historyPerNiche?: number;
  /** Generations between migrations; 0 never migrates (default 10). */
  migrationInterval?: number;
}

export interface AddOutcome {
  niche: string;
  /** The program became the elite of its niche on its island. */
  newElite: boolean;
  /** The program became the best of the whole archive. */
  improvedBest: boolean;
  /** The best it displaced, when it improved the best and there was one. */
  previousBest?: Program;
  /** The archive already held this program (same source); nothing changed. */
  duplicate: boolean;
}

export interface NicheView {
  key: string;
  island: number;
  elite: Program;
  /** Ids of the last programs placed in this niche, oldest first. */
  history: string[];
}

const NicheSnapshotSchema = z.object({
  island: z.number().int().nonnegative(),
  key: z.string(),
  elite: ProgramIdSchema,
  history: z.array(ProgramIdSchema),
  /** Every program placed here, in placement order: who takes over when the elite is demoted. */
  members: z.array(ProgramIdSchema).min(1),
});

export const EvoDBSnapshotSchema = z.object({
  direction: DirectionSchema,
  features: z.array(FeatureDescriptorSchema),
  islands: z.number().int().positive(),
  historyPerNiche: z.number().int().positive(),
  migrationInterval: z.number().int().nonnegative(),
  /** Every program, in the order it was added. */
  programs: z.array(ProgramSchema),
  /** Occupied niches, in the order they were first filled (the order of `elites()`). */
  niches: z.array(NicheSnapshotSchema),
  /** Best program id per island (null while an island has no correct program). */
  bestByIsland: z.array(ProgramIdSchema.nullable()),
  best: ProgramIdSchema.nullable(),
});
export type EvoDBSnapshot = z.infer<typeof EvoDBSnapshotSchema>;

/** One (island, niche) cell of the grid. `slot`/`islandSlot`: its index in the elite lists. */
interface Cell {
  island: number;
  key: string;
  elite: Program;
  history: string[];
  members: Set<string>;
  slot: number;
  islandSlot: number;
}

/** Only a correct program with a finite score competes; the rest are remembered, never ranked. */
function eligible(program: Program): boolean {
  return program.correct && program.objective !== null && Number.isFinite(program.objective);
}

function cellId(island: number, key: string): string {
  return `${island}#${key}`;
}

function positiveInteger(value: number, name: string): number {
  if (!Number.isInteger(value) || value < 1) throw new Error(`EvoDB: ${name} must be a positive integer, got ${value}`);
  return value;
}

export class EvoDB implements ArchiveView {
  readonly direction: Direction;
  readonly islands: number;
  readonly historyPerNiche: number;
  readonly migrationInterval: number;
  readonly space: FeatureSpace;

  private readonly programs = new Map<string, Program>();
  /** familyOf()'s answers, by the features object they were computed from. */
  private readonly familyKeys = new WeakMap<object, string>();
  private readonly cells = new Map<string, Cell>();
  /** Cells in the order they were first filled; eliteList[i] is cellOrder[i].elite. */
  private readonly cellOrder: Cell[] = [];
  private readonly eliteList: Program[] = [];
  private readonly islandCells: Cell[][];
  private readonly islandElites: Program[][];
  /** Islands each program is placed on: its own, plus those it migrated to. */
  private readonly placements = new Map<string, number[]>();
  private readonly bestByIsland: (Program | undefined)[];
  private bestOverall: Program | undefined;
  /** Frozen copies handed to readers, dropped whenever an elite changes (index `islands`: all). */
  private elitesCache: (readonly Program[] | undefined)[];

  constructor(options: EvoDBOptions) {
    this.direction = DirectionSchema.parse(options.direction);
    this.islands = positiveInteger(options.islands ?? 1, 'islands');
    this.historyPerNiche = positiveInteger(options.historyPerNiche ?? 8, 'historyPerNiche');
    const interval = options.migrationInterval ?? 10;
    if (!Number.isInteger(interval) || interval < 0) throw new Error(`EvoDB: migrationInterval must be a non-negative integer, got ${interval}`);
    this.migrationInterval = interval;
    this.space = options.features ? new FeatureSpace(options.features) : FeatureSpace.defaults(this.direction);
    this.islandCells = Array.from({ length: this.islands }, () => []);
    this.islandElites = Array.from({ length: this.islands }, () => []);
    this.bestByIsland = Array.from({ length: this.islands }, () => undefined);
    this.elitesCache = [];
  }

  get size(): number {
    return this.programs.size;
  }

  has(id: string): boolean {
    return this.programs.has(id);
  }

  get(id: string): Program | undefined {
    return this.programs.get(id);
  }

  /** Every program, failures included, in the order they were added (a new array). */
  all(): Program[] {
    return [...this.programs.values()];
  }

  /** The elites of one island, or of all islands, in the order their niches were first filled. */
  elites(island?: number): readonly Program[] {
    const index = island ?? this.islands;
    const list = island === undefined ? this.eliteList : this.islandElites[island];
    if (!list) return [];
    return (this.elitesCache[index] ??= Object.freeze(list.slice()));
  }

  /** The best correct program of one island, or of the whole archive. */
  best(island?: number): Program | undefined {
    return island === undefined ? this.bestOverall : this.bestByIsland[island];
  }

  niches(): NicheView[] {
    return this.cellOrder.map((cell) => ({ key: cell.key, island: cell.island, elite: cell.elite, history: [...cell.history] }));
  }

  /**
   * A placed program's family: its niche without the objective's axes (FeatureSpace.familyKey),
   * e.g. `loops=1|builtins=1|recursion=0`; programs of one algorithm family share it at any objective.
   */
  familyOf(program: Pick<Program, 'features'>): string {
    // A program's features are set once, as it is added: its family key is kept with them
    // (the parent choice asks for the family of every program of the archive, every plan).
    const features = program.features;
    let key = this.familyKeys.get(features);
    if (key === undefined) this.familyKeys.set(features, (key = this.space.familyKey(features)));
    return key;
  }

  /** True when the controller should migrate after this generation. */
  migrationDue(generation: number): boolean {
    return this.islands > 1 && this.migrationInterval > 0 && generation > 0 && generation % this.migrationInterval === 0;
  }

  /**
   * Remember a program and, when it is correct, place it in its niche on its island
   * (program.lineage.island). Sets program.features and program.niche.
   * @throws when the id is not the hash of the code or the island does not exist.
   */
  add(program: Program): AddOutcome {
    const island = program.lineage.island;
    if (!Number.isInteger(island) || island < 0 || island >= this.islands) {
      throw new Error(`EvoDB: program ${program.id.slice(0, 12)} is on island ${island}, but the archive has ${this.islands}`);
    }
    return this.addOn(program, island);
  }

  /**
   * A re-measurement of a program (typically the confirmations of a would-be best): record the
   * measurement, take `objective` as its score, and re-place it everywhere it was placed. A
   * lower confirmed score may move it to another niche, hand its niche to the next best
   * program there, and give the best to another program; a null score withdraws it.
   * @throws when the archive does not hold the program.
   */
  updateObjective(id: string, objective: number | null, measurement: Measurement): void {
    const program = this.programs.get(id);
    if (!program) throw new Error(`EvoDB: no program ${id.slice(0, 12)} to update`);
    const islands = this.placements.get(id) ?? [this.home(program)];
    for (const island of this.placements.get(id) ?? []) this.unplace(program, island);
    this.placements.delete(id);
    program.objective = objective;
    program.measurements.push(measurement);
    this.locate(program);
    if (eligible(program)) for (const island of islands) this.place(program, island);
    this.recomputeBests();
  }

  /**
   * Ring migration: each island's best is copied to the next island, where it becomes the
   * elite of its niche when it beats the one there. The migrants are chosen before any moves,
   * so one call moves a program one island at most. Returns how many programs were placed.
   * The ring-of-bests policy draws nothing from the Rng; it is taken so that a policy that
   * samples migrants keeps the signature and stays replayable.
   */
  migrate(_rng: Rng): number {
    if (this.islands < 2) return 0;
    const migrants = [...this.bestByIsland];
    let placed = 0;
    migrants.forEach((migrant, island) => {
      if (!migrant) return;
      const target = (island + 1) % this.islands;
      if (this.placements.get(migrant.id)?.includes(target)) return;
      const cell = this.cells.get(cellId(target, migrant.niche!));
      if (cell && !this.better(migrant, cell.elite)) return;
      this.place(migrant, target);
      placed++;
    });
    return placed;
  }

  /**
   * Add the programs of another archive that this one does not know (copies, in the other's
   * order), placing each on its own island (modulo this archive's island count) in this
   * archive's grid. Returns how many were new.
   */
  merge(other: EvoDB): number {
    if (other.direction !== this.direction) throw new Error(`EvoDB: cannot merge a ${other.direction} archive into a ${this.direction} one`);
    return this.mergePrograms(other.programs.values()).length;
  }

  /**
   * {@link merge} for programs held elsewhere than in an archive (a journal's merge event):
   * the caller vouches that they were ranked in the same direction. Returns the copies added.
   * @throws when a program's id is not the hash of its code.
   */
  mergePrograms(programs: Iterable<Program>): Program[] {
    const added: Program[] = [];
    for (const program of programs) {
      if (this.programs.has(program.id)) continue;
      const copy = structuredClone(program);
      this.addOn(copy, this.home(program));
      added.push(copy);
    }
    return added;
  }

  /** The whole archive as plain data; programs are the archive's own objects, not copies. */
  toJSON(): EvoDBSnapshot {
    return {
      direction: this.direction,
      features: this.space.descriptors.map((descriptor) => ({ ...descriptor, bins: [...descriptor.bins] })),
      islands: this.islands,
      historyPerNiche: this.historyPerNiche,
      migrationInterval: this.migrationInterval,
      programs: [...this.programs.values()],
      niches: this.cellOrder.map((cell) => ({
        island: cell.island,
        key: cell.key,
        elite: cell.elite.id,
        history: [...cell.history],
        members: [...cell.members],
      })),
      bestByIsland: this.bestByIsland.map((program) => program?.id ?? null),
      best: this.bestOverall?.id ?? null,
    };
  }

  /** Rebuild an archive from toJSON's output. @throws naming what is invalid or inconsistent. */
  static fromJSON(snapshot: unknown): EvoDB {
    const parsed = EvoDBSnapshotSchema.safeParse(snapshot);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new Error(`EvoDB snapshot: ${issue.path.join('.') || '(root)'}: ${issue.message}`);
    }
    const data = parsed.data;
    const invalid = (why: string): never => {
      throw new Error(`EvoDB snapshot: ${why}`);
    };
    const db = new EvoDB({
      direction: data.direction,
      features: data.features,
      islands: data.islands,
      historyPerNiche: data.historyPerNiche,
      migrationInterval: data.migrationInterval,
    });
    for (const program of data.programs) {
      if (db.programs.has(program.id)) invalid(`program ${program.id.slice(0, 12)} appears twice`);
      if (programId(program.code) !== program.id) invalid(`program ${program.id.slice(0, 12)} does not match its code`);
      db.programs.set(program.id, program);
    }
    const known = (id: string, where: string): Program => db.programs.get(id) ?? invalid(`${where} names unknown program ${id.slice(0, 12)}`);
    for (const niche of data.niches) {
      const where = `niche ${niche.key} on island ${niche.island}`;
      if (niche.island >= db.islands) invalid(`${where}: no such island`);
      if (db.cells.has(cellId(niche.island, niche.key))) invalid(`${where} appears twice`);
      if (new Set(niche.members).size !== niche.members.length) invalid(`${where} lists a member twice`);
      const members = niche.members.map((id) => known(id, where));
      for (const member of members) {
        if (!eligible(member)) invalid(`${where} holds failed program ${member.id.slice(0, 12)}`);
        if (member.niche !== niche.key) invalid(`${where} holds program ${member.id.slice(0, 12)} of niche ${member.niche}`);
        db.placements.set(member.id, [...(db.placements.get(member.id) ?? []), niche.island]);
      }
      if (!niche.members.includes(niche.elite)) invalid(`${where}: its elite is not one of its members`);
      niche.history.forEach((id) => known(id, where));
      db.addCell({ island: niche.island, key: niche.key, elite: known(niche.elite, where), history: [...niche.history], members: new Set(niche.members) });
    }
    // Migration moves a program one step round the ring at a time, so the islands it was
    // placed on, in placement order, run from its home island round the ring.
    for (const [id, islands] of db.placements) {
      const home = db.home(db.programs.get(id)!);
      islands.sort((a, b) => ((a - home + db.islands) % db.islands) - ((b - home + db.islands) % db.islands));
    }
    if (data.bestByIsland.length !== db.islands) invalid(`bestByIsland has ${data.bestByIsland.length} entries for ${db.islands} islands`);
    data.bestByIsland.forEach((id, island) => {
      if (id === null) {
        if (db.islandElites[island]!.length > 0) invalid(`island ${island} has elites but no best`);
        return;
      }
      const program = known(id, `the best of island ${island}`);
      if (!db.islandElites[island]!.includes(program)) invalid(`the best of island ${island} is not one of its elites`);
      if (db.islandElites[island]!.some((elite) => db.better(elite, program))) invalid(`the best of island ${island} is beaten by one of its elites`);
      db.bestByIsland[island] = program;
    });
    if (data.best !== null) {
      const program = known(data.best, 'the best');
      if (!db.bestByIsland.includes(program)) invalid('the best is not the best of any island');
      if (db.bestByIsland.some((islandBest) => islandBest && db.better(islandBest, program))) invalid('the best is beaten by the best of an island');
      db.bestOverall = program;
    } else if (db.cellOrder.length > 0) {
      invalid('the archive has elites but no best');
    }
    return db;
  }

  private better(a: Program, b: Program): boolean {
    return this.direction === 'maximize' ? a.objective! > b.objective! : a.objective! < b.objective!;
  }

  /** Set the program's coordinates and niche key from its current code, score and metrics. */
  private locate(program: Program): string {
    program.features = this.space.features({ code: program.code, objective: program.objective, metrics: program.evaluation?.metrics ?? {} });
    program.niche = this.space.nicheKey(program.features);
    return program.niche;
  }

  private addOn(program: Program, island: number): AddOutcome {
    const existing = this.programs.get(program.id);
    if (existing) return { niche: existing.niche ?? this.space.nicheKey(existing.features), newElite: false, improvedBest: false, duplicate: true };
    if (programId(program.code) !== program.id) throw new Error(`EvoDB: program ${program.id.slice(0, 12)} is not the sha256 of its code`);
    const niche = this.locate(program);
    this.programs.set(program.id, program);
    if (!eligible(program)) return { niche, newElite: false, improvedBest: false, duplicate: false };
    const previousBest = this.bestOverall;
    const newElite = this.place(program, island);
    const improvedBest = this.bestOverall !== previousBest;
    return { niche, newElite, improvedBest, ...(improvedBest && previousBest ? { previousBest } : {}), duplicate: false };
  }

  /** Put an eligible program in its niche on an island. Returns whether it became the elite. */
  private place(program: Program, island: number): boolean {
    const key = program.niche!;
    this.placements.set(program.id, [...(this.placements.get(program.id) ?? []), island]);
    let cell = this.cells.get(cellId(island, key));
    let newElite = false;
    if (!cell) {
      cell = this.addCell({ island, key, elite: program, history: [], members: new Set() });
      newElite = true;
    } else if (this.better(program, cell.elite)) {
      this.setElite(cell, program);
      newElite = true;
    }
    cell.members.add(program.id);
    cell.history.push(program.id);
    if (cell.history.length > this.historyPerNiche) cell.history.shift();
    if (newElite) {
      const islandBest = this.bestByIsland[island];
      if (!islandBest || this.better(program, islandBest)) this.bestByIsland[island] = program;
      if (!this.bestOverall || this.better(program, this.bestOverall)) this.bestOverall = program;
    }
    return newElite;
  }

  /** Take a program out of its niche on an island; the next best member inherits the niche. */
  private unplace(program: Program, island: number): void {
    const cell = this.cells.get(cellId(island, program.niche!));
    if (!cell) return;
    cell.members.delete(program.id);
    const at = cell.history.indexOf(program.id);
    if (at !== -1) cell.history.splice(at, 1);
    if (cell.elite !== program) return;
    if (cell.members.size === 0) {
      this.removeCell(cell);
      return;
    }
    let successor: Program | undefined;
    for (const id of cell.members) {
      const member = this.programs.get(id)!;
      if (!successor || this.better(member, successor)) successor = member;
    }
    this.setElite(cell, successor!);
  }

  private addCell(fields: Omit<Cell, 'slot' | 'islandSlot'>): Cell {
    const cell: Cell = { ...fields, slot: this.cellOrder.length, islandSlot: this.islandCells[fields.island]!.length };
    this.cells.set(cellId(cell.island, cell.key), cell);
    this.cellOrder.push(cell);
    this.eliteList.push(cell.elite);
    this.islandCells[cell.island]!.push(cell);
    this.islandElites[cell.island]!.push(cell.elite);
    this.elitesCache = [];
    return cell;
  }

  private setElite(cell: Cell, program: Program): void {
    cell.elite = program;
    this.eliteList[cell.slot] = program;
    this.islandElites[cell.island]![cell.islandSlot] = program;
    this.elitesCache = [];
  }

  /** Rare (a withdrawn sole member): renumber the slots after it. */
  private removeCell(cell: Cell): void {
    this.cells.delete(cellId(cell.island, cell.key));
    this.cellOrder.splice(cell.slot, 1);
    this.eliteList.splice(cell.slot, 1);
    this.cellOrder.forEach((other, slot) => (other.slot = slot));
    const islandCells = this.islandCells[cell.island]!;
    islandCells.splice(cell.islandSlot, 1);
    this.islandElites[cell.island]!.splice(cell.islandSlot, 1);
    islandCells.forEach((other, slot) => (other.islandSlot = slot));
    this.elitesCache = [];
  }

  /** After a re-measurement: the bests from the elites (only elites can be bests). */
  private recomputeBests(): void {
    // A best that is still an elite keeps its title against equals, as it would under add.
    for (let island = 0; island < this.islands; island++) {
      const elites = this.islandElites[island]!;
      const incumbent = this.bestByIsland[island];
      let best = incumbent && elites.includes(incumbent) ? incumbent : undefined;
      for (const elite of elites) if (!best || this.better(elite, best)) best = elite;
      this.bestByIsland[island] = best;
    }
    const incumbent = this.bestOverall;
    let best = incumbent && this.bestByIsland.includes(incumbent) ? incumbent : undefined;
    for (const islandBest of this.bestByIsland) if (islandBest && (!best || this.better(islandBest, best))) best = islandBest;
    this.bestOverall = best;
  }

  /** The island a program lives on here (merged archives may have had more islands). */
  private home(program: Program): number {
    return program.lineage.island % this.islands;
  }
}
