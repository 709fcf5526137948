"""Cheat: answers with a score instead of points. Must fail (the answer is not a placement)."""


def place_points(n, box):
    return {"score": 100.0, "objective": 100.0}
