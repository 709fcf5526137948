"""The baseline: an honest wrong answer (not a permutation), which scores 0."""


def run_schedule(jobs):
    return [0] * len(jobs)
