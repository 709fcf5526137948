'use strict';
// Wrong for ids beyond 32 bits: compares them by their low 32 bits (| 0), so 2**40 and 0 are
// the same id.
function distinctInWindows(log, k) {
  const data = log.split(' ').map((id) => Number(id) | 0);
  const result = [];
  for (let start = 0; start + k <= data.length; start++) result.push(new Set(data.slice(start, start + k)).size);
  return result;
}
module.exports = { distinctInWindows };
