"""Wrong: the right counts, but in ascending order of value instead of order of first occurrence."""
from __future__ import annotations

# EVOLVE-BLOCK-START


def dedupe_counts(values: list[int]) -> list[list[int]]:
    counts: dict[int, int] = {}
    for x in values:
        counts[x] = counts.get(x, 0) + 1
    return [[x, counts[x]] for x in sorted(counts)]


# EVOLVE-BLOCK-END
