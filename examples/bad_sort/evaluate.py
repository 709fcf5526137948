#!/usr/bin/env python3
"""Trusted evaluator for the Peagen `bad_sort` benchmark, built on peagen_harness.

usage: python3 evaluate.py <candidate.py> [--seed N] [--quick] [--call-timeout S] [--budget S] [--repeats R]

Prints exactly one JSON object on the LAST line of stdout:
  {"correct": bool, "objective": speedup, "direction": "maximize", "metrics": {...}, "error": "..."}
Exit status 0 whenever a verdict about the candidate was reached (also when it is wrong);
exit status 2 only when the evaluator itself could not work (e.g. the reference failed).

How it works
  1. Static check (AST) of the whole candidate file: no built-in sorting (sorted, .sort,
     heapq, bisect), no imports at all (except `from __future__`), no eval/exec/getattr/...,
     no private/dunder or frame attributes.
  2. The candidate runs in its own sandboxed process (peagen_harness.Candidate: restricted
     built-ins without sorted, the same empty import allow-list enforced at run time, an
     audit hook refusing compile/exec/open/os/...). This evaluator sends it ONE input per call
     and never tells it anything else; a crash, hang, death or refused operation fails it.
  3. Correctness: fixed edge cases plus held-out inputs derived from --seed, smallest first,
     stop at the first failure. The output must equal sorted(input) (computed here) exactly,
     be a list of int, and the input list must not be mutated.
  4. Timing: the pristine reference (reference_bad_sort.py, next to this file) runs in a
     second sandboxed process. After a warm-up, both programs sort the same fresh seeded
     inputs, repeat by repeat, interleaved call by call. The time of every call is measured
     here, from outside (the child's CPU clock and the wall round trip), minus the cost of an
     echo of the same input; every timed output is checked too; impossible timings are
     rejected. objective = median over repeats of reference CPU / candidate CPU.
"""
from __future__ import annotations

import argparse
import os
import random
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
try:
    import peagen_harness as harness  # on PYTHONPATH inside every Peagen sandbox
except ImportError:  # run by hand from the repository
    sys.path.insert(0, os.path.join(HERE, "..", "..", "harness", "python"))
    import peagen_harness as harness

REFERENCE = os.path.join(HERE, "reference_bad_sort.py")
ENTRY = "bad_sort"
DIRECTION = "maximize"
DEFAULT_SEED = 20250601
PUBLIC_SEED = 7_000_001  # fixed: the "public" inputs never depend on --seed

SORTING = "built-in sorting helpers are not allowed"
POLICY = harness.Policy(
    allowed_imports=frozenset(),
    forbidden_names={"sorted": "uses the built-in sorted()"},
    forbidden_attributes={"sort": "uses .sort (built-in sorting is not allowed)",
                          "sorted": "uses .sorted (built-in sorting is not allowed)"},
    forbidden_modules={"heapq": SORTING, "bisect": SORTING},
    recursion_limit=10000,
)


# ---------------------------------------------------------------- inputs
def gen(rng: random.Random, kind: str, n: int) -> list[int]:
    if kind == "random":
        return [rng.randint(-1_000_000, 1_000_000) for _ in range(n)]
    if kind == "sorted":
        return sorted(rng.randint(-1_000_000, 1_000_000) for _ in range(n))
    if kind == "reversed":
        return sorted((rng.randint(-1_000_000, 1_000_000) for _ in range(n)), reverse=True)
    if kind == "duplicates":
        return [rng.randint(0, max(1, n // 25)) for _ in range(n)]
    if kind == "negatives":
        return [rng.randint(-10**9, -1) for _ in range(n)]
    if kind == "big":
        return [rng.randint(-10**18, 10**18) for _ in range(n)]
    if kind == "nearly_sorted":
        out = sorted(rng.randint(0, 10 * n + 10) for _ in range(n))
        for _ in range(max(1, n // 50)):
            if n >= 2:
                i, j = rng.randrange(n), rng.randrange(n)
                out[i], out[j] = out[j], out[i]
        return out
    if kind == "all_equal":
        return [rng.randint(-5, 5)] * n
    if kind == "organ_pipe":
        half = sorted(rng.randint(-1000, 1000) for _ in range(n // 2))
        return half + sorted((rng.randint(-1000, 1000) for _ in range(n - n // 2)), reverse=True)
    raise ValueError(kind)


KINDS = ["random", "sorted", "reversed", "duplicates", "negatives", "big", "nearly_sorted",
         "all_equal", "organ_pipe"]


def correctness_inputs(seed: int, quick: bool) -> list[tuple[str, list[int]]]:
    cases: list[tuple[str, list[int]]] = [
        ("edge", []), ("edge", [5]), ("edge", [2, 1]), ("edge", [1, 2]), ("edge", [0, 0]),
        ("edge", [3, -1, 2]), ("edge", [1, 1, 0, 0]), ("edge", [-(10**18), 10**18, 0]),
    ]
    pub = random.Random(PUBLIC_SEED)
    for size in ((10,) if quick else (10, 100)):
        for kind in KINDS:
            cases.append((kind, gen(pub, kind, size)))
    held = random.Random(seed * 1_000_003 + 1)
    lo, hi = (50, 150) if quick else (200, 500)
    for kind in KINDS:
        cases.append((kind, gen(held, kind, held.randint(lo, hi))))
    if quick:
        cases.append(("random", gen(held, "random", 300)))
    else:
        cases.append(("random", gen(held, "random", held.randint(950, 1000))))
        cases.append(("duplicates", gen(held, "duplicates", held.randint(950, 1000))))
        cases.append(("random", gen(held, "random", held.randint(1900, 2000))))
    cases.sort(key=lambda c: len(c[1]))  # cascade: cheap cases first
    return cases


TIMING_SPEC = [("random", 700), ("reversed", 400), ("duplicates", 400),
               ("nearly_sorted", 400), ("negatives", 300), ("big", 300)]
TIMING_SPEC_QUICK = [("random", 300), ("reversed", 200), ("duplicates", 200)]
WARMUP_SPEC = [("random", 200), ("reversed", 100)]


def fault(data: list[int], reply: harness.Reply, label: str) -> str | None:
    """None when the reply is a correct answer for `data`, else a description of the fault."""
    if reply.error is not None:
        return "%s: raised %s" % (label, reply.error)
    if reply.mutated:
        return "%s: the input list was modified (bad_sort must not mutate its argument)" % label
    out = reply.output
    if type(out) is not list:
        return "%s: returned %s, expected list" % (label, _json_type(out))
    odd = next((x for x in out if type(x) is not int), None)
    if odd is not None:
        return "%s: list contains %s, expected int" % (label, _json_type(odd))
    expected = sorted(data)
    if out == expected:
        return None
    show = " input=%s" % data if len(data) <= 10 else ""
    if len(out) != len(expected):
        return ("%s: output has %d elements, input has %d (must be a permutation of the input)%s"
                % (label, len(out), len(expected), show))
    if sorted(out) != expected:
        return "%s: output is not a permutation of the input%s" % (label, show)
    k = next(i for i, (a, b) in enumerate(zip(out, expected)) if a != b)
    return ("%s: output is not in ascending order (first difference at index %d: got %d, expected %d)%s"
            % (label, k, out[k], expected[k], show))


def _json_type(value: object) -> str:
    return {bool: "bool", float: "float", str: "str", dict: "dict", type(None): "None"}.get(
        type(value), type(value).__name__)


def evaluate(args: argparse.Namespace) -> int:
    started = time.monotonic()
    quick = args.quick

    def call_timeout(n: int) -> float:
        # generous per-call limit: ~10x what the seed needs at size n on a slow 2-core VM
        return args.call_timeout or (1.5 + 3e-6 * n * n)

    budget = args.budget or (15.0 if quick else 60.0)
    repeats = args.repeats or (7 if quick else 5)
    metrics: dict = {"speedup": 0.0, "inputs_checked": 0, "seed": args.seed, "quick": int(quick)}

    def finish(correct: bool, objective: float, error: str | None = None, status: int = 0) -> int:
        metrics["eval_seconds"] = round(time.monotonic() - started, 3)
        harness.emit_verdict(correct, objective, DIRECTION, metrics, error)
        return status

    try:
        with open(args.candidate, "r", encoding="utf-8") as fh:
            source = fh.read()
    except (OSError, UnicodeDecodeError) as exc:
        return finish(False, 0, "cannot read the candidate: %s" % exc)
    problems = [] if args.no_static_check else POLICY.check_source(source)
    if problems:
        return finish(False, 0, "rejected by the static check: " + "; ".join(problems[:5]))

    cases = correctness_inputs(args.seed, quick)
    spec = TIMING_SPEC_QUICK if quick else TIMING_SPEC
    # Timing inputs come from the OS's randomness, not from --seed: no program can know them
    # in advance (a table of answers for a guessed seed never hits). Each is checked anyway.
    trng = random.Random(int.from_bytes(os.urandom(16), "big"))
    warmup = [(gen(trng, k, n),) for k, n in WARMUP_SPEC]

    def round_inputs(_round: int) -> list[tuple[list[int]]]:
        return [(gen(trng, k, n),) for k, n in spec]  # fresh data every repeat

    cand: harness.Candidate | None = None
    ref: harness.Candidate | None = None
    try:
        # ---- correctness (cascade, smallest first); the candidate sees one input at a time
        cand = harness.Candidate(args.candidate, ENTRY, POLICY, load_timeout=10, name="candidate")
        for i, (kind, data) in enumerate(cases):
            label = "input #%d (%s, n=%d)" % (i, kind, len(data))
            problem = fault(data, cand.call(data, timeout=call_timeout(len(data))), label)
            metrics["inputs_checked"] += 1
            if problem:
                return finish(False, 0, problem)
        metrics["correctness_inputs"] = len(cases)
        metrics["max_n"] = max(len(c[1]) for c in cases)

        # ---- timing against the pristine reference, measured from outside
        try:
            ref = harness.Candidate(REFERENCE, ENTRY, POLICY, load_timeout=30, name="reference")
        except harness.CandidateFailure as exc:
            raise harness.EvaluatorError("the reference could not start: %s" % exc) from exc
        timing = harness.time_interleaved(
            cand, ref, repeats, round_inputs,
            check=lambda a, reply: fault(a[0], reply, "n=%d" % len(a[0])),
            timeout=lambda a: call_timeout(len(a[0])),
            warmup=warmup, budget_s=budget, started=started)
        metrics["inputs_checked"] += timing.calls_checked
        metrics.update(timing.summary())
        metrics["timing_inputs_per_repeat"] = len(spec)
        metrics["timing_elements_per_repeat"] = sum(n for _, n in spec)
        if timing.budget_cut:
            metrics["budget_cut"] = 1
        return finish(True, metrics["speedup"])
    except harness.CandidateFailure as exc:
        return finish(False, 0, str(exc))
    except harness.EvaluatorError as exc:
        return finish(False, 0, "evaluator error: %s" % exc, status=harness.EXIT_EVALUATOR_FAILED)
    finally:
        for program in (cand, ref):
            if program is not None:
                program.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[1])
    parser.add_argument("candidate")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--call-timeout", type=float, default=0.0,
                        help="fixed seconds per call (default: 1.5 + 3e-6 * n^2)")
    parser.add_argument("--budget", type=float, default=0.0, help="soft wall-clock budget (s)")
    parser.add_argument("--repeats", type=int, default=0)
    parser.add_argument("--no-static-check", action="store_true",
                        help="for testing the sandbox: skip the static check (the sandbox still "
                             "enforces the same imports and built-ins at run time)")
    return evaluate(parser.parse_args())


if __name__ == "__main__":
    harness.run_evaluator(main, DIRECTION)
