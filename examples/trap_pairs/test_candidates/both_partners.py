"""Rejected: counts every pair twice, once from each end (a partner k above and k below)."""
from __future__ import annotations

# EVOLVE-BLOCK-START


def count_pairs(values: list[int], k: int) -> int:
    counts: dict[int, int] = {}
    for x in values:
        counts[x] = counts.get(x, 0) + 1
    if k == 0:
        return sum(c * (c - 1) // 2 for c in counts.values())
    return sum(c * (counts.get(x + k, 0) + counts.get(x - k, 0)) for x, c in counts.items())


# EVOLVE-BLOCK-END
