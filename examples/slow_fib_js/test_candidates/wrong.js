'use strict';
// Off by one for n >= 10 (fast, but wrong): must be rejected (correct=false).
function fib(n) {
  let a = 0n;
  let b = 1n;
  for (let i = 0; i < n; i += 1) [a, b] = [b, a + b];
  return n >= 10 ? a + 1n : a;
}
module.exports = { fib };
