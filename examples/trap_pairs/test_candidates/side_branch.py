"""Correct, and the trap of this benchmark: list.count does the pair loop in C. A quick, big
gain over the seed, still quadratic: far below the dict count of fast.py."""
from __future__ import annotations

# EVOLVE-BLOCK-START


def count_pairs(values: list[int], k: int) -> int:
    work = list(values)
    n = len(work)
    count = 0
    for x in work:
        count += work.count(x + k)
    if k == 0:
        count = (count - n) // 2
    return count


# EVOLVE-BLOCK-END
