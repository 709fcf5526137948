"""spread_points: place n points in a box so that the closest two are as far apart as possible.

This is the seed program of the Peagen `spread_points` example. `place_points(n, box)` gets a
number of points and a box `[width, height]` and must return n points `[x, y]` inside it
(edges included). The evaluator computes the score itself from the returned points: the
smallest distance between two of them, as a percentage of the best any placement could reach
(a disc-packing bound). Higher is better.

The seed is valid but weak, in ways a search can fix step by step:
  * it starts from a grid with a margin around it (points may sit on the box's edge);
  * its relaxation steps shrink fast, so the points stop moving early;
  * it runs few relaxation rounds;
  * it pulls every point toward the centre at the end "to be safe".
Everything between the EVOLVE-BLOCK markers may be rewritten; only `math` may be imported.
"""
from __future__ import annotations

import math

# EVOLVE-BLOCK-START


def grid_start(n: int, width: float, height: float) -> list[list[float]]:
    # A grid of cells with one point in the middle of each, row by row.
    cols = max(1, math.ceil(math.sqrt(n * width / height)))
    rows = max(1, math.ceil(n / cols))
    points = []
    for i in range(n):
        col = i % cols
        row = i // cols
        points.append([(col + 0.5) * width / cols, (row + 0.5) * height / rows])
    return points


def push_apart(points: list[list[float]], step: float, width: float, height: float) -> list[list[float]]:
    # Every point moves `step` away from its nearest neighbour, then back into the box.
    moved = []
    for i, (x, y) in enumerate(points):
        nearest = None
        best = math.inf
        for j, (u, v) in enumerate(points):
            if i != j:
                d = math.hypot(x - u, y - v)
                if d < best:
                    best, nearest = d, (u, v)
        if nearest is not None and best > 0:
            x += step * (x - nearest[0]) / best
            y += step * (y - nearest[1]) / best
        moved.append([min(max(x, 0.0), width), min(max(y, 0.0), height)])
    return moved


def shrink(points: list[list[float]], width: float, height: float, factor: float) -> list[list[float]]:
    # Pull every point toward the centre of the box.
    cx, cy = width / 2, height / 2
    return [[cx + (x - cx) * factor, cy + (y - cy) * factor] for x, y in points]


def place_points(n: int, box: list[float]) -> list[list[float]]:
    width, height = box
    points = grid_start(n, width, height)
    step = 0.05 * math.sqrt(width * height / n)
    for _ in range(30):
        points = push_apart(points, step, width, height)
        step *= 0.8
    points = shrink(points, width, height, 0.9)
    return points


# EVOLVE-BLOCK-END
