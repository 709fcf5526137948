"""An honest, better placement: the best of several staggered (hexagonal) rows, stretched
to touch the box's edges. Must be correct and score well above the seed."""
import math


def _rows(n, width, height, rows):
    per_row = math.ceil(n / rows)
    points = []
    for r in range(rows):
        count = min(per_row, n - len(points))
        if count <= 0:
            break
        y = height * r / (rows - 1) if rows > 1 else height / 2
        shift = 0.5 if (r % 2 and per_row > 1) else 0.0
        span = per_row - 1 + (0.5 if rows > 1 and per_row > 1 else 0.0)
        for c in range(count):
            x = width * (c + shift) / span if span > 0 else width / 2
            points.append([min(x, width), y])
    return points


def _smallest(points):
    best = math.inf
    for i in range(len(points)):
        for j in range(i + 1, len(points)):
            best = min(best, math.hypot(points[i][0] - points[j][0], points[i][1] - points[j][1]))
    return best


def place_points(n, box):
    width, height = box
    best_points, best_d = None, -1.0
    for rows in range(1, n + 1):
        points = _rows(n, width, height, rows)
        if len(points) == n:
            d = _smallest(points)
            if d > best_d:
                best_points, best_d = points, d
    return best_points
