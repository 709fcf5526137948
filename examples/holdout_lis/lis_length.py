"""lis_length: a deliberately slow, but correct, longest increasing subsequence.

This is the seed program of the Peagen `holdout_lis` benchmark. The function
`lis_length(values)` must return the length of the longest STRICTLY increasing
subsequence of the list of integers `values` (the elements need not be adjacent;
0 for an empty list), and must leave `values` untouched.

It is slow on purpose, so that an evolutionary search can improve it:
  * it checks every value's type in a pass of its own;
  * it copies the input element by element through a string round-trip;
  * it compares two integers through a helper, by the sign of their difference;
  * it finds each element's best length by looking at every element and
    skipping the later ones (the textbook quadratic dynamic programme, twice over);
  * it finds the longest of those lengths in a loop of its own.
Everything between the EVOLVE-BLOCK markers may be rewritten. The evaluator allows no
imports at all (so no bisect).
"""
from __future__ import annotations

# EVOLVE-BLOCK-START


def _sign(d: int) -> int:
    # -1, 0 or 1: the sign of d.
    return (d > 0) - (d < 0)


def _below(a: int, b: int) -> bool:
    # Whether a comes strictly before b, by the sign of their difference.
    return _sign(a - b) < 0


def _check(values: list[int]) -> None:
    # Make sure that every value is an integer before comparing any two.
    for v in values:
        if not isinstance(v, int) or isinstance(v, bool):
            raise TypeError("lis_length expects a list of integers")


def _copy(values: list[int]) -> list[int]:
    # Element-by-element copy, round-tripping each value through a string.
    out: list[int] = []
    for v in values:
        out.append(int(str(v)))
    return out


def lis_length(values: list[int]) -> int:
    """Length of the longest strictly increasing subsequence of `values`."""
    _check(values)
    work = _copy(values)
    n = len(work)
    # best[i]: the length of the longest increasing subsequence that ends at work[i].
    best: list[int] = [1] * n
    for i in range(n):
        x = work[i]
        for j in range(n):
            if j < i and _below(work[j], x):
                best[i] = max(best[i], best[j] + 1)
    # The longest of them all.
    longest = 0
    for length in best:
        if length > longest:
            longest = length
    return longest


# EVOLVE-BLOCK-END
