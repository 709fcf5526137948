'use strict';
/**
 * trap_windows_js: the seed program of the Peagen `trap_windows_js` benchmark.
 *
 * Contract: `distinctInWindows(log, k)` takes a log of visitor ids, one string of n >= 1
 * non-negative integer ids in decimal (no leading zeros, below 2**53) separated by single
 * spaces, and a window length k (1 <= k <= n), and returns an array of n - k + 1 Numbers: for
 * every start i = 0 .. n - k, how many distinct ids the window of events i .. i + k - 1 holds.
 * The module must export it: `module.exports = { distinctInWindows }`.
 *
 * It is correct but slow in several independent ways, so that improvements can come in steps:
 *   - every window is copied, and its distinct ids are found by scanning a list of the ids
 *     seen so far (O(k * d) per window for d distinct ids);
 *   - each comparison goes through the ids' decimal strings;
 *   - the log is split with a regular expression and every id round-tripped through a string,
 *     and the result is deep-copied through JSON.
 * Everything between the EVOLVE-BLOCK markers may be rewritten.
 */

// EVOLVE-BLOCK-START

function sameValue(a, b) {
  // Compare through the decimal form, so that every number format compares alike.
  return String(a) === String(b);
}

function copyWindow(data, start, k) {
  const window = [];
  for (let j = start; j < start + k; j++) window.push(data[j]);
  return window;
}

function countDistinct(window) {
  const seen = [];
  for (const v of window) {
    let found = false;
    for (let j = 0; j < seen.length; j++) {
      if (sameValue(seen[j], v)) found = true;
    }
    if (!found) seen.push(v);
  }
  return seen.length;
}

function distinctInWindows(log, k) {
  const data = log.trim().split(/\s+/).map((id) => Number(String(id)));
  const result = [];
  for (let start = 0; start + k <= data.length; start++) {
    const window = copyWindow(data, start, k);
    result.push(countDistinct(window));
  }
  return JSON.parse(JSON.stringify(result));
}

// EVOLVE-BLOCK-END

module.exports = { distinctInWindows };
