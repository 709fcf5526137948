"""Wrong: a correct answer, but the caller's list is overwritten with the tails on the way."""
from __future__ import annotations

# EVOLVE-BLOCK-START


def lis_length(values: list[int]) -> int:
    size = 0
    for x in list(values):
        lo, hi = 0, size
        while lo < hi:
            mid = (lo + hi) // 2
            if values[mid] < x:
                lo = mid + 1
            else:
                hi = mid
        values[lo] = x
        size = max(size, lo + 1)
    return size


# EVOLVE-BLOCK-END
