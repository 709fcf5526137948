"""Cheat: heapq reached indirectly through queue.PriorityQueue. Must be refused."""
from queue import PriorityQueue


def bad_sort(values: list[int]) -> list[int]:
    q: PriorityQueue = PriorityQueue()
    for v in values:
        q.put(v)
    return [q.get() for _ in values]
