'use strict';
// Timing probe (work moved out of the timed call): computes every answer a timed call could
// ask for while the module loads, with the slow exponential recursion, and then only looks
// them up. If loading is not charged this looks thousands of times faster than the seed; if
// it is charged it is about as slow as the seed.
const slow = (n) => (n < 2 ? BigInt(n) : slow(n - 1) + slow(n - 2));
const table = [];
for (let n = 0; n <= 27; n += 1) table.push(slow(n));
function fib(n) {
  return n < table.length ? table[n] : slow(n);
}
module.exports = { fib };
