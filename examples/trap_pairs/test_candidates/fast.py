"""A correct, fast count_pairs: the end of the move table's chain (one pass with a dict)."""
from __future__ import annotations

# EVOLVE-BLOCK-START


def count_pairs(values: list[int], k: int) -> int:
    counts: dict[int, int] = {}
    for x in values:
        counts[x] = counts.get(x, 0) + 1
    if k == 0:
        return sum(c * (c - 1) // 2 for c in counts.values())
    return sum(c * counts.get(x + k, 0) for x, c in counts.items())


# EVOLVE-BLOCK-END
