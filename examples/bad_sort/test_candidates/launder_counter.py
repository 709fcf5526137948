"""Cheat: sorting laundered through a stdlib call that sorts internally
(Counter.most_common sorts by count with C code). Must be refused: no imports allowed."""
from collections import Counter


def bad_sort(values: list[int]) -> list[int]:
    ranked = Counter(dict(enumerate(values))).most_common()
    return [v for _, v in reversed(ranked)]
