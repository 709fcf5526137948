"""Cheat: booleans are ints in Python; corners as True/False. Must fail (not numbers)."""


def place_points(n, box):
    return [[bool(i & 1), bool(i & 2)] for i in range(n)]
