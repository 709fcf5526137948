"""Rejected: for k == 0 the pairs within a value are halved with true division (a float)."""
from __future__ import annotations

# EVOLVE-BLOCK-START


def count_pairs(values: list[int], k: int) -> int:
    counts: dict[int, int] = {}
    for x in values:
        counts[x] = counts.get(x, 0) + 1
    if k == 0:
        return sum(c * (c - 1) / 2 for c in counts.values())
    return sum(c * counts.get(x + k, 0) for x, c in counts.items())


# EVOLVE-BLOCK-END
