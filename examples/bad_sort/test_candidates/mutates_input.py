"""Sorts its argument in place (insertion sort) and returns it: must fail (input mutated)."""


def bad_sort(values: list[int]) -> list[int]:
    for i in range(1, len(values)):
        x = values[i]
        j = i - 1
        while j >= 0 and values[j] > x:
            values[j + 1] = values[j]
            j -= 1
        values[j + 1] = x
    return values
