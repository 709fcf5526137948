"""Cheat: through the typing eval route, reach __import__ and replace the clock functions of
the runner in sys.modules['__main__'] so every call measures zero. Must be refused."""
from typing import get_type_hints


def _patch(x: "[__import__('sys').modules['__main__'].__dict__.update(_cpu_ns=lambda: 0, _perf_ns=lambda: 0)]") -> None:
    pass


get_type_hints(_patch)


def bad_sort(values: list[int]) -> list[int]:
    out = list(values)
    for i in range(1, len(out)):
        x = out[i]
        j = i - 1
        while j >= 0 and out[j] > x:
            out[j + 1] = out[j]
            j -= 1
        out[j + 1] = x
    return out
