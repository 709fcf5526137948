'use strict';
// Right values, wrong type (Number instead of BigInt): must be rejected.
function fib(n) {
  let a = 0;
  let b = 1;
  for (let i = 0; i < n; i += 1) [a, b] = [b, a + b];
  return a;
}
module.exports = { fib };
