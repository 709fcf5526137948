"""bad_sort: a deliberately slow, but correct, integer sorter.

This is the seed program of the Peagen `bad_sort` benchmark. The function
`bad_sort(values)` must return a NEW list holding the same integers in
ascending order and must leave `values` untouched.

It is slow on purpose, in several independent ways, so that an evolutionary
search can improve it step by step:
  * it copies the input element by element through a string round-trip;
  * it compares numbers through their decimal strings;
  * its minimum search helper rescans the tail and re-derives every key;
  * each swap rebuilds the whole list instead of swapping in place;
  * after every pass it re-validates the sorted prefix with a full scan;
  * it finishes with a bubble pass "to be sure" that has no early exit.
Everything between the EVOLVE-BLOCK markers may be rewritten. Built-in
sorting (sorted, list.sort, heapq, bisect) is rejected by the evaluator.
"""
from __future__ import annotations

# EVOLVE-BLOCK-START


def _key(x: int) -> int:
    # Convert through the decimal string form, every single time.
    return int(str(x))


def _less(a: int, b: int) -> bool:
    # Compare two integers by re-deriving both keys from strings.
    return _key(a) < _key(b)


def _copy(values: list[int]) -> list[int]:
    # Element-by-element copy, round-tripping each value through a string.
    out: list[int] = []
    index = 0
    while index < len(values):
        out = out + [int(str(values[index]))]
        index += 1
    return out


def _length(values: list[int]) -> int:
    # Count the elements by walking the list.
    count = 0
    for _ in values:
        count += 1
    return count


def _slow_min_index(work: list[int], start: int) -> int:
    # Find the position of the smallest element of work[start:].
    tail = list(work[start:])  # needless copy of the tail
    best = 0
    for k in range(_length(tail)):
        if _less(tail[k], tail[best]):
            best = k
    return start + best


def _swap(work: list[int], i: int, j: int) -> list[int]:
    # Build a brand-new list with positions i and j exchanged.
    a, b = work[i], work[j]
    return [b if k == i else a if k == j else work[k] for k in range(len(work))]


def _prefix_is_sorted(work: list[int], upto: int) -> bool:
    # Re-check the whole sorted prefix after every pass.
    ok = True
    for k in range(1, upto + 1):
        if work[k] < work[k - 1]:
            ok = False
    return ok


def bad_sort(values: list[int]) -> list[int]:
    """Return a new list with the integers of `values` in ascending order."""
    work = _copy(values)
    n = _length(work)
    # Selection sort with a slow minimum search and copying swaps.
    for i in range(n):
        j = _slow_min_index(work, i)
        if j != i:
            work = _swap(work, i, j)
        if not _prefix_is_sorted(work, i):
            raise AssertionError("prefix lost its order")
    # A final bubble pass "just to be sure", without any early exit.
    for _ in range(n):
        for k in range(n - 1):
            if work[k + 1] < work[k]:
                work[k], work[k + 1] = work[k + 1], work[k]
    return work


# EVOLVE-BLOCK-END
