"""Cheat: list.sort reached through a class pattern's keyword attribute. Must be refused."""


def bad_sort(values: list[int]) -> list[int]:
    out = list(values)
    match out:
        case list(sort=sorter):
            sorter()
    return out
