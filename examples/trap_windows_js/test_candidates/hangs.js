'use strict';
// Never returns: must be reported as correct=false by the per-call timeout.
function distinctInWindows() {
  for (;;) {
    /* spin */
  }
}
module.exports = { distinctInWindows };
