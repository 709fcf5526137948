'use strict';
// Fast but wrong: misses the last window (a strict bound where <= belongs).
function distinctInWindows(log, k) {
  const data = log.split(' ').map(Number);
  const result = [];
  for (let start = 0; start + k < data.length; start++) result.push(new Set(data.slice(start, start + k)).size);
  return result;
}
module.exports = { distinctInWindows };
