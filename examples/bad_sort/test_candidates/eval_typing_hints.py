"""Cheat: sorted() reached through the eval that typing.get_type_hints performs on a string
annotation, invisible to a ban list of names. Must be refused."""
from typing import get_type_hints


def _sorter(x: "__builtins__['sorted']") -> None:
    pass


def bad_sort(values: list[int]) -> list[int]:
    return get_type_hints(_sorter)["x"](values)
