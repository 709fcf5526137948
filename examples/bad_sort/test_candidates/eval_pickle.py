"""Cheat: pickle resolves a global by name (builtins.sorted) while loading. Must be refused."""
import pickle


def bad_sort(values: list[int]) -> list[int]:
    return pickle.loads(b"cbuiltins\nsorted\n.")(values)
