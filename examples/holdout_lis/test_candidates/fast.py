"""A correct, fast lis_length: patience sorting with a binary search over the tails, O(n log n)."""
from __future__ import annotations

# EVOLVE-BLOCK-START


def lis_length(values: list[int]) -> int:
    tails: list[int] = []
    for x in values:
        lo, hi = 0, len(tails)
        while lo < hi:
            mid = (lo + hi) // 2
            if tails[mid] < x:
                lo = mid + 1
            else:
                hi = mid
        if lo == len(tails):
            tails.append(x)
        else:
            tails[lo] = x
    return len(tails)


# EVOLVE-BLOCK-END
