"""Memoises results across calls (keyed by the input). Correct, but the cache never hits because
every timing round uses fresh inputs, so it gains nothing over plain insertion sort."""

_CACHE: dict = {}


def bad_sort(values: list[int]) -> list[int]:
    key = tuple(values)
    if key in _CACHE:
        return list(_CACHE[key])
    out = list(values)
    for i in range(1, len(out)):
        x = out[i]
        j = i - 1
        while j >= 0 and out[j] > x:
            out[j + 1] = out[j]
            j -= 1
        out[j + 1] = x
    _CACHE[key] = list(out)
    return out
