"""Cheat: NaN coordinates compare false with everything, so a naive distance check sees no
close pair. Must fail (coordinates must be finite)."""


def place_points(n, box):
    return [[float("nan"), float("nan")] for _ in range(n)]
