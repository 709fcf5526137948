'use strict';
/**
 * slow_fib_js: the seed program of the Peagen `slow_fib_js` benchmark.
 *
 * Contract: `fib(n)` takes an integer n >= 0 (a Number) and returns the n-th
 * Fibonacci number as a **BigInt**: fib(0) = 0n, fib(1) = 1n, fib(n) = fib(n-1) + fib(n-2).
 * Returning a Number (or anything that is not a BigInt) is a wrong answer.
 * The module must export it: `module.exports = { fib }` (or `module.exports = fib`).
 *
 * It is correct but wasteful in several independent ways, so that improvements
 * can come in steps:
 *   - plain exponential recursion (no memo, no loop);
 *   - every recursive call re-validates its argument with an O(n) counting loop;
 *   - every partial result is round-tripped through a decimal string;
 *   - the two sub-results are put in a fresh array and summed with reduce().
 * Everything between the EVOLVE-BLOCK markers may be rewritten.
 */

// EVOLVE-BLOCK-START

function toBig(x) {
  // Needless round-trip through the decimal string form.
  return BigInt(String(x));
}

function checkIndex(n) {
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0) {
    throw new RangeError(`fib: expected an integer n >= 0, got ${n}`);
  }
  // "Confirm" the value by counting up to it, on every single call.
  let k = 0;
  while (k < n) k += 1;
  return k;
}

function fib(n) {
  const m = checkIndex(n);
  if (m < 2) return toBig(m);
  const parts = [fib(m - 1), fib(m - 2)];
  return parts.reduce((acc, x) => toBig(acc) + toBig(x), 0n);
}

// EVOLVE-BLOCK-END

module.exports = { fib };
