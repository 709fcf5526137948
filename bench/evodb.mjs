#!/usr/bin/env node
// `node bench/evodb.mjs` after `node scripts/build.mjs`: what EvoDB costs per call at 10,000
// programs (20% failures, 4 islands, the default grid, code of 50..9000 characters).
//   add                 includes the sha256 check of the code and the niche placement
//   best                the cached champion
//   elites (unchanged)  the frozen list handed out again
//   elites (after add)  the list copied afresh because an add changed it
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const { EvoDB } = require(join(REPO, 'out', 'daemon', 'evolution', 'evodb', 'EvoDB.js'));
const { programId } = require(join(REPO, 'out', 'daemon', 'evolution', 'evodb', 'programId.js'));
const { Rng } = require(join(REPO, 'out', 'daemon', 'evolution', 'rng.js'));

const PROGRAMS = Number(process.env.BENCH_PROGRAMS ?? 10_000);
const ISLANDS = 4;
const rng = new Rng(1);

function makeProgram(index) {
  const failed = rng.next() < 0.2;
  const objective = failed ? null : Math.exp(rng.normal() * 2);
  const code = `# program ${index}\n`.padEnd(50 + rng.int(9000), 'x');
  return {
    id: programId(code),
    code,
    lineage: { parents: [], generation: index, mutator: 'bench', exchanges: [], seed: index, repairs: 0, island: index % ISLANDS, createdAt: new Date(0).toISOString() },
    evaluation: { correct: !failed, objective, direction: 'maximize', metrics: {}, executor: 'bench', exitCode: 0, wallMs: 1 },
    objective,
    correct: !failed,
    measurements: [],
    features: {},
  };
}

const microseconds = (started, count) => Number(process.hrtime.bigint() - started) / 1e3 / count;
const programs = Array.from({ length: PROGRAMS * 2 }, (_, index) => makeProgram(index));

const db = new EvoDB({ direction: 'maximize', islands: ISLANDS });
let started = process.hrtime.bigint();
for (let index = 0; index < PROGRAMS; index++) db.add(programs[index]);
const addAll = microseconds(started, PROGRAMS);

// Adds past 10k, one at a time, each followed by the reads a generation makes.
let sink = 0;
let addTotal = 0n;
let bestTotal = 0n;
let elitesChangedTotal = 0n;
let elitesCachedTotal = 0n;
const ROUNDS = Math.min(PROGRAMS, 2_000);
for (let index = 0; index < ROUNDS; index++) {
  let at = process.hrtime.bigint();
  db.add(programs[PROGRAMS + index]);
  addTotal += process.hrtime.bigint() - at;
  at = process.hrtime.bigint();
  sink += db.elites().length;
  elitesChangedTotal += process.hrtime.bigint() - at;
  at = process.hrtime.bigint();
  for (let repeat = 0; repeat < 10; repeat++) sink += db.elites().length;
  elitesCachedTotal += process.hrtime.bigint() - at;
  at = process.hrtime.bigint();
  for (let repeat = 0; repeat < 10; repeat++) sink += db.best() ? 1 : 0;
  bestTotal += process.hrtime.bigint() - at;
}
const perCall = (total, count) => Number(total) / 1e3 / count;

console.log(`EvoDB with ${db.size} programs, ${db.elites().length} elites on ${ISLANDS} islands (sink ${sink % 7})`);
console.log(`add (first ${PROGRAMS}):    ${addAll.toFixed(2)} µs`);
console.log(`add (at ${PROGRAMS}+):      ${perCall(addTotal, ROUNDS).toFixed(2)} µs`);
console.log(`best:                 ${perCall(bestTotal, ROUNDS * 10).toFixed(3)} µs`);
console.log(`elites (unchanged):   ${perCall(elitesCachedTotal, ROUNDS * 10).toFixed(3)} µs`);
console.log(`elites (after add):   ${perCall(elitesChangedTotal, ROUNDS).toFixed(2)} µs`);
started = process.hrtime.bigint();
const snapshot = JSON.stringify(db.toJSON());
const toJsonMs = Number(process.hrtime.bigint() - started) / 1e6;
started = process.hrtime.bigint();
EvoDB.fromJSON(JSON.parse(snapshot));
const fromJsonMs = Number(process.hrtime.bigint() - started) / 1e6;
console.log(`snapshot: ${(snapshot.length / 1e6).toFixed(1)} MB, toJSON+stringify ${toJsonMs.toFixed(0)} ms, parse+fromJSON ${fromJsonMs.toFixed(0)} ms`);
