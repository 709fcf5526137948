"""Rejected: collections.Counter does the counting (no imports are allowed)."""
from __future__ import annotations

# EVOLVE-BLOCK-START
from collections import Counter


def dedupe_counts(values: list[int]) -> list[list[int]]:
    return [[x, n] for x, n in Counter(values).items()]


# EVOLVE-BLOCK-END
