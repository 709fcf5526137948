"""Wrong: the longest NON-decreasing subsequence (bisect to the right of equal tails), not a strictly increasing one."""
from __future__ import annotations

# EVOLVE-BLOCK-START


def lis_length(values: list[int]) -> int:
    tails: list[int] = []
    for x in values:
        lo, hi = 0, len(tails)
        while lo < hi:
            mid = (lo + hi) // 2
            if tails[mid] <= x:
                lo = mid + 1
            else:
                hi = mid
        if lo == len(tails):
            tails.append(x)
        else:
            tails[lo] = x
    return len(tails)


# EVOLVE-BLOCK-END
