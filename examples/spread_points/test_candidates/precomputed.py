"""Cheat: computes at load one good answer (for the first public instance) and returns it
whatever it is asked. Must fail: the held-out instances ask for other counts and boxes."""
import math

_ANSWER = [[x / 3, y / 2] for y in range(3) for x in range(4)]


def place_points(n, box):
    return [list(point) for point in _ANSWER]
