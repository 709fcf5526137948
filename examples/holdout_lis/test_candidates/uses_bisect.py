"""Rejected: bisect is not allowed (the evaluator allows no imports)."""
from __future__ import annotations

from bisect import bisect_left

# EVOLVE-BLOCK-START


def lis_length(values: list[int]) -> int:
    tails: list[int] = []
    for x in values:
        k = bisect_left(tails, x)
        if k == len(tails):
            tails.append(x)
        else:
            tails[k] = x
    return len(tails)


# EVOLVE-BLOCK-END
