'use strict';
// Right counts, wrong type: one comma-separated string instead of an array of Numbers.
function distinctInWindows(log, k) {
  const data = log.split(' ').map(Number);
  const result = [];
  for (let start = 0; start + k <= data.length; start++) result.push(new Set(data.slice(start, start + k)).size);
  return result.join(',');
}
module.exports = { distinctInWindows };
