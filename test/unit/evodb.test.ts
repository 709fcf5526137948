import * as assert from 'node:assert/strict';
import { EvoDB } from '../../daemon/evolution/evodb/EvoDB';
import { Rng } from '../../daemon/evolution/rng';
import { assertMatchesBruteForce, GRID, makeProgram } from './evodbFixtures';

const measurement = (objective: number | null) => ({ seed: 1, objective, wallMs: 5 });

describe('EvoDB', () => {
  describe('niches and elites', () => {
    it('places a program by its features and replaces an elite only with a strictly better one', () => {
      const db = new EvoDB({ direction: 'maximize', features: GRID });
      const a = makeProgram('a', 1.5);
      const first = db.add(a);
      assert.deepEqual(first, { niche: 'speedup=1|size=0', newElite: true, improvedBest: true, duplicate: false });
      assert.deepEqual(a.features, { speedup: 1, size: 0 });
      assert.equal(a.niche, 'speedup=1|size=0');

      assert.equal(db.add(makeProgram('worse', 1.2)).newElite, false);
      const tie = db.add(makeProgram('tie', 1.5));
      assert.equal(tie.newElite, false, 'an equal score does not displace the elite');
      assert.equal(tie.improvedBest, false);
      assert.equal(db.elites()[0], a);

      const d = makeProgram('d', 1.9);
      const better = db.add(d);
      assert.equal(better.newElite, true);
      assert.equal(better.improvedBest, true);
      assert.equal(better.previousBest, a);
      assert.deepEqual(db.elites(), [d]);

      const long = makeProgram('long', 1.1, { length: 15 });
      assert.equal(db.add(long).niche, 'speedup=1|size=1');
      assert.deepEqual(db.elites(), [d, long], 'elites in the order their niches were filled');
      assert.equal(db.best(), d);
      assert.equal(db.size, 5);
      assertMatchesBruteForce(db);
    });

    it('ranks by the direction: lower is better when minimizing', () => {
      const db = new EvoDB({ direction: 'minimize', features: GRID });
      const slow = makeProgram('slow', 3.5);
      const fast = makeProgram('fast', 2.5);
      db.add(slow);
      const outcome = db.add(fast);
      assert.equal(outcome.newElite, true);
      assert.equal(outcome.previousBest, slow);
      assert.equal(db.best(), fast);
      assert.equal(db.add(makeProgram('slower', 3.9)).newElite, false);
      assertMatchesBruteForce(db);
    });

    it('remembers failed and incorrect programs by id but never makes them elites', () => {
      const db = new EvoDB({ direction: 'maximize', features: GRID });
      const crashed = makeProgram('crashed', null, { correct: false });
      const wrong = makeProgram('wrong', 1000, { correct: false });
      assert.deepEqual(db.add(crashed), { niche: 'speedup=0|size=0', newElite: false, improvedBest: false, duplicate: false });
      assert.equal(db.add(wrong).newElite, false);
      assert.ok(db.has(crashed.id) && db.has(wrong.id));
      assert.equal(db.get(crashed.id), crashed);
      assert.deepEqual(db.elites(), []);
      assert.equal(db.best(), undefined);
      assert.deepEqual(db.niches(), []);

      const again = db.add(makeProgram('crashed', null, { correct: false }));
      assert.equal(again.duplicate, true, 'an identical child is known before it is evaluated again');
      assert.equal(db.size, 2);

      const good = makeProgram('good', 1.2);
      db.add(good);
      assert.deepEqual(db.elites(), [good]);
      assert.equal(db.best(), good);
    });

    it('reports a duplicate without changing anything', () => {
      const db = new EvoDB({ direction: 'maximize', features: GRID });
      db.add(makeProgram('a', 1.5));
      const copy = makeProgram('a', 3.5);
      assert.deepEqual(db.add(copy), { niche: 'speedup=1|size=0', newElite: false, improvedBest: false, duplicate: true });
      assert.equal(db.best()!.objective, 1.5);
    });

    it('keeps a bounded history of the last programs placed in each niche', () => {
      const db = new EvoDB({ direction: 'maximize', features: GRID, historyPerNiche: 3 });
      const programs = [1.9, 1.1, 1.2, 1.3, 1.4].map((objective, index) => makeProgram(`p${index}`, objective));
      programs.forEach((program) => db.add(program));
      const [niche] = db.niches();
      assert.deepEqual(
        niche!.history,
        programs.slice(2).map((program) => program.id),
      );
      assert.equal(niche!.elite, programs[0], 'the elite stays even when it leaves the history');
    });

    it('refuses a program whose id is not the hash of its code, or whose island does not exist', () => {
      const db = new EvoDB({ direction: 'maximize', features: GRID, islands: 2 });
      assert.throws(() => db.add({ ...makeProgram('a', 1), code: 'changed' }), /not the sha256 of its code/);
      assert.throws(() => db.add(makeProgram('b', 1, { island: 2 })), /island 2, but the archive has 2/);
      assert.throws(() => new EvoDB({ direction: 'maximize', islands: 0 }), /islands must be a positive integer/);
    });

    it('hands out elite lists that do not change under their holder', () => {
      const db = new EvoDB({ direction: 'maximize', features: GRID });
      const first = makeProgram('first', 1.5);
      db.add(first);
      const before = db.elites();
      assert.equal(db.elites(), before, 'unchanged archive, same list');
      db.add(makeProgram('better', 1.8));
      assert.deepEqual(before, [first]);
      assert.notEqual(db.elites(), before);
      assert.throws(() => (before as unknown as unknown[]).push(first), TypeError);
    });

    it('uses the default grid when the example declares none', () => {
      const db = new EvoDB({ direction: 'maximize' });
      assert.equal(db.add(makeProgram('a', 3, { length: 700 })).niche, 'objective=3|codeLength=1');
    });
  });

  describe('islands', () => {
    it('keeps elites and bests per island, and the best across them', () => {
      const db = new EvoDB({ direction: 'maximize', features: GRID, islands: 3 });
      const onZero = makeProgram('zero', 1.5, { island: 0 });
      const onOne = makeProgram('one', 3.5, { island: 1 });
      const sameNicheOnTwo = makeProgram('two', 1.2, { island: 2 });
      [onZero, onOne, sameNicheOnTwo].forEach((program) => db.add(program));
      assert.equal(db.best(0), onZero);
      assert.equal(db.best(1), onOne);
      assert.equal(db.best(2), sameNicheOnTwo, 'a worse program is still the elite of its niche on its own island');
      assert.equal(db.best(), onOne);
      assert.deepEqual(db.elites(2), [sameNicheOnTwo]);
      assert.equal(db.elites().length, 3);
      assert.deepEqual(db.elites(7), []);
      assertMatchesBruteForce(db);
    });

    it('migrates each island best one step round the ring, where it beats the local elite', () => {
      const db = new EvoDB({ direction: 'maximize', features: GRID, islands: 3, migrationInterval: 5 });
      const champion = makeProgram('champion', 3.5, { island: 0 }); // speedup=2
      const local = makeProgram('local', 1.5, { island: 1 }); // speedup=1
      const strong = makeProgram('strong', 3.9, { island: 2 }); // speedup=2
      [champion, local, strong].forEach((program) => db.add(program));

      assert.equal(db.migrate(new Rng(1)), 3);
      // 0 → 1: champion fills an empty niche there and becomes island 1's best.
      assert.deepEqual(db.elites(1), [local, champion]);
      assert.equal(db.best(1), champion);
      // 1 → 2: the migrants were chosen before any moved, so island 1 sent local, not champion.
      assert.deepEqual(db.elites(2), [strong, local]);
      // 2 → 0: strong lands in champion's niche on island 0 and beats it there.
      assert.deepEqual(db.elites(0), [strong]);
      assert.equal(db.best(0), strong);
      assert.equal(champion.lineage.island, 0, 'a migrant keeps its lineage');

      // Now 0 → 1 sends strong, which beats champion there; 1 → 2 sends champion, which loses
      // to strong; 2 → 0 sends strong, already there.
      assert.equal(db.migrate(new Rng(1)), 1);
      assert.deepEqual(db.elites(1), [local, strong]);
      assert.deepEqual(db.elites(2), [strong, local], 'a migrant that does not beat the local elite is not placed');
      assert.equal(db.best(), strong);
    });

    it('says when migration is due', () => {
      const db = new EvoDB({ direction: 'maximize', islands: 2, migrationInterval: 5 });
      assert.deepEqual(
        [0, 4, 5, 10, 11].map((generation) => db.migrationDue(generation)),
        [false, false, true, true, false],
      );
      assert.equal(new EvoDB({ direction: 'maximize', migrationInterval: 5 }).migrationDue(5), false, 'one island never migrates');
      assert.equal(new EvoDB({ direction: 'maximize', islands: 1 }).migrate(new Rng(1)), 0);
    });
  });

  describe('merge', () => {
    it('adds the unknown programs of another archive: each niche keeps the best of both', () => {
      const mine = new EvoDB({ direction: 'maximize', features: GRID });
      const theirs = new EvoDB({ direction: 'maximize', features: GRID });
      const shared = makeProgram('shared', 1.5);
      mine.add(shared);
      mine.add(makeProgram('mine-hi', 3.9));
      mine.add(makeProgram('mine-long', 1.1, { length: 15 }));
      theirs.add(makeProgram('shared', 1.5));
      theirs.add(makeProgram('th-mid', 1.8));
      theirs.add(makeProgram('th-hi', 3.2));
      theirs.add(makeProgram('th-crash', null, { correct: false }));
      theirs.add(makeProgram('th-huge', 9, { length: 25 }));

      assert.equal(mine.merge(theirs), 4);
      assert.equal(mine.size, 7);
      assert.ok(mine.has(makeProgram('th-crash', null).id), 'failures are remembered too');
      const elites = Object.fromEntries(mine.niches().map((niche) => [niche.key, niche.elite.code.replace(/#+$/, '')]));
      assert.deepEqual(elites, {
        'speedup=1|size=0': 'th-mid',
        'speedup=2|size=0': 'mine-hi',
        'speedup=1|size=1': 'mine-long',
        'speedup=3|size=2': 'th-huge',
      });
      assert.equal(mine.best()!.objective, 9);
      assertMatchesBruteForce(mine);

      assert.equal(mine.merge(theirs), 0, 'merging again adds nothing');
      const theirBest = theirs.best()!;
      theirs.updateObjective(theirBest.id, 0.5, measurement(0.5));
      assert.equal(mine.get(theirBest.id)!.objective, 9, 'merged programs are copies');
    });

    it('refuses an archive ranked the other way', () => {
      assert.throws(() => new EvoDB({ direction: 'maximize' }).merge(new EvoDB({ direction: 'minimize' })), /cannot merge a minimize archive/);
    });
  });

  describe('updateObjective', () => {
    it('moves a would-be best whose confirmation is lower, and hands its niche and the best on', () => {
      const db = new EvoDB({ direction: 'maximize', features: GRID });
      const lucky = makeProgram('lucky', 3.9);
      const steady = makeProgram('steady', 3.1);
      const other = makeProgram('other', 2.5, { length: 15 });
      [lucky, steady, other].forEach((program) => db.add(program));
      assert.equal(db.best(), lucky);

      // Confirmed at 3.0: still in niche speedup=2, but below steady.
      db.updateObjective(lucky.id, 3.0, measurement(3.0));
      assert.equal(lucky.objective, 3.0);
      assert.equal(lucky.measurements.length, 1);
      assert.equal(db.best(), steady);
      assert.equal(db.niches().find((niche) => niche.key === 'speedup=2|size=0')!.elite, steady);
      assertMatchesBruteForce(db);

      // Confirmed at 1.5: it moves to niche speedup=1.
      db.updateObjective(lucky.id, 1.5, measurement(1.4));
      assert.equal(lucky.niche, 'speedup=1|size=0');
      assert.deepEqual(lucky.features, { speedup: 1, size: 0 });
      const niches = db.niches();
      assert.deepEqual(niches.find((niche) => niche.key === 'speedup=1|size=0')?.elite, lucky);
      assert.ok(!niches.find((niche) => niche.key === 'speedup=2|size=0')!.history.includes(lucky.id));
      assertMatchesBruteForce(db);
    });

    it('withdraws a program whose confirmation failed, dropping a niche left empty', () => {
      const db = new EvoDB({ direction: 'maximize', features: GRID });
      const flaky = makeProgram('flaky', 3.9);
      const other = makeProgram('other', 1.5);
      db.add(other);
      db.add(flaky);
      db.updateObjective(flaky.id, null, measurement(null));
      assert.ok(db.has(flaky.id));
      assert.deepEqual(db.elites(), [other]);
      assert.equal(db.best(), other);
      assert.deepEqual(
        db.niches().map((niche) => niche.key),
        ['speedup=1|size=0'],
      );
      assertMatchesBruteForce(db);
    });

    it('promotes a program whose confirmation is higher', () => {
      const db = new EvoDB({ direction: 'minimize', features: GRID });
      const a = makeProgram('a', 1.5);
      const b = makeProgram('b', 1.2);
      db.add(a);
      db.add(b);
      db.updateObjective(a.id, 1.1, measurement(1.1));
      assert.equal(db.best(), a);
      assert.deepEqual(db.elites(), [a]);
      assertMatchesBruteForce(db);
    });

    it('re-places a migrant on every island it lives on', () => {
      const db = new EvoDB({ direction: 'maximize', features: GRID, islands: 2 });
      const migrant = makeProgram('migrant', 3.5, { island: 0 }); // speedup=2
      const resident = makeProgram('resident', 1.5, { island: 1 }); // speedup=1
      db.add(migrant);
      db.add(resident);
      db.migrate(new Rng(1)); // each goes to the other island
      assert.equal(db.best(1), migrant);
      assert.equal(db.best(0), migrant);

      // Confirmed at 1.2: on both islands it moves to speedup=1, where resident (1.5) rules.
      db.updateObjective(migrant.id, 1.2, measurement(1.2));
      const niches = db.niches();
      assert.deepEqual(
        niches.map((niche) => [niche.island, niche.key, niche.elite.id]),
        [
          [1, 'speedup=1|size=0', resident.id],
          [0, 'speedup=1|size=0', resident.id],
        ],
        'the niches it left empty are gone',
      );
      for (const niche of niches) assert.deepEqual(niche.history, [resident.id, migrant.id], `history on island ${niche.island}`);
      assert.equal(db.best(0), resident);
      assert.equal(db.best(1), resident);
      assert.equal(db.best(), resident);
    });

    it('refuses an unknown id', () => {
      assert.throws(() => new EvoDB({ direction: 'maximize' }).updateObjective('0'.repeat(64), 1, measurement(1)), /no program 000000000000/);
    });
  });

  it('holds 10,000 programs on 4 islands with every niche elite and best right', () => {
    const rng = new Rng(7);
    const db = new EvoDB({ direction: 'maximize', islands: 4 });
    let improvements = 0;
    for (let index = 0; index < 10_000; index++) {
      const failed = rng.next() < 0.2;
      const objective = failed ? null : Math.exp(rng.normal() * 2);
      const program = makeProgram(`program ${index}`, objective, { island: index % 4, length: 50 + rng.int(9000) });
      const outcome = db.add(program);
      if (outcome.improvedBest) improvements++;
      assert.equal(outcome.duplicate, false);
    }
    assert.equal(db.size, 10_000);
    assert.ok(improvements > 1 && improvements < 100, `the best improved ${improvements} times`);
    assert.ok(db.elites().length > 50, `${db.elites().length} niches`);
    assertMatchesBruteForce(db);
  });
});
