"""Cheat: climb from a traceback to the caller's frame and rewrite the runner's clocks in its
globals. Must be refused."""


def _runner_globals():
    try:
        raise ValueError
    except ValueError as exc:
        return exc.__traceback__.tb_frame.f_back.f_globals


def bad_sort(values: list[int]) -> list[int]:
    g = _runner_globals()
    g["_perf_ns"] = g["_cpu_ns"] = lambda: 0
    out = list(values)
    for i in range(1, len(out)):
        x = out[i]
        j = i - 1
        while j >= 0 and out[j] > x:
            out[j + 1] = out[j]
            j -= 1
        out[j + 1] = x
    return out
