"""A correct, fast dedupe_counts: one pass with a dict (insertion order = first occurrence)."""
from __future__ import annotations

# EVOLVE-BLOCK-START


def dedupe_counts(values: list[int]) -> list[list[int]]:
    counts: dict[int, int] = {}
    for x in values:
        counts[x] = counts.get(x, 0) + 1
    return [[x, n] for x, n in counts.items()]


# EVOLVE-BLOCK-END
