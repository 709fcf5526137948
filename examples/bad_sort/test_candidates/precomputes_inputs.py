"""Cheat: regenerate the evaluator's input stream from the default seed and answer from a
precomputed table. Must be refused (no imports; and timing inputs are not seeded anyway)."""
import random

_rng = random.Random(20250601 * 7_919 + 3)
_TABLE = {}
for _ in range(40):
    data = [_rng.randint(-1_000_000, 1_000_000) for _ in range(300)]
    _TABLE[tuple(data)] = data


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
