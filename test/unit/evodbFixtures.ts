import * as assert from 'node:assert/strict';
import type { FeatureDescriptor } from '../../shared/evaluation';
import type { Program } from '../../shared/evolution';
import type { EvoDB } from '../../daemon/evolution/evodb/EvoDB';
import { programId } from '../../shared/programId';

/** A small grid that tests can reason about: objective bins [1,2,4), code length bins [10,20). */
export const GRID: FeatureDescriptor[] = [
  { name: 'speedup', from: 'objective', bins: [1, 2, 4] },
  { name: 'size', from: 'codeLength', bins: [10, 20] },
];

export interface ProgramOptions {
  island?: number;
  correct?: boolean;
  /** Code length (the tag is padded to it). */
  length?: number;
  metrics?: Record<string, number>;
}

/** A program whose source is `tag` padded to `length` characters, so its id is unique per tag. */
export function makeProgram(tag: string, objective: number | null, options: ProgramOptions = {}): Program {
  const code = tag.padEnd(options.length ?? 5, '#');
  const correct = options.correct ?? objective !== null;
  return {
    id: programId(code),
    code,
    lineage: {
      parents: [],
      generation: 0,
      mutator: 'seed',
      exchanges: [],
      seed: 0,
      repairs: 0,
      island: options.island ?? 0,
      createdAt: '2025-01-01T00:00:00.000Z',
    },
    evaluation: {
      correct,
      objective,
      direction: 'maximize',
      metrics: options.metrics ?? {},
      executor: 'test',
      exitCode: 0,
      wallMs: 1,
    },
    objective,
    correct,
    measurements: [],
    features: {},
  };
}

/**
 * Brute force over every program: each niche's elite is the best correct program placed in it
 * on that island, and the bests are the best correct programs. Holds for archives built by
 * add() alone (migration places programs off their home island).
 */
export function assertMatchesBruteForce(db: EvoDB): void {
  const better = (a: Program, b: Program): boolean => (db.direction === 'maximize' ? a.objective! > b.objective! : a.objective! < b.objective!);
  const bestPerCell = new Map<string, Program>();
  const bestPerIsland = new Map<number, Program>();
  let overall: Program | undefined;
  for (const program of db.all()) {
    if (!program.correct || program.objective === null) continue;
    const cell = `${program.lineage.island}#${program.niche}`;
    const incumbent = bestPerCell.get(cell);
    if (!incumbent || better(program, incumbent)) bestPerCell.set(cell, program);
    const islandBest = bestPerIsland.get(program.lineage.island);
    if (!islandBest || better(program, islandBest)) bestPerIsland.set(program.lineage.island, program);
    if (!overall || better(program, overall)) overall = program;
  }
  const niches = db.niches();
  assert.equal(niches.length, bestPerCell.size, 'one niche per occupied cell');
  for (const niche of niches) {
    assert.equal(niche.elite.objective, bestPerCell.get(`${niche.island}#${niche.key}`)?.objective, `elite of ${niche.island}#${niche.key}`);
  }
  assert.deepEqual(
    db.elites().map((program) => program.id),
    niches.map((niche) => niche.elite.id),
  );
  assert.equal(db.best()?.objective, overall?.objective);
  for (let island = 0; island < db.islands; island++) {
    assert.equal(db.best(island)?.objective, bestPerIsland.get(island)?.objective, `best of island ${island}`);
    assert.deepEqual(
      db.elites(island).map((program) => program.id),
      niches.filter((niche) => niche.island === island).map((niche) => niche.elite.id),
    );
  }
}
