"""Wrong: (value, count) tuples, which the sandbox cannot send back as plain JSON data."""
from __future__ import annotations

# EVOLVE-BLOCK-START


def dedupe_counts(values: list[int]) -> list[list[int]]:
    counts: dict[int, int] = {}
    for x in values:
        counts[x] = counts.get(x, 0) + 1
    return list(counts.items())


# EVOLVE-BLOCK-END
