"""Cheat: enlarges the shared box argument in place, then spreads the points over it, hoping
the evaluator checks the bounds against the changed box. Must fail (argument modified)."""


def place_points(n, box):
    box[0] *= 10
    box[1] *= 10
    width, height = box
    cols = 4
    return [[width * (i % cols) / cols, height * (i // cols) / cols] for i in range(n)]
