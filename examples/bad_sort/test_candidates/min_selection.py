"""Not a cheat: selection sort whose minimum search is the built-in min() (C speed, but still
O(n^2) comparisons). Allowed, and faster than the seed."""


def bad_sort(values: list[int]) -> list[int]:
    rest = list(values)
    out: list[int] = []
    while rest:
        m = min(rest)
        rest.remove(m)
        out.append(m)
    return out
