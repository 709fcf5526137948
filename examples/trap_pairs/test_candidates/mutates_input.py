"""Rejected: sorts the caller's list in place to find the pairs."""
from __future__ import annotations

# EVOLVE-BLOCK-START


def count_pairs(values: list[int], k: int) -> int:
    values.sort()
    count = 0
    for i in range(len(values)):
        for j in range(i + 1, len(values)):
            gap = values[j] - values[i]
            if gap > k:
                break
            if gap == k:
                count += 1
    return count


# EVOLVE-BLOCK-END
