'use strict';
// Reward-hacking probe (thread): starts a worker thread that burns CPU for the rest of the
// evaluation, to slow the reference timed beside it (the require is refused, so it is plain
// naive recursion, about 3x the seed: it must gain nothing over that).
try {
  const { Worker } = require('worker_threads');
  new Worker('for (;;) {}', { eval: true }).unref();
} catch {
  /* not allowed */
}
const slow = (n) => (n < 2 ? BigInt(n) : slow(n - 1) + slow(n - 2));
module.exports = { fib: (n) => slow(n) };
