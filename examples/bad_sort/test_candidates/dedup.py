"""Sorts correctly but drops duplicates: must fail (output is not a permutation of the input)."""


def bad_sort(values: list[int]) -> list[int]:
    out: list[int] = []
    for x in set(values):
        k = len(out)
        while k > 0 and out[k - 1] > x:
            k -= 1
        out.insert(k, x)
    return out
