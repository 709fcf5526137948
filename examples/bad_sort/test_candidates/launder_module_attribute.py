"""Cheat: bisect reached as a module attribute of an innocent-looking module
(random imports bisect as random._bisect). Must be refused."""
import random


def bad_sort(values: list[int]) -> list[int]:
    out: list[int] = []
    for v in values:
        random._bisect.insort(out, v)
    return out
