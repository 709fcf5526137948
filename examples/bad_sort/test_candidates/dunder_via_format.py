"""Reads a dunder attribute through a format string, built at run time so that no scan of the
source's string constants can see it: must be rejected (str.format is refused statically)."""


def bad_sort(values: list[int]) -> list[int]:
    field = "{0." + "_" * 2 + "globals" + "_" * 2 + "}"
    leak = field.format(bad_sort)
    out = list(values)
    for i in range(1, len(out)):
        x = out[i]
        j = i - 1
        while j >= 0 and out[j] > x:
            out[j + 1] = out[j]
            j -= 1
        out[j + 1] = x
    return out if leak else out
