"""dedupe_counts: a deliberately slow, but correct, counter of distinct values.

This is the seed program of the Peagen `dedupe_counts` benchmark. The function
`dedupe_counts(values)` must return a NEW list with one `[value, count]` pair for
each distinct integer of `values` (how many times it occurs), in the order in which
the values FIRST occur, and must leave `values` untouched. The pairs are two-element
lists, not tuples: a program's result reaches the evaluator as plain JSON data.

It is slow on purpose, in several independent ways, so that an evolutionary
search can improve it step by step:
  * it compares integers through their decimal strings, in a helper;
  * it looks each value up by scanning the whole list of values seen so far;
  * it counts each distinct value by walking the whole input again;
  * it copies the input element by element through a string round-trip, growing
    the copy by concatenation;
  * it finishes with a verification pass that counts everything once more.
Everything between the EVOLVE-BLOCK markers may be rewritten. The evaluator allows no
imports at all (so no collections.Counter); dict and set are fine.
"""
from __future__ import annotations

# EVOLVE-BLOCK-START


def _same(a: int, b: int) -> bool:
    # Compare two integers through their decimal strings.
    return str(a) == str(b)


def _copy(values: list[int]) -> list[int]:
    # Element-by-element copy, round-tripping each value through a string.
    out: list[int] = []
    index = 0
    while index < len(values):
        out = out + [int(str(values[index]))]
        index += 1
    return out


def _position(seen: list[int], x: int) -> int:
    # Where x is in the list of values seen so far (-1 if absent); scans the whole list.
    found = -1
    for k in range(len(seen)):
        if _same(seen[k], x):
            found = k
    return found


def _occurrences(work: list[int], x: int) -> int:
    # How many times x occurs, by walking the whole input.
    count = 0
    for y in work:
        if _same(y, x):
            count += 1
    return count


def _verify(work: list[int], pairs: list[list[int]]) -> None:
    # Count every value once more and check that the counts add up to the input's length.
    total = 0
    for pair in pairs:
        if _occurrences(work, pair[0]) != pair[1]:
            raise AssertionError("a count is wrong")
        total += pair[1]
    if total != len(work):
        raise AssertionError("the counts do not add up")


def dedupe_counts(values: list[int]) -> list[list[int]]:
    """Return [value, count] for each distinct value of `values`, in order of first occurrence."""
    work = _copy(values)
    # Collect the distinct values in order of first occurrence.
    seen: list[int] = []
    for x in work:
        if _position(seen, x) < 0:
            seen = seen + [x]
    # Count each distinct value by walking the whole input again.
    pairs: list[list[int]] = []
    for x in seen:
        pairs = pairs + [[x, _occurrences(work, x)]]
    _verify(work, pairs)
    return pairs


# EVOLVE-BLOCK-END
