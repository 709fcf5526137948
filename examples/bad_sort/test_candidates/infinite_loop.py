"""Never returns: must be reported as correct=false (per-call timeout), not hang the evaluator.
The default per-call timeout is 1.5 s + 3e-6*n^2 s (override with --call-timeout)."""


def bad_sort(values: list[int]) -> list[int]:
    out = list(values)
    while True:
        out.append(0)
        out.pop()
