"""Forbidden: calls the built-in sorted(). Must be rejected by the static check."""


def bad_sort(values: list[int]) -> list[int]:
    return sorted(values)
