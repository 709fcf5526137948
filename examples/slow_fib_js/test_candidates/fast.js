'use strict';
// Correct linear-time BigInt loop: expected speedup >> 1 (thousands).
function fib(n) {
  let a = 0n;
  let b = 1n;
  for (let i = 0; i < n; i += 1) {
    const t = a + b;
    a = b;
    b = t;
  }
  return a;
}
module.exports = { fib };
