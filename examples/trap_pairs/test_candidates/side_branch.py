"""Correct, and the trap of this benchmark: list.count does the pair loop in C (the move table's
side branch with both fixes). A quick, big gain over the seed, still quadratic: far below the
dict count of fast.py."""
from __future__ import annotations

# EVOLVE-BLOCK-START


def count_pairs(values: list[int], k: int) -> int:
    work = list(values)
    n = len(work)
    count = 0
    for i in range(n):
        count += work[i + 1:].count(work[i] + k)
        if k:
            count += work[i + 1:].count(work[i] - k)
    return count


# EVOLVE-BLOCK-END
