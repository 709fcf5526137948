'use strict';
// Throws on every call: must be reported as correct=false with the exception in `error`.
function fib(n) {
  throw new Error(`boom: this candidate always crashes (n=${n})`);
}
module.exports = { fib };
