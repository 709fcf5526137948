"""Tries to reach list.sort through getattr with a computed name: must be rejected statically."""


def bad_sort(values: list[int]) -> list[int]:
    out = list(values)
    getattr(out, "so" + "rt")()
    return out
