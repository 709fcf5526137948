import * as assert from 'node:assert/strict';
import { EvoDB, type EvoDBSnapshot } from '../../daemon/evolution/evodb/EvoDB';
import { Rng } from '../../daemon/evolution/rng';
import { GRID, makeProgram } from './evodbFixtures';

/** An archive that has been through everything: failures, islands, migration, confirmations. */
function busyArchive(): EvoDB {
  const db = new EvoDB({ direction: 'maximize', features: GRID, islands: 3, historyPerNiche: 2, migrationInterval: 4 });
  const rng = new Rng(3);
  for (let index = 0; index < 200; index++) {
    const failed = rng.next() < 0.25;
    db.add(makeProgram(`p${index}`, failed ? null : 0.5 + rng.next() * 4, { island: index % 3, length: 1 + rng.int(30) }));
    if (index % 50 === 49) db.migrate(rng);
  }
  const best = db.best()!;
  db.updateObjective(best.id, best.objective! * 0.6, { seed: 9, objective: best.objective! * 0.6, wallMs: 3 });
  return db;
}

/** What a checkpoint sees: the snapshot through JSON. */
const throughJson = (snapshot: EvoDBSnapshot): unknown => JSON.parse(JSON.stringify(snapshot));

describe('EvoDB snapshot', () => {
  it('round-trips exactly: programs, elites, bests, histories and their order', () => {
    const db = busyArchive();
    const snapshot = throughJson(db.toJSON());
    const restored = EvoDB.fromJSON(snapshot);
    assert.deepEqual(restored.toJSON(), snapshot);
    assert.deepEqual(
      restored.all().map((program) => program.id),
      db.all().map((program) => program.id),
    );
    assert.deepEqual(
      restored.elites().map((program) => program.id),
      db.elites().map((program) => program.id),
    );
    for (let island = 0; island < 3; island++) assert.equal(restored.best(island)?.id, db.best(island)?.id);
    assert.equal(restored.best()!.id, db.best()!.id);
    assert.deepEqual(
      restored.niches().map((niche) => [niche.island, niche.key, niche.elite.id, niche.history]),
      db.niches().map((niche) => [niche.island, niche.key, niche.elite.id, niche.history]),
    );
    assert.equal(restored.migrationInterval, 4);
    assert.equal(restored.historyPerNiche, 2);
  });

  it('gives an archive that goes on exactly like the original', () => {
    const db = busyArchive();
    const restored = EvoDB.fromJSON(throughJson(db.toJSON()));
    const rng = new Rng(11);
    for (let index = 0; index < 60; index++) {
      const objective = rng.next() < 0.2 ? null : 0.5 + rng.next() * 6;
      const options = { island: index % 3, length: 1 + rng.int(30) };
      assert.deepEqual(restored.add(makeProgram(`next${index}`, objective, options)), db.add(makeProgram(`next${index}`, objective, options)));
    }
    db.migrate(new Rng(1));
    restored.migrate(new Rng(1));
    const best = db.best()!;
    for (const archive of [db, restored]) archive.updateObjective(best.id, 0.7, { seed: 2, objective: 0.7, wallMs: 1 });
    assert.deepEqual(restored.toJSON(), db.toJSON());
  });

  it('rejects a snapshot that is malformed, naming where', () => {
    const snapshot = throughJson(busyArchive().toJSON()) as EvoDBSnapshot;
    assert.throws(() => EvoDB.fromJSON({ ...snapshot, islands: 0 }), /EvoDB snapshot: islands:/);
    assert.throws(() => EvoDB.fromJSON({ ...snapshot, programs: [{ id: 'x' }] }), /EvoDB snapshot: programs\.0\./);
    assert.throws(() => EvoDB.fromJSON(null), /EvoDB snapshot: \(root\)/);
  });

  it('rejects a snapshot that is inconsistent', () => {
    const snapshot = throughJson(busyArchive().toJSON()) as EvoDBSnapshot;
    const tampered = structuredClone(snapshot);
    tampered.programs[0]!.code += ' ';
    assert.throws(() => EvoDB.fromJSON(tampered), /does not match its code/);

    const wrongElite = structuredClone(snapshot);
    const failed = snapshot.programs.find((program) => !program.correct)!;
    wrongElite.niches[0]!.elite = failed.id;
    assert.throws(() => EvoDB.fromJSON(wrongElite), /its elite is not one of its members/);

    const failedMember = structuredClone(snapshot);
    failedMember.niches[0]!.members.push(failed.id);
    assert.throws(() => EvoDB.fromJSON(failedMember), /holds failed program/);

    const unknownBest = structuredClone(snapshot);
    unknownBest.best = 'f'.repeat(64);
    assert.throws(() => EvoDB.fromJSON(unknownBest), /the best names unknown program ffffffffffff/);

    const wrongIslandBest = structuredClone(snapshot);
    wrongIslandBest.bestByIsland[0] = failed.id;
    assert.throws(() => EvoDB.fromJSON(wrongIslandBest), /the best of island 0 is not one of its elites/);

    const beatenBest = structuredClone(snapshot);
    const island0 = snapshot.niches.filter((niche) => niche.island === 0);
    const weakest = island0.map((niche) => snapshot.programs.find((program) => program.id === niche.elite)!).sort((a, b) => a.objective! - b.objective!)[0]!;
    beatenBest.bestByIsland[0] = weakest.id;
    assert.throws(() => EvoDB.fromJSON(beatenBest), /the best of island 0 is beaten by one of its elites/);
  });
});
