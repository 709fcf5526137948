"""Scores initial_program.py's schedule(): the best possible weighted completion time divided
by the one its order gives (1.0 is optimal), over fixed random instances.

Written for OpenEvolve: evaluate(program_path) returns an EvaluationResult whose metrics hold
combined_score. It imports the program at program_path into its own process, like OpenEvolve's
evaluators; Peagen's adapter gives it a stand-in there, whose functions run the candidate in a
locked-down process of its own (docs/openevolve.md).
"""
import importlib.util
import random

from openevolve.evaluation_result import EvaluationResult

INSTANCES = 30
JOBS_PER_INSTANCE = 12


def instances():
    rng = random.Random(20260101)
    return [[(rng.randint(1, 20), rng.randint(1, 10)) for _ in range(JOBS_PER_INSTANCE)] for _ in range(INSTANCES)]


def weighted_completion(jobs, order):
    clock = 0
    total = 0
    for index in order:
        duration, weight = jobs[index]
        clock += duration
        total += weight * clock
    return total


def optimal(jobs):
    # Smith's rule: by duration / weight, ascending, is optimal on one machine.
    return weighted_completion(jobs, sorted(range(len(jobs)), key=lambda i: jobs[i][0] / jobs[i][1]))


def load(program_path):
    spec = importlib.util.spec_from_file_location("candidate", program_path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def evaluate(program_path):
    try:
        program = load(program_path)
    except Exception as exc:  # a candidate that does not even import
        return EvaluationResult(metrics={"combined_score": 0.0, "error": "cannot import the program: %s" % exc})
    ratios = []
    for jobs in instances():
        try:
            order = program.run_schedule([tuple(job) for job in jobs])
        except Exception as exc:
            return EvaluationResult(metrics={"combined_score": 0.0, "error": "run_schedule raised %s: %s" % (type(exc).__name__, exc)})
        if not isinstance(order, list) or sorted(order) != list(range(len(jobs))):
            return EvaluationResult(
                metrics={"combined_score": 0.0, "error": "the order must list each job index exactly once"},
                artifacts={"bad_order": repr(order)[:500]},
            )
        ratios.append(optimal(jobs) / weighted_completion(jobs, order))
    worst = min(ratios)
    return EvaluationResult(
        metrics={"combined_score": sum(ratios) / len(ratios), "worst_ratio": worst, "optimal_instances": float(sum(r >= 1.0 - 1e-12 for r in ratios))},
        artifacts={"summary": "mean ratio to the optimum %.4f over %d instances, worst %.4f" % (sum(ratios) / len(ratios), len(ratios), worst)},
    )
