'use strict';
// Throws on every call: must be reported as correct=false with the exception in `error`.
function distinctInWindows(log, k) {
  throw new Error(`boom: this candidate always crashes (k=${k})`);
}
module.exports = { distinctInWindows };
