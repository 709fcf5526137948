'use strict';
// A running count per id in a Map, slid along the log: O(n), the end of the move table's chain.
function distinctInWindows(log, k) {
  const data = log.split(' ').map(Number);
  const result = [];
  const counts = new Map();
  for (let j = 0; j < k - 1; j++) counts.set(data[j], (counts.get(data[j]) || 0) + 1);
  for (let start = 0; start + k <= data.length; start++) {
    const entering = data[start + k - 1];
    counts.set(entering, (counts.get(entering) || 0) + 1);
    result.push(counts.size);
    const leaving = data[start];
    const left = counts.get(leaving) - 1;
    if (left === 0) counts.delete(leaving);
    else counts.set(leaving, left);
  }
  return result;
}

module.exports = { distinctInWindows };
