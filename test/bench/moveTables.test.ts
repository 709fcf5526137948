/**
 * Structural checks of the "honest" move tables in bench/moves/ (the sim-llm format, plus "chain"
 * and "effect"), without the evaluators: the main chain applies from the seed one step after the
 * other, exactly one chain move applies at every chain state among 8 to 14 applicable moves,
 * every edit stays inside the EVOLVE-BLOCK, neutral moves never block the chain, and (python3 /
 * node) every program the table leads to is correct unless its move is declared to break it.
 * A deceptive table (trap_windows_js, trap_pairs, holdout_lis) also has a valley of one or two
 * chain steps ("effect": "valley"), independent fixes closing its chain ("effect": "fix"; they
 * may apply beside the chain move before their place, and from the seed on where the spec says
 * fixesFromSeed) and a side branch (its "side" moves, "effect": "side-branch"): the branch applies
 * from the seed, blocks every chain move but the fixes (the fixes that applied before still
 * apply on it), and every program on it is checked like the chain's.
 * Speedups are measured by bench/checkMoveTables.mjs with the real evaluators.
 */
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { BAD_SORT_CHECK_PY } from '../fixtures/badSortCheck';
import { DEDUPE_COUNTS_CHECK_PY } from '../fixtures/dedupeCountsCheck';
import { HOLDOUT_LIS_CHECK_PY } from '../fixtures/holdoutLisCheck';
import { REPO } from '../fixtures/paths';
import { TRAP_PAIRS_CHECK_PY } from '../fixtures/trapPairsCheck';
import { TRAP_WINDOWS_CHECK_JS } from '../fixtures/trapWindowsCheck';

type Kind = 'improve' | 'neutral' | 'harmful';
/** breaks/slower: what a harmful move does; valley/fix/side-branch: the role of an improving move in a deceptive table. */
type Effect = 'breaks' | 'slower' | 'valley' | 'fix' | 'side-branch';

interface Block {
  search: string;
  replace: string;
}

interface TableMove {
  id: string;
  kind: Kind;
  rationale: string;
  blocks: Block[];
  effect?: Effect;
}

interface Table {
  problem: string;
  detect: string[];
  chain: string[];
  /** The side branch's moves (a deceptive table only). */
  side: string[];
  moves: TableMove[];
}

interface Spec {
  name: string;
  table: string;
  seed: string;
  chainLength: number;
  /** A deceptive table: a valley step, fixes at the chain's end and a side branch. */
  deceptive?: boolean;
  /** A deceptive table whose fixes apply from the seed on (at every chain state before their place). */
  fixesFromSeed?: boolean;
}

const SPECS: Spec[] = [
  { name: 'bad_sort', table: 'bench/moves/bad_sort.moves.json', seed: 'examples/bad_sort/bad_sort.py', chainLength: 8 },
  { name: 'slow_fib_js', table: 'bench/moves/slow_fib_js.moves.json', seed: 'examples/slow_fib_js/fib.js', chainLength: 4 },
  { name: 'dedupe_counts', table: 'bench/moves/dedupe_counts.moves.json', seed: 'examples/dedupe_counts/dedupe_counts.py', chainLength: 6 },
  { name: 'trap_windows_js', table: 'bench/moves/trap_windows_js.moves.json', seed: 'examples/trap_windows_js/windows.js', chainLength: 7, deceptive: true },
  { name: 'trap_pairs', table: 'bench/moves/trap_pairs.moves.json', seed: 'examples/trap_pairs/trap_pairs.py', chainLength: 8, deceptive: true, fixesFromSeed: true },
  { name: 'holdout_lis', table: 'bench/moves/holdout_lis.moves.json', seed: 'examples/holdout_lis/lis_length.py', chainLength: 7, deceptive: true, fixesFromSeed: true },
];

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isStringArray = (value: unknown): value is string[] => Array.isArray(value) && value.every((item) => typeof item === 'string');
const stripNl = (text: string): string => text.replace(/\r\n/g, '\n').replace(/\n+$/, '');

/** Checks one table against the documented format and returns it with every move as blocks. */
function parseTable(raw: unknown, file: string): Table {
  assert.ok(isRecord(raw), `${file}: a JSON object`);
  assert.equal(typeof raw.problem, 'string', `${file}: "problem" is a string`);
  assert.ok(raw.description === undefined || typeof raw.description === 'string', `${file}: "description" is a string`);
  assert.ok(isStringArray(raw.detect) && raw.detect.length > 0, `${file}: "detect" is a non-empty array of strings`);
  assert.ok(isStringArray(raw.chain) && raw.chain.length > 0, `${file}: "chain" is a non-empty array of move ids`);
  assert.ok(Array.isArray(raw.moves) && raw.moves.length > 0, `${file}: "moves" is a non-empty array`);
  const moves = raw.moves.map((move: unknown, index: number): TableMove => {
    assert.ok(isRecord(move), `${file}: move #${index} is an object`);
    const where = `${file}: move ${String(move.id ?? `#${index}`)}`;
    assert.ok(typeof move.id === 'string' && move.id.length > 0, `${where}: "id" is a non-empty string`);
    assert.ok(move.kind === 'improve' || move.kind === 'neutral' || move.kind === 'harmful', `${where}: "kind" is improve, neutral or harmful`);
    assert.ok(typeof move.rationale === 'string' && move.rationale.trim().length > 0, `${where}: "rationale" is a sentence`);
    assert.ok(move.after === undefined || isStringArray(move.after), `${where}: "after" is an array of ids`);
    assert.ok(move.weight === undefined || (typeof move.weight === 'number' && move.weight > 0), `${where}: "weight" is a positive number`);
    if (move.kind === 'harmful') assert.ok(move.effect === 'breaks' || move.effect === 'slower', `${where}: a harmful move declares "effect": "breaks" or "slower"`);
    else if (move.kind === 'improve') assert.ok(move.effect === undefined || move.effect === 'valley' || move.effect === 'fix' || move.effect === 'side-branch', `${where}: an improving move's effect is valley, fix or side-branch`);
    else assert.equal(move.effect, undefined, `${where}: a neutral move declares no effect`);
    const hasPair = move.search !== undefined || move.replace !== undefined;
    assert.ok(hasPair !== (move.blocks !== undefined), `${where}: either "search"/"replace" or "blocks"`);
    const rawBlocks: unknown[] = hasPair ? [{ search: move.search, replace: move.replace }] : Array.isArray(move.blocks) ? move.blocks : [];
    assert.ok(rawBlocks.length > 0, `${where}: at least one block`);
    const blocks = rawBlocks.map((block): Block => {
      assert.ok(isRecord(block) && typeof block.search === 'string' && typeof block.replace === 'string', `${where}: every block has string search and replace`);
      assert.ok(stripNl(block.search).length > 0, `${where}: SEARCH is not empty`);
      return { search: stripNl(block.search), replace: stripNl(block.replace) };
    });
    return { id: move.id, kind: move.kind, rationale: move.rationale, blocks, ...(move.effect !== undefined ? { effect: move.effect } : {}) };
  });
  assert.ok(raw.side === undefined || isStringArray(raw.side), `${file}: "side" is an array of move ids`);
  const side = raw.side ?? [];
  assert.deepEqual(
    side,
    moves.filter((move) => move.effect === 'side-branch').map((move) => move.id),
    `${file}: "side" lists exactly the moves declared "effect": "side-branch", in table order`,
  );
  return { problem: raw.problem as string, detect: raw.detect, chain: raw.chain, side, moves };
}

// ---------------------------------------------------------------- line-aligned matching (like the simulator)

/** Start lines at which `search` equals whole consecutive lines of `lines`. */
function matchesAt(lines: readonly string[], search: readonly string[]): number[] {
  const starts: number[] = [];
  outer: for (let i = 0; i + search.length <= lines.length; i++) {
    for (let k = 0; k < search.length; k++) if (lines[i + k] !== search[k]) continue outer;
    starts.push(i);
  }
  return starts;
}

/** `program` with the move's blocks applied in order (each at its first match), or undefined. */
function applyMove(program: string, move: TableMove): string | undefined {
  let lines = program.split('\n');
  for (const block of move.blocks) {
    const search = block.search.split('\n');
    const at = matchesAt(lines, search)[0];
    if (at === undefined) return undefined;
    lines = [...lines.slice(0, at), ...block.replace.split('\n'), ...lines.slice(at + search.length)];
  }
  return lines.join('\n');
}

/** Whether every block's SEARCH matches exactly one place when the blocks are applied in order. */
function matchesOnce(program: string, move: TableMove): boolean {
  let lines = program.split('\n');
  for (const block of move.blocks) {
    const search = block.search.split('\n');
    const starts = matchesAt(lines, search);
    if (starts.length !== 1) return false;
    lines = [...lines.slice(0, starts[0]), ...block.replace.split('\n'), ...lines.slice(starts[0]! + search.length)];
  }
  return true;
}

const applicable = (table: Table, program: string): TableMove[] => table.moves.filter((move) => applyMove(program, move) !== undefined);

/** The text up to the EVOLVE-BLOCK-START line and from the EVOLVE-BLOCK-END line (markers included). */
function fixedParts(program: string): [string, string] {
  const lines = program.split('\n');
  const start = lines.findIndex((line) => line.includes('EVOLVE-BLOCK-START'));
  const end = lines.findIndex((line) => line.includes('EVOLVE-BLOCK-END'));
  assert.ok(start >= 0 && end > start, 'the program keeps one EVOLVE-BLOCK');
  return [lines.slice(0, start + 1).join('\n'), lines.slice(end).join('\n')];
}

// ---------------------------------------------------------------- what each table leads to

interface Explored {
  table: Table;
  seed: string;
  states: string[];
  /** Programs that must be correct and programs that must be wrong, by a readable key. */
  mustPass: Map<string, string>;
  mustFail: Map<string, string>;
  /** Where the structure is not as designed. */
  problems: string[];
  used: Set<string>;
  /** The side branch's programs, by a readable key (a deceptive table only). */
  branch: Map<string, string>;
}

const cache = new Map<string, Explored>();

function explore(spec: Spec): Explored {
  const known = cache.get(spec.name);
  if (known) return known;
  const file = path.join(REPO, spec.table);
  const table = parseTable(JSON.parse(fs.readFileSync(file, 'utf8')), spec.table);
  const seed = fs.readFileSync(path.join(REPO, spec.seed), 'utf8');
  const byId = new Map(table.moves.map((move) => [move.id, move]));
  const chain = table.chain.map((id) => {
    const move = byId.get(id);
    assert.ok(move, `${spec.name}: the chain names a move ${id} of the table`);
    assert.equal(move.kind, 'improve', `${spec.name}: chain move ${id} is an improving move`);
    return move;
  });
  const states = [seed];
  for (const move of chain) {
    const next = applyMove(states.at(-1)!, move);
    assert.ok(next !== undefined, `${spec.name}: ${move.id} applies after ${states.length - 1} chain steps`);
    assert.notEqual(next, states.at(-1), `${spec.name}: ${move.id} changes the program`);
    states.push(next);
  }

  const explored: Explored = { table, seed, states, mustPass: new Map(), mustFail: new Map(), problems: [], used: new Set(table.chain), branch: new Map() };
  const [head, tail] = fixedParts(seed);
  const check = (key: string, parent: string, move: TableMove, child: string): void => {
    explored.used.add(move.id);
    if (!matchesOnce(parent, move)) explored.problems.push(`${key}: a SEARCH block of ${move.id} matches more than one place`);
    const [childHead, childTail] = fixedParts(child);
    if (childHead !== head || childTail !== tail) explored.problems.push(`${key}: ${move.id} edits outside the EVOLVE-BLOCK`);
    for (const text of table.detect) if (!child.includes(text)) explored.problems.push(`${key}: the detect string ${JSON.stringify(text)} is gone`);
  };

  // At state k the chain move k applies; beside it only side moves and the fixes still to come
  // may improve (with fixesFromSeed, every fix to come must apply there).
  const isFix = (move: TableMove): boolean => move.effect === 'fix';
  const sideIds = new Set(table.side);
  states.forEach((state, k) => {
    explored.mustPass.set(`S${k}`, state);
    const moves = applicable(table, state);
    const fixesToCome = chain.filter((move, j) => j > k && isFix(move)).map((move) => move.id);
    const besideChain = (move: TableMove): boolean => sideIds.has(move.id) || fixesToCome.includes(move.id);
    const chainHere = moves.filter((move) => table.chain.includes(move.id) && !besideChain(move)).map((move) => move.id);
    const expected = k < chain.length ? [chain[k]!.id] : [];
    if (chainHere.join() !== expected.join()) explored.problems.push(`S${k}: chain moves ${JSON.stringify(chainHere)} apply, expected ${JSON.stringify(expected)}`);
    const improving = moves.filter((move) => move.kind === 'improve' && !besideChain(move)).map((move) => move.id);
    if (improving.join() !== expected.join()) explored.problems.push(`S${k}: improving moves ${JSON.stringify(improving)} apply, expected only the chain move (and the fixes to come)`);
    const missingFixes = spec.fixesFromSeed ? fixesToCome.filter((id) => !moves.some((move) => move.id === id)) : [];
    if (missingFixes.length > 0) explored.problems.push(`S${k}: the fixes to come ${JSON.stringify(missingFixes)} do not apply (the table says they apply from the seed on)`);
    if (moves.length < 8 || moves.length > 14) explored.problems.push(`S${k}: ${moves.length} applicable moves (expected 8 to 14)`);
    for (const move of moves) {
      const key = `S${k}+${move.id}`;
      const child = applyMove(state, move)!;
      check(key, state, move, child);
      (move.effect === 'breaks' ? explored.mustFail : explored.mustPass).set(key, child);
    }
    // A neutral move must not block the chain: from the neutral child, exactly one improving move
    // applies at every remaining step (the chain move, or its variant re-anchored on the edit).
    for (const neutral of moves.filter((move) => move.kind === 'neutral')) {
      let program = applyMove(state, neutral)!;
      for (let j = k; j < chain.length; j++) {
        const improving = applicable(table, program).filter((move) => move.kind === 'improve');
        // Beside the chain move (or its variant) only side moves and the fixes to come may apply.
        const next = improving.filter((move) => move.rationale === chain[j]!.rationale);
        const stray = improving.filter((move) => move.rationale !== chain[j]!.rationale && !sideIds.has(move.id) && !isFix(move));
        const key = `S${k}+${neutral.id}..step${j + 1}`;
        if (next.length !== 1 || stray.length > 0) {
          explored.problems.push(`${key}: improving moves ${JSON.stringify(improving.map((move) => move.id))} apply, expected ${chain[j]!.id} or a variant of it`);
          break;
        }
        const child = applyMove(program, next[0]!)!;
        check(key, program, next[0]!, child);
        explored.mustPass.set(`${key}:${next[0]!.id}`, child);
        program = child;
      }
      const left = applicable(table, program).filter((move) => move.kind === 'improve' && !sideIds.has(move.id));
      if (left.length > 0) explored.problems.push(`S${k}+${neutral.id}: improving moves ${JSON.stringify(left.map((move) => move.id))} still apply at the end`);
    }
  });

  // The side branch: every program reachable from a chain state by side moves and fixes. On it
  // no chain move but a fix may apply (the branch is a dead end for the chain), and every
  // move that applies there is checked like a move at a chain state.
  const branch = new Map<string, string>();
  const grow = (key: string, program: string): void => {
    if ([...branch.values()].includes(program)) return;
    branch.set(key, program);
    for (const move of applicable(table, program).filter((m) => sideIds.has(m.id) || isFix(m))) grow(`${key}+${move.id}`, applyMove(program, move)!);
  };
  states.forEach((state, k) => {
    for (const move of applicable(table, state).filter((m) => sideIds.has(m.id))) {
      check(`S${k}+${move.id}`, state, move, applyMove(state, move)!);
      grow(`S${k}+${move.id}`, applyMove(state, move)!);
    }
  });
  // The side branch removed the text the chain needs, not the fixes' text: every fix that
  // applied at the chain state still applies after the side move.
  states.forEach((state, k) => {
    const fixesHere = applicable(table, state).filter(isFix);
    for (const move of applicable(table, state).filter((m) => sideIds.has(m.id))) {
      const lost = fixesHere.filter((fix) => applyMove(applyMove(state, move)!, fix) === undefined).map((fix) => fix.id);
      if (lost.length > 0) explored.problems.push(`S${k}+${move.id}: the fixes ${JSON.stringify(lost)} no longer apply on the side branch`);
    }
  });
  for (const [key, program] of branch) {
    explored.mustPass.set(key, program);
    const moves = applicable(table, program);
    const blocked = moves.filter((move) => move.kind === 'improve' && !sideIds.has(move.id) && !isFix(move)).map((move) => move.id);
    if (blocked.length > 0) explored.problems.push(`${key}: chain moves ${JSON.stringify(blocked)} apply on the side branch`);
    // A move declared to break is declared so for the chain: on the branch (trap_windows_js's
    // Set) its edit may hit code that no longer matters, so only the others are held correct.
    for (const move of moves) {
      const child = applyMove(program, move)!;
      check(`${key}+${move.id}`, program, move, child);
      if (move.effect !== 'breaks') explored.mustPass.set(`${key}+${move.id}`, child);
    }
  }
  explored.branch = branch;
  cache.set(spec.name, explored);
  return explored;
}

// ---------------------------------------------------------------- correctness, outside the evaluators

// Loads each fib program as a CommonJS module (new Function) and compares fib(0..30) with a
// trusted BigInt loop: a value of another type, a wrong value or a throw is a failure.
const CHECK_JS = String.raw`
const programs = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const truth = [];
for (let i = 0, a = 0n, b = 1n; i <= 30; i += 1, [a, b] = [b, a + b]) truth.push(a);
const verdicts = {};
for (const [key, code] of Object.entries(programs)) {
  let verdict = { ok: true, error: null };
  try {
    const module = { exports: {} };
    new Function('module', 'exports', 'require', code)(module, module.exports, require);
    const fib = typeof module.exports === 'function' ? module.exports : module.exports.fib;
    for (let n = 0; n <= 30; n += 1) {
      const got = fib(n);
      if (typeof got !== 'bigint' || got !== truth[n]) throw new Error('fib(' + n + ') = ' + String(got) + ' (' + typeof got + '), expected ' + truth[n] + 'n');
    }
  } catch (err) {
    verdict = { ok: false, error: String(err && err.message || err) };
  }
  verdicts[key] = verdict;
}
console.log(JSON.stringify(verdicts));
`;

type Verdicts = Record<string, { ok: boolean; error: string | null }>;

/** Runs `command` with the programs as JSON on stdin; resolves with its verdicts. */
function runOnce(command: string, args: string[], programs: Record<string, string>): Promise<Verdicts> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code !== 0) reject(new Error(`${command} failed (${signal ?? code}): ${stderr}`));
      else resolve(JSON.parse(stdout.trim().split('\n').at(-1)!) as Verdicts);
    });
    child.stdin.end(JSON.stringify(programs));
  });
}

/**
 * Runs each distinct program once (many keys reach the same text by different paths), spread
 * round-robin over a few processes so that the slow seed-like programs run side by side.
 */
async function runChecker(command: string, args: string[], programs: Map<string, string>): Promise<Verdicts> {
  const keyOf = new Map<string, string>();
  for (const [key, code] of programs) if (!keyOf.has(code)) keyOf.set(code, key);
  const jobs = Math.max(1, Math.min(4, os.availableParallelism()));
  const chunks: Record<string, string>[] = Array.from({ length: jobs }, () => ({}));
  [...keyOf].forEach(([code, key], index) => (chunks[index % jobs]![key] = code));
  const verdicts: Verdicts = Object.assign({}, ...(await Promise.all(chunks.map((chunk) => runOnce(command, args, chunk)))));
  return Object.fromEntries([...programs].map(([key, code]) => [key, verdicts[keyOf.get(code)!]!]));
}

function assertVerdicts(explored: Explored, verdicts: Verdicts): void {
  const wronglyFailing = [...explored.mustPass.keys()].filter((key) => !verdicts[key]?.ok).map((key) => `${key}: ${verdicts[key]?.error}`);
  const wronglyPassing = [...explored.mustFail.keys()].filter((key) => verdicts[key]?.ok !== false);
  assert.deepEqual(wronglyFailing, [], 'chain states and improving, neutral and slower children are correct');
  assert.deepEqual(wronglyPassing, [], 'every move declared to break the program breaks it');
}

// ---------------------------------------------------------------- the tests

const CHECKERS: Record<string, { title: string; command: string; args: string[] }> = {
  bad_sort: { title: 'sorting held inputs, python3', command: 'python3', args: ['-c', BAD_SORT_CHECK_PY] },
  slow_fib_js: { title: 'fib(0..30) against a trusted BigInt loop, node', command: process.execPath, args: ['-e', CHECK_JS] },
  dedupe_counts: { title: 'counting held inputs in order of first occurrence, python3', command: 'python3', args: ['-c', DEDUPE_COUNTS_CHECK_PY] },
  trap_windows_js: { title: 'distinct values per window of held inputs, node', command: process.execPath, args: ['-e', TRAP_WINDOWS_CHECK_JS] },
  trap_pairs: { title: 'pairs k apart on held inputs against a trusted pair loop, python3', command: 'python3', args: ['-c', TRAP_PAIRS_CHECK_PY] },
  holdout_lis: { title: 'longest increasing subsequence of held inputs, python3', command: 'python3', args: ['-c', HOLDOUT_LIS_CHECK_PY] },
};

describe('honest move tables (bench/moves)', () => {
  for (const spec of SPECS) {
    describe(spec.name, () => {
      it('parses in the documented format, with unique ids and the chain of the designed depth', () => {
        const { table } = explore(spec);
        const ids = table.moves.map((move) => move.id);
        assert.equal(new Set(ids).size, ids.length, 'move ids are unique');
        assert.equal(table.chain.length, spec.chainLength, 'chain depth');
        assert.equal(new Set(table.chain).size, table.chain.length, 'chain ids are distinct');
        for (const kind of ['neutral', 'harmful'] as const) assert.ok(table.moves.some((move) => move.kind === kind), `the table has ${kind} moves`);
      });

      it('applies the chain from the seed, one move at a time, with 8-14 applicable moves per state, inside the EVOLVE-BLOCK', () => {
        const { table, seed, states, problems, used } = explore(spec);
        for (const text of table.detect) assert.ok(seed.includes(text), `the seed contains the detect string ${JSON.stringify(text)}`);
        assert.equal(states.length, spec.chainLength + 1);
        assert.deepEqual(problems, []);
        assert.deepEqual(
          table.moves.filter((move) => !used.has(move.id)).map((move) => move.id),
          [],
          'every move applies at some chain state or on the way from a neutral move',
        );
        const counts = states.map((state) => applicable(table, state).length);
        console.log(`      applicable moves per state: ${counts.join(', ')}`);
      });

      if (spec.deceptive) {
        it('is deceptive: a valley of 1-2 chain steps, fixes closing the chain, and a side branch from the seed that blocks the chain', () => {
          const { table, seed, states, branch } = explore(spec);
          const byId = new Map(table.moves.map((move) => [move.id, move]));
          const chain = table.chain.map((id) => byId.get(id)!);
          const effects = chain.map((move) => move.effect);
          const valley = effects.indexOf('valley');
          const valleyLength = effects.filter((effect) => effect === 'valley').length;
          assert.ok(valley >= 0 && valleyLength >= 1 && valleyLength <= 2, 'the chain has a valley of one or two steps');
          assert.ok(effects.slice(valley, valley + valleyLength).every((effect) => effect === 'valley'), 'the valley steps are consecutive');
          assert.equal(effects[valley + valleyLength], undefined, 'a paying step follows the valley');
          const fixes = chain.filter((move) => move.effect === 'fix');
          assert.ok(fixes.length >= 2 && fixes.length <= 3, '2-3 fixes');
          assert.deepEqual(chain.slice(-fixes.length), fixes, 'the fixes close the chain');
          const algorithmic = chain.length - fixes.length;
          assert.ok(algorithmic >= 4 && valley + valleyLength < algorithmic, 'the valley is followed by at least one algorithmic step that pays');
          if (spec.fixesFromSeed) for (const fix of fixes) assert.ok(applyMove(seed, fix) !== undefined, `fix ${fix.id} applies to the seed`);
          const sideIdeas = new Set(table.side.map((id) => byId.get(id)!.rationale));
          assert.ok(sideIdeas.size >= 1 && sideIdeas.size <= 2, 'one or two side-branch moves (and their variants)');
          assert.ok(table.side.some((id) => applyMove(seed, byId.get(id)!) !== undefined), 'a side move applies to the seed');
          assert.ok(table.side.some((id) => applyMove(states[valley + 1]!, byId.get(id)!) !== undefined), 'a side move still applies after the first valley step');
          assert.ok(branch.size >= 3, `the side branch has a few programs (${branch.size})`);
          const harmful = table.moves.filter((move) => move.kind === 'harmful').length;
          const neutral = table.moves.filter((move) => move.kind === 'neutral').length;
          assert.ok(table.moves.length >= 30 && table.moves.length <= 45, `30-45 moves (${table.moves.length})`);
          assert.ok(harmful >= neutral, `about half of the other moves are harmful (${harmful} harmful, ${neutral} neutral)`);
          console.log(`      side branch: ${branch.size} programs; ${harmful} harmful, ${neutral} neutral moves`);
        });
      }

      const checker = CHECKERS[spec.name]!;
      it(`keeps chain states, chain steps and neutral or slower children correct; breaking moves break it (${checker.title})`, async function () {
        this.timeout(60_000);
        const explored = explore(spec);
        const verdicts = await runChecker(checker.command, checker.args, new Map([...explored.mustPass, ...explored.mustFail]));
        assertVerdicts(explored, verdicts);
        console.log(`      checked ${explored.mustPass.size} correct and ${explored.mustFail.size} broken programs`);
      });
    });
  }
});
