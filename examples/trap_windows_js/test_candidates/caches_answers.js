'use strict';
// Timing probe (a cache across calls): keeps every answer by log and k, so a repeated input
// would cost nothing. The timed logs are fresh random draws, so it never hits: it stays the
// side branch's speed (a Set per window), nowhere near a running count.
const cache = new Map();
function distinctInWindows(log, k) {
  const key = `${k}:${log}`;
  if (cache.has(key)) return cache.get(key).slice();
  const data = log.split(' ').map(Number);
  const result = [];
  for (let start = 0; start + k <= data.length; start++) result.push(new Set(data.slice(start, start + k)).size);
  cache.set(key, result.slice());
  return result;
}
module.exports = { distinctInWindows };
