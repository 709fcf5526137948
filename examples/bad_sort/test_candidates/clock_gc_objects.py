"""Cheat: find the runner's globals through gc.get_objects() and zero its clocks. Must be refused."""
import gc

for obj in gc.get_objects():
    if isinstance(obj, dict) and "_perf_ns" in obj:
        obj["_perf_ns"] = lambda: 0
        obj["_cpu_ns"] = lambda: 0


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
