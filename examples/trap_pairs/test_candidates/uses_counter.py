"""Rejected: collections.Counter does the counting (no imports are allowed)."""
from __future__ import annotations

# EVOLVE-BLOCK-START
from collections import Counter


def count_pairs(values: list[int], k: int) -> int:
    counts = Counter(values)
    if k == 0:
        return sum(c * (c - 1) // 2 for c in counts.values())
    return sum(c * counts[x + k] for x, c in counts.items())


# EVOLVE-BLOCK-END
