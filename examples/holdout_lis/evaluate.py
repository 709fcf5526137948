#!/usr/bin/env python3
"""Trusted evaluator for the Peagen `holdout_lis` benchmark, built on peagen_harness.

usage: python3 evaluate.py <candidate.py> [--seed N] [--quick] [--call-timeout S] [--budget S] [--repeats R]

Prints exactly one JSON object on the LAST line of stdout:
  {"correct": bool, "objective": speedup, "direction": "maximize", "metrics": {...}, "error": "..."}
Exit status 0 whenever a verdict about the candidate was reached (also when it is wrong);
exit status 2 only when the evaluator itself could not work (e.g. the reference failed).

How it works (as examples/dedupe_counts/evaluate.py; only the inputs and the answer differ)
  1. Static check (AST) of the whole candidate file: no imports at all (so no bisect;
     `from __future__` is fine), no eval/exec/getattr/..., no private/dunder or frame attributes.
  2. The candidate runs in its own sandboxed process (peagen_harness.Candidate, the same
     empty import allow-list enforced at run time). This evaluator sends it ONE input per call.
  3. Correctness: fixed edge cases plus held-out inputs derived from --seed, smallest first,
     stop at the first failure. The output must be the length of the longest strictly
     increasing subsequence computed here, as an int (not a bool, not a float), and the input
     list must not be mutated.
  4. Timing: the pristine reference (reference_lis_length.py, next to this file) runs in a
     second sandboxed process; both get the same fresh inputs (unordered data, whose
     increasing subsequences are short), interleaved call by call, timed from outside minus
     the cost of passing the input; every timed output is checked too. objective = median over
     repeats of reference CPU / candidate CPU.
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

REFERENCE = os.path.join(HERE, "reference_lis_length.py")
ENTRY = "lis_length"
DIRECTION = "maximize"
DEFAULT_SEED = 20251126
PUBLIC_SEED = 9_000_011  # fixed: the "public" inputs never depend on --seed

BISECT = "bisect is not allowed: write the binary search"
POLICY = harness.Policy(
    allowed_imports=frozenset(),
    forbidden_modules={"bisect": BISECT},
    recursion_limit=10000,
)


# ---------------------------------------------------------------- inputs
def gen(rng: random.Random, kind: str, n: int) -> list[int]:
    if kind == "random":  # wide range: increasing subsequences about 2 * sqrt(n) long
        return [rng.randint(-1_000_000, 1_000_000) for _ in range(n)]
    if kind == "big":
        return [rng.randint(-10**18, 10**18) for _ in range(n)]
    if kind == "dups":  # few distinct values: equal neighbours must not extend a subsequence
        k = rng.randint(3, 30)
        return [rng.randint(-k, k) for _ in range(n)]
    if kind == "falling":  # a falling trend with noise
        level = rng.randint(0, 10**6)
        out: list[int] = []
        for _ in range(n):
            level -= rng.randint(-3, 12)
            out.append(level + rng.randint(-8, 8))
        return out
    if kind == "rising":  # a rising trend with noise: long subsequences
        level = rng.randint(-10**6, 0)
        out = []
        for _ in range(n):
            level += rng.randint(-3, 12)
            out.append(level + rng.randint(-8, 8))
        return out
    if kind == "sorted":
        return sorted(rng.randint(-1000, 1000) for _ in range(n))
    if kind == "descending":
        return sorted((rng.randint(-1000, 1000) for _ in range(n)), reverse=True)
    if kind == "all_equal":
        return [rng.randint(-5, 5)] * n
    if kind == "sawtooth":
        width = rng.randint(2, 20)
        return [(i % width) * rng.choice((1, 1, 2)) for i in range(n)]
    raise ValueError(kind)


KINDS = ["random", "big", "dups", "falling", "rising", "sorted", "descending", "all_equal", "sawtooth"]


def correctness_inputs(seed: int, quick: bool) -> list[tuple[str, list[int]]]:
    cases: list[tuple[str, list[int]]] = [
        ("edge", []), ("edge", [5]), ("edge", [2, 2]), ("edge", [1, 2]), ("edge", [2, 1]),
        ("edge", [3, 1, 2]), ("edge", [1, 3, 2, 4]), ("edge", [1, 1, 2, 2, 3, 3]),
        ("edge", [0, -1, -2, -3]), ("edge", [10, 9, 2, 5, 3, 7, 101, 18]),
        ("edge", [-(10**18), 10**18, 0, 10**18 - 1]), ("edge", [4, 10, 4, 3, 8, 9]),
        ("edge", [2, 5, 3, 4, 1, 6, 0, 7]), ("edge", [1, 5, 2, 3, 4, 0, 6]),
    ]
    pub = random.Random(PUBLIC_SEED)
    for size in ((12,) if quick else (12, 100)):
        for kind in KINDS:
            cases.append((kind, gen(pub, kind, size)))
    held = random.Random(seed * 1_000_003 + 1)
    lo, hi = (40, 120) if quick else (150, 300)
    for kind in KINDS:
        cases.append((kind, gen(held, kind, held.randint(lo, hi))))
    if quick:
        cases.append(("random", gen(held, "random", 400)))
    else:
        for kind in ("random", "rising", "dups", "big"):
            cases.append((kind, gen(held, kind, held.randint(800, 1200))))
    cases.sort(key=lambda c: len(c[1]))  # cascade: cheap cases first
    return cases


# Unordered data: the quadratic programme's cost is n^2, while the increasing subsequences (and
# so the list of tails) stay short, as in most real data that is not already nearly sorted.
TIMING_SPEC = [("random", 450), ("dups", 400), ("falling", 400), ("big", 350), ("random", 350)]
TIMING_SPEC_QUICK = [("random", 350), ("dups", 300), ("falling", 300)]
WARMUP_SPEC = [("random", 150), ("dups", 100)]


def longest_increasing(data: list[int]) -> int:
    """The trusted answer: patience sorting with a binary search over the tails."""
    tails: list[int] = []
    for x in data:
        lo, hi = 0, len(tails)
        while lo < hi:
            mid = (lo + hi) // 2
            if tails[mid] < x:
                lo = mid + 1
            else:
                hi = mid
        if lo == len(tails):
            tails.append(x)
        else:
            tails[lo] = x
    return len(tails)


def fault(data: list[int], reply: harness.Reply, label: str) -> str | None:
    """None when the reply is a correct answer for `data`, else a description of the fault."""
    if reply.error is not None:
        return "%s: raised %s" % (label, reply.error)
    if reply.mutated:
        return "%s: the input list was modified (lis_length must not mutate its argument)" % label
    out = reply.output
    if type(out) is not int:
        return "%s: returned %s, expected int" % (label, _json_type(out))
    expected = longest_increasing(data)
    if out == expected:
        return None
    show = " input=%s" % data if len(data) <= 10 else ""
    return "%s: returned %d, expected %d%s" % (label, out, expected, show)


def _json_type(value: object) -> str:
    return {bool: "bool", float: "float", str: "str", dict: "dict", list: "list", type(None): "None"}.get(
        type(value), type(value).__name__)


def evaluate(args: argparse.Namespace) -> int:
    started = time.monotonic()
    quick = args.quick

    def call_timeout(n: int) -> float:
        # generous per-call limit: ~10x what the seed needs at size n on a slow 2-core VM
        return args.call_timeout or (1.5 + 2e-6 * n * n)

    budget = args.budget or (15.0 if quick else 60.0)
    repeats = args.repeats or (11 if quick else 21)
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
            warmup=warmup, budget_s=budget, started=started,
            echo_returns_input=False)  # one int comes back, not the whole input
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
                        help="fixed seconds per call (default: 1.5 + 2e-6 * n^2)")
    parser.add_argument("--budget", type=float, default=0.0, help="soft wall-clock budget (s)")
    parser.add_argument("--repeats", type=int, default=0)
    parser.add_argument("--no-static-check", action="store_true",
                        help="for testing the sandbox: skip the static check (the sandbox still "
                             "enforces the same imports and built-ins at run time)")
    return evaluate(parser.parse_args())


if __name__ == "__main__":
    harness.run_evaluator(main, DIRECTION)
