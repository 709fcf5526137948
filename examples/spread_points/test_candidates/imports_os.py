"""Tries to read the evaluator's files. Must fail (only math may be imported)."""
import os


def place_points(n, box):
    os.listdir("/")
    return [[0.0, 0.0]] * n
