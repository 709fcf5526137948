"""Wrong: counts correctly but empties the caller's list on the way."""
from __future__ import annotations

# EVOLVE-BLOCK-START


def dedupe_counts(values: list[int]) -> list[list[int]]:
    values.reverse()
    counts: dict[int, int] = {}
    while values:
        x = values.pop()
        counts[x] = counts.get(x, 0) + 1
    return [[x, n] for x, n in counts.items()]


# EVOLVE-BLOCK-END
