"""trap_pairs: a deliberately slow, but correct, counter of pairs with a given difference.

This is the seed program of the Peagen `trap_pairs` benchmark. The function
`count_pairs(values, k)` must return how many pairs of positions i < j of `values`
hold integers that differ by exactly `k` (k >= 0: |values[i] - values[j]| == k),
as an int, and must leave `values` untouched.

It is slow on purpose, in several independent ways, so that an evolutionary
search can improve it step by step:
  * it copies the input element by element, converting every value;
  * it checks every element's type in a Python loop;
  * it measures each distance through the values' decimal strings, in a helper;
  * it looks at every pair of positions, although only values k apart matter.
Everything between the EVOLVE-BLOCK markers may be rewritten. The evaluator allows no
imports at all (so no collections.Counter); dict, set and the built-ins are fine.
"""
from __future__ import annotations

# EVOLVE-BLOCK-START


def _distance(a: int, b: int) -> int:
    # The distance between two integers, through their decimal strings.
    return abs(int(str(a)) - int(str(b)))


def count_pairs(values: list[int], k: int) -> int:
    """How many pairs of positions i < j hold values that differ by exactly k."""
    # Copy the input one element at a time, converting each value.
    work: list[int] = []
    for x in values:
        work.append(int(x))
    # Refuse anything that is not an int (a bool is an int subclass: refuse it too).
    for x in work:
        if isinstance(x, bool) or not isinstance(x, int):
            raise TypeError("count_pairs expects a list of int")
    n = len(work)
    count = 0
    # Try every pair of positions.
    for i in range(n):
        for j in range(i + 1, n):
            if _distance(work[i], work[j]) == k:
                count += 1
    return count


# EVOLVE-BLOCK-END
