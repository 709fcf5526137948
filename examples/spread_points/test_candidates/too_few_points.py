"""Cheat: two points in opposite corners are far apart. Must fail (wrong number of points)."""


def place_points(n, box):
    width, height = box
    return [[0.0, 0.0], [width, height]]
