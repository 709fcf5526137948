"""Cheat: code generated and exec'd by dataclasses (make_dataclass builds __init__ from
strings); the default value is the forbidden sorted() reached via a string. Must be refused."""
from dataclasses import make_dataclass


def bad_sort(values: list[int]) -> list[int]:
    holder = make_dataclass("Holder", [("fn", "object", None)], namespace={})
    return holder(__builtins__["sorted"]).fn(values)
