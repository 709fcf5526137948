"""Cheat: patch the time module itself so that the harness's clocks stand still. Must be refused."""
import time

time.perf_counter_ns = lambda: 0
time.process_time_ns = lambda: 0


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
