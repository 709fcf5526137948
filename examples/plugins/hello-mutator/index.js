'use strict';
/**
 * hello-mutator: a Peagen mutator plugin in plain CommonJS (no build step, no dependencies).
 *
 * It proposes a child by deleting one non-blank line inside the program's EVOLVE-BLOCK
 * regions (the whole file when it has none), the line chosen by the request's seed. That is
 * language-agnostic, deterministic (same request and seed, same child), never touches the
 * text outside the regions, and often removes needless work from a slow program; children
 * it breaks are caught by the evaluator like any other.
 */

const START = 'EVOLVE-BLOCK-START';
const END = 'EVOLVE-BLOCK-END';

/** Indexes of the lines the mutator may delete, or a reason there are none. */
function editableLines(lines) {
  const hasMarkers = lines.some((line) => line.includes(START) || line.includes(END));
  const editable = [];
  let inside = !hasMarkers;
  // The last element is what follows the final newline: deleting it would change how the file ends.
  for (let i = 0; i < lines.length - 1; i++) {
    const line = lines[i];
    if (line.includes(START)) {
      if (inside) return { reason: 'unbalanced_markers' };
      inside = true;
    } else if (line.includes(END)) {
      if (!inside) return { reason: 'unbalanced_markers' };
      inside = false;
    } else if (inside && line.trim() !== '' && !line.includes('\r')) {
      editable.push(i);
    }
  }
  if (hasMarkers && inside) return { reason: 'unbalanced_markers' };
  return { editable };
}

/** A small deterministic hash of the seed, so neighbouring seeds pick unrelated lines. */
function pick(seed, count) {
  let x = (seed >>> 0) ^ 0x9e3779b9;
  x = Math.imul(x ^ (x >>> 16), 0x85ebca6b);
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35);
  return ((x ^ (x >>> 16)) >>> 0) % count;
}

const helloMutator = {
  name: 'hello-mutator',
  usesLlm: false,
  async propose(request) {
    const fail = (reason, message) => ({ ok: false, mutator: 'hello-mutator', reason, message, exchanges: [], repairs: 0 });
    const code = request.parent.code;
    const lines = code.split('\n');
    const found = editableLines(lines);
    if (found.reason) return fail(found.reason, 'the EVOLVE-BLOCK markers do not pair up');
    if (found.editable.length === 0) return fail('no_edit', 'no non-blank line to delete inside the EVOLVE-BLOCK');
    const index = found.editable[pick(request.seed, found.editable.length)];
    const child = [...lines.slice(0, index), ...lines.slice(index + 1)].join('\n');
    // A unified diff of the deletion (line numbers are 1-based; an empty new range starts one line before).
    const patch = ['--- parent', '+++ child', `@@ -${index + 1},1 +${index},0 @@`, `-${lines[index]}`, ''].join('\n');
    return { ok: true, mutator: 'hello-mutator', code: child, patch, exchanges: [], repairs: 0 };
  },
};

exports.mutators = [helloMutator];
