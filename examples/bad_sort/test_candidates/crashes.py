"""Raises on every call: must be reported as correct=false with the exception in `error`."""


def bad_sort(values: list[int]) -> list[int]:
    raise ValueError("boom: this candidate always crashes")
