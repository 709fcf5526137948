"""Wrong: the right length, as a float."""
from __future__ import annotations

# EVOLVE-BLOCK-START


def lis_length(values: list[int]) -> int:
    best = [1.0] * len(values)
    for i in range(len(values)):
        for j in range(i):
            if values[j] < values[i] and best[j] + 1 > best[i]:
                best[i] = best[j] + 1
    return max(best, default=0.0)


# EVOLVE-BLOCK-END
