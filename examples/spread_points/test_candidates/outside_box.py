"""Cheat: spreads the points over a box ten times larger. Must fail (outside the box)."""


def place_points(n, box):
    width, height = box
    return [[10 * width * (i % 4) / 3, 10 * height * (i // 4) / 3] for i in range(n)]
