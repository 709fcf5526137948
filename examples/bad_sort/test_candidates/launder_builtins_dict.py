"""Cheat: the forbidden sorted() fetched from the __builtins__ mapping by a computed key.
Must be refused (statically; at run time the sandbox's built-ins have no sorted at all)."""


def bad_sort(values: list[int]) -> list[int]:
    return __builtins__["sor" + "ted"](values)
