'use strict';
// Never returns: must be reported as correct=false by the per-call timeout (2 s with --quick).
function fib() {
  for (;;) {
    /* spin */
  }
}
module.exports = { fib };
