"""Never answers. Must fail (per-call time limit)."""


def place_points(n, box):
    while True:
        n += 1
