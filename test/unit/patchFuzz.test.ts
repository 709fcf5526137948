/**
 * Property tests of patch application over random programs and edits (seeded: every run
 * checks the same cases, so a failure names a seed that reproduces it).
 */
import * as assert from 'node:assert/strict';
import { applyPatch, createTwoFilesPatch } from 'diff';
import { applyAnswer, unifiedDiff } from '../../daemon/evolution/mutation/patch/applyAnswer';
import { Rng } from '../../daemon/evolution/rng';

interface RandomProgram {
  lines: string[];
  /** 0-based indices of the region's marker lines. */
  startMarker: number;
  endMarker: number;
}

function randomProgram(rng: Rng, size: number): RandomProgram {
  let id = 0;
  const statement = (level: number): string => `${'    '.repeat(level)}v${id++} = f${rng.int(50)}(${rng.int(1000)})`;
  const lines = ['import os', `x${id++} = 1`, '# EVOLVE-BLOCK-START'];
  const startMarker = lines.length - 1;
  let level = 0;
  for (let i = 0; i < size; i++) {
    const roll = rng.next();
    if (roll < 0.1) lines.push('');
    else if (roll < 0.25 && level < 3) lines.push(`${'    '.repeat(level++)}if c${id++}:`, statement(level));
    else {
      if (roll > 0.85 && level > 0) level -= 1 + rng.int(level);
      lines.push(statement(level));
    }
  }
  lines.push('# EVOLVE-BLOCK-END', `print(x${id++})`);
  return { lines, startMarker, endMarker: lines.length - 2 };
}

interface RandomEdit {
  from: number;
  to: number;
  added: string[];
}

function randomEdit(rng: Rng, program: RandomProgram): RandomEdit {
  const low = program.startMarker + 1;
  const high = program.endMarker;
  for (;;) {
    const from = low + rng.int(high - low + 1);
    const to = Math.min(high, from + rng.int(4));
    const indent = /^ */.exec(program.lines[from] ?? program.lines[from - 1] ?? '')![0];
    const added = Array.from({ length: rng.int(4) }, (_, k) => `${indent}new_${rng.int(1e6)}_${k} = ${rng.int(100)}`);
    if (to > from || added.length > 0) return { from, to, added };
  }
}

function applyEdit(lines: readonly string[], edit: RandomEdit): string[] {
  return [...lines.slice(0, edit.from), ...edit.added, ...lines.slice(edit.to)];
}

/** Grow [from, to) until its lines (compared without whitespace) occur once: a SEARCH that can only match one place. */
function uniqueWindow(lines: readonly string[], from: number, to: number): [number, number] | null {
  const bodies = lines.map((line) => line.trim());
  const occurrences = (a: number, b: number): number => {
    let count = 0;
    for (let s = 0; s + (b - a) <= lines.length; s++) if (bodies.slice(s, s + b - a).every((body, j) => body === bodies[a + j])) count++;
    return count;
  };
  let [a, b] = [from, to];
  if (a === b) {
    if (a > 0) a--;
    else b++;
  }
  const hasText = (): boolean => bodies.slice(a, b).some((body) => body !== '');
  while (occurrences(a, b) !== 1 || !hasText()) {
    if (b < lines.length) b++;
    else if (a > 0) a--;
    else return null;
  }
  return [a, b];
}

function searchReplaceAnswer(rng: Rng, search: readonly string[], replace: readonly string[]): string {
  const width = 5 + rng.int(5);
  const block = [`${'<'.repeat(width)} SEARCH`, ...search, '='.repeat(width), ...replace, `${'>'.repeat(width)} REPLACE`].join('\n');
  const fence = rng.pick(['```python', '```diff', '```text', '```', '~~~', null]);
  const body = fence === null ? block : `${fence}\n${block}\n${fence.startsWith('~') ? '~~~' : '```'}`;
  return `${rng.pick(['', 'Here is a faster version.\n\n', 'Change:\n'])}${body}${rng.pick(['', '\n\nThis avoids the copy.'])}`;
}

/**
 * The SEARCH/REPLACE answer for an edit, with at least enough context to be unique;
 * `quote` alters the lines copied from the program, as a sloppy model would.
 */
function answerFor(rng: Rng, lines: readonly string[], edit: RandomEdit, quote: (line: string) => string = (l) => l): string | null {
  const window = uniqueWindow(lines, edit.from, edit.to);
  if (!window) return null;
  const [a, b] = window;
  const quoted = lines.map((line, i) => (i >= a && i < b ? quote(line) : line));
  const search = quoted.slice(a, b);
  const replace = [...quoted.slice(a, edit.from), ...edit.added, ...quoted.slice(edit.to, b)];
  return searchReplaceAnswer(rng, search, replace);
}

function assertApplies(parent: string, answer: string, expected: string, seed: number): void {
  const result = applyAnswer(parent, answer);
  const expectedReason = expected === parent ? 'identical' : null;
  if (expectedReason) {
    assert.equal(result.ok ? 'ok' : result.reason, expectedReason, `seed ${seed}`);
    return;
  }
  if (!result.ok) assert.fail(`seed ${seed}: ${result.reason}: ${result.message}\n--- answer\n${answer}`);
  assert.equal(result.code, expected, `seed ${seed}`);
}

const CASES = 300;

describe('applyAnswer fuzz: random programs and edits', () => {
  it('round-trips: the SEARCH/REPLACE answer of an edit inside a block yields exactly the edited program', () => {
    let checked = 0;
    for (let seed = 1; seed <= CASES; seed++) {
      const rng = new Rng(seed);
      const program = randomProgram(rng, 5 + rng.int(40));
      const edit = randomEdit(rng, program);
      const answer = answerFor(rng, program.lines, edit);
      if (answer === null) continue;
      assertApplies(program.lines.join('\n') + '\n', answer, applyEdit(program.lines, edit).join('\n') + '\n', seed);
      checked++;
    }
    assert.ok(checked > CASES * 0.9, `only ${checked} cases had a unique window`);
  });

  it('applies to CRLF programs (answers in CRLF or LF) and keeps them CRLF', () => {
    for (let seed = 1; seed <= CASES; seed++) {
      const rng = new Rng(seed * 7919);
      const program = randomProgram(rng, 5 + rng.int(30));
      const edit = randomEdit(rng, program);
      let answer = answerFor(rng, program.lines, edit);
      if (answer === null) continue;
      if (rng.next() < 0.5) answer = answer.replaceAll('\n', '\r\n');
      assertApplies(program.lines.join('\r\n') + '\r\n', answer, applyEdit(program.lines, edit).join('\r\n') + '\r\n', seed);
    }
  });

  it('applies space-indented answers to tab-indented programs, writing tabs', () => {
    const toTabs = (line: string): string => line.replace(/^( {4})+/, (ws) => '\t'.repeat(ws.length / 4));
    for (let seed = 1; seed <= CASES; seed++) {
      const rng = new Rng(seed * 104729);
      const program = randomProgram(rng, 5 + rng.int(30));
      const edit = randomEdit(rng, program);
      const answer = answerFor(rng, program.lines, edit, (line) => (rng.next() < 0.3 ? `${line}  ` : line));
      if (answer === null) continue;
      const parent = program.lines.map(toTabs).join('\n') + '\n';
      assertApplies(parent, answer, applyEdit(program.lines, edit).map(toTabs).join('\n') + '\n', seed);
    }
  });

  it('applies answers written at another indentation, re-indenting the replacement', () => {
    for (let seed = 1; seed <= CASES; seed++) {
      const rng = new Rng(seed * 15485863);
      const program = randomProgram(rng, 5 + rng.int(30));
      const edit = randomEdit(rng, program);
      const window = uniqueWindow(program.lines, edit.from, edit.to);
      if (!window) continue;
      const [a, b] = window;
      const search = program.lines.slice(a, b);
      const replace = [...program.lines.slice(a, edit.from), ...edit.added, ...program.lines.slice(edit.to, b)];
      const widths = [...search, ...replace].filter((l) => l.trim() !== '').map((l) => /^ */.exec(l)![0].length);
      const shift = Math.min(...widths);
      // One direction per answer: all lines dedented by the common indentation, or all indented by 4.
      const dedent = rng.next() < 0.5 && shift > 0;
      const shiftLine = (line: string): string => (line.trim() === '' ? line : dedent ? line.slice(shift) : `    ${line}`);
      const answer = searchReplaceAnswer(rng, search.map(shiftLine), replace.map(shiftLine));
      assertApplies(program.lines.join('\n') + '\n', answer, applyEdit(program.lines, edit).join('\n') + '\n', seed);
    }
  });

  it('detects a SEARCH that matches repeated lines as ambiguous, at every tier', () => {
    for (let seed = 1; seed <= CASES; seed++) {
      const rng = new Rng(seed * 31337);
      const program = randomProgram(rng, 6 + rng.int(30));
      const low = program.startMarker + 1;
      const from = low + rng.int(program.endMarker - low);
      const to = Math.min(program.endMarker, from + 1 + rng.int(3));
      const chunk = program.lines.slice(from, to);
      if (chunk.every((line) => line.trim() === '')) continue;
      // Paste a copy of the chunk elsewhere in the region.
      let at = low + rng.int(program.endMarker - low + 1);
      if (at > from && at < to) at = to; // inside the chunk itself it would not make a second copy
      const lines = [...program.lines.slice(0, at), ...chunk, ...program.lines.slice(at)];
      const variant = rng.int(3);
      const search = chunk.map((line) => (variant === 1 ? `${line}   ` : variant === 2 && line.trim() !== '' ? `  ${line}` : line));
      const answer = searchReplaceAnswer(rng, search, ['changed = 1']);
      const result = applyAnswer(lines.join('\n') + '\n', answer);
      assert.equal(result.ok ? 'ok' : result.reason, 'ambiguous', `seed ${seed}\n${lines.join('\n')}\n--- answer\n${answer}`);
    }
  });

  it('refuses random edits that touch lines outside the block', () => {
    for (let seed = 1; seed <= CASES; seed++) {
      const rng = new Rng(seed * 2654435761);
      const program = randomProgram(rng, 5 + rng.int(20));
      const outside = [0, 1, program.startMarker, program.endMarker, program.endMarker + 1];
      const target = rng.pick(outside);
      const edit: RandomEdit = { from: target, to: target + 1, added: [`outside_${seed} = 1`] };
      const answer = answerFor(rng, program.lines, edit);
      if (answer === null) continue;
      const result = applyAnswer(program.lines.join('\n') + '\n', answer);
      assert.equal(result.ok ? 'ok' : result.reason, 'outside_block', `seed ${seed}`);
    }
  });

  it('applies the unified diff of a random edit, and unifiedDiff round-trips through diff.applyPatch', () => {
    for (let seed = 1; seed <= CASES; seed++) {
      const rng = new Rng(seed * 97);
      const program = randomProgram(rng, 5 + rng.int(30));
      const parent = program.lines.join('\n') + '\n';
      const child = applyEdit(program.lines, randomEdit(rng, program)).join('\n') + '\n';
      if (child === parent) continue;
      const diff = createTwoFilesPatch('a/p.py', 'b/p.py', parent, child);
      assertApplies(parent, `Diff:\n\`\`\`diff\n${diff}\`\`\`\n`, child, seed);
      assert.equal(applyPatch(parent, unifiedDiff(parent, child)), child, `seed ${seed}`);
    }
  });
});
