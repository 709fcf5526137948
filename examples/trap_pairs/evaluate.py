#!/usr/bin/env python3
"""Trusted evaluator for the Peagen `trap_pairs` benchmark, built on peagen_harness.

usage: python3 evaluate.py <candidate.py> [--seed N] [--quick] [--call-timeout S] [--budget S] [--repeats R]

Prints exactly one JSON object on the LAST line of stdout:
  {"correct": bool, "objective": speedup, "direction": "maximize", "metrics": {...}, "error": "..."}
Exit status 0 whenever a verdict about the candidate was reached (also when it is wrong);
exit status 2 only when the evaluator itself could not work (e.g. the reference failed).

How it works (as examples/dedupe_counts/evaluate.py; only the inputs and the answer differ)
  1. Static check (AST) of the whole candidate file: no imports at all (so no
     collections.Counter; `from __future__` is fine), no eval/exec/getattr/..., no
     private/dunder or frame attributes. dict, set, sorted and list.count are allowed.
  2. The candidate runs in its own sandboxed process (peagen_harness.Candidate, the same
     empty import allow-list enforced at run time). This evaluator sends it ONE input per call.
  3. Correctness: fixed edge cases plus held-out inputs derived from --seed, smallest first,
     stop at the first failure. The output must be an int (not a bool or a float) equal to
     the number of pairs of positions i < j with |values[i] - values[j]| == k, computed here
     from value counts, and the input list must not be mutated.
  4. Timing: the pristine reference (reference_trap_pairs.py, next to this file) runs in a
     second sandboxed process; both get the same fresh inputs (values with a few repeats
     each, k from 0 to 4), interleaved call by call, timed from outside minus the cost of
     passing the input; every timed output is checked too. objective = median over repeats
     of reference CPU / candidate CPU.
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

REFERENCE = os.path.join(HERE, "reference_trap_pairs.py")
ENTRY = "count_pairs"
DIRECTION = "maximize"
DEFAULT_SEED = 20251126
PUBLIC_SEED = 7_100_003  # fixed: the "public" inputs never depend on --seed

COUNTING = "collections.Counter is not allowed: count with a dict"
POLICY = harness.Policy(
    allowed_imports=frozenset(),
    forbidden_modules={"collections": COUNTING},
    recursion_limit=10000,
)

Case = tuple[list[int], int]


# ---------------------------------------------------------------- inputs
def gen(rng: random.Random, kind: str, n: int) -> Case:
    k = rng.randint(0, 4)
    if kind == "repeats":  # about 8 values per distinct value: the timing inputs' kind
        span = max(1, n // 16)
        return [rng.randint(-span, span) for _ in range(n)], k
    if kind == "spread":  # mostly distinct values, few pairs
        return [rng.randint(-4 * n, 4 * n) for _ in range(n)], rng.randint(1, 12)
    if kind == "small":  # around zero: x and -x, the same pair in both orders
        return [rng.randint(-3, 3) for _ in range(n)], rng.randint(0, 3)
    if kind == "big":  # 64-bit magnitudes a float cannot tell apart
        base = rng.choice([10**18, -(10**18), 2**62])
        return [base + rng.randint(-6, 6) for _ in range(n)], k
    if kind == "zero":  # k == 0: pairs of equal values
        return [rng.randint(-n // 10 - 1, n // 10 + 1) for _ in range(n)], 0
    if kind == "far":  # k larger than any distance
        return [rng.randint(-20, 20) for _ in range(n)], rng.randint(41, 1000)
    if kind == "all_equal":
        return [rng.randint(-5, 5)] * n, rng.choice([0, 0, 1])
    if kind == "runs":
        out: list[int] = []
        while len(out) < n:
            out += [rng.randint(-30, 30)] * rng.randint(1, 9)
        return out[:n], k
    raise ValueError(kind)


KINDS = ["repeats", "spread", "small", "big", "zero", "far", "all_equal", "runs"]


def correctness_inputs(seed: int, quick: bool) -> list[tuple[str, Case]]:
    cases: list[tuple[str, Case]] = [
        ("edge", ([], 0)), ("edge", ([], 3)), ("edge", ([5], 0)), ("edge", ([2, 2], 0)),
        ("edge", ([2, 2], 1)), ("edge", ([1, 3], 2)), ("edge", ([3, 1], 2)), ("edge", ([3, -3], 6)),
        ("edge", ([-1, 1, 3, 3], 2)), ("edge", ([7, 7, 7, 7], 0)), ("edge", ([1, 2, 3, 4, 5], 1)),
        ("edge", ([5, 4, 3, 2, 1], 2)), ("edge", ([10**18, 10**18 + 1, 10**18 - 1], 1)),
        ("edge", ([-(10**18), 10**18], 2 * 10**18)), ("edge", ([0, 1, 0, 1, 0], 1)),
    ]
    pub = random.Random(PUBLIC_SEED)
    for size in ((12,) if quick else (12, 60)):
        for kind in KINDS:
            cases.append((kind, gen(pub, kind, size)))
    held = random.Random(seed * 1_000_003 + 1)
    lo, hi = (40, 120) if quick else (100, 250)
    for kind in KINDS:
        cases.append((kind, gen(held, kind, held.randint(lo, hi))))
    if quick:
        cases.append(("repeats", gen(held, "repeats", 300)))
    else:
        for kind in ("repeats", "runs", "zero", "big"):
            cases.append((kind, gen(held, kind, held.randint(500, 700))))
    cases.sort(key=lambda c: len(c[1][0]))  # cascade: cheap cases first
    return cases


TIMING_SPEC = [("repeats", 600), ("repeats", 400)]
TIMING_SPEC_QUICK = [("repeats", 300), ("repeats", 200)]
WARMUP_SPEC = [("repeats", 200), ("spread", 100)]


def pairs_at_distance(values: list[int], k: int) -> int:
    """The trusted answer, from the counts of the values (not the program's pair loop)."""
    counts: dict[int, int] = {}
    for x in values:
        counts[x] = counts.get(x, 0) + 1
    if k == 0:
        return sum(c * (c - 1) // 2 for c in counts.values())
    return sum(c * counts.get(x + k, 0) for x, c in counts.items())


def fault(case: Case, reply: harness.Reply, label: str) -> str | None:
    """None when the reply is a correct answer for `case`, else a description of the fault."""
    values, k = case
    if reply.error is not None:
        return "%s: raised %s" % (label, reply.error)
    if reply.mutated:
        return "%s: the input list was modified (count_pairs must not mutate its argument)" % label
    out = reply.output
    if type(out) is not int:
        return "%s: returned %s, expected int" % (label, _json_type(out))
    expected = pairs_at_distance(values, k)
    if out == expected:
        return None
    show = " input=%s k=%d" % (values, k) if len(values) <= 10 else " (k=%d)" % k
    return "%s: returned %d pairs, expected %d%s" % (label, out, expected, show)


def _json_type(value: object) -> str:
    return {bool: "bool", float: "float", str: "str", list: "list", dict: "dict", type(None): "None"}.get(
        type(value), type(value).__name__)


def evaluate(args: argparse.Namespace) -> int:
    started = time.monotonic()
    quick = args.quick

    def call_timeout(n: int) -> float:
        # generous per-call limit: ~10x what the seed needs at size n on a slow 2-core VM
        return args.call_timeout or (1.5 + 3e-6 * n * n)

    budget = args.budget or (20.0 if quick else 60.0)
    repeats = args.repeats or (11 if quick else 15)
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
    warmup = [gen(trng, kind, n) for kind, n in WARMUP_SPEC]

    def round_inputs(_round: int) -> list[Case]:
        return [gen(trng, kind, n) for kind, n in spec]  # fresh data every repeat

    cand: harness.Candidate | None = None
    ref: harness.Candidate | None = None
    try:
        # ---- correctness (cascade, smallest first); the candidate sees one input at a time
        cand = harness.Candidate(args.candidate, ENTRY, POLICY, load_timeout=10, name="candidate")
        for i, (kind, case) in enumerate(cases):
            label = "input #%d (%s, n=%d, k=%d)" % (i, kind, len(case[0]), case[1])
            problem = fault(case, cand.call(*case, timeout=call_timeout(len(case[0]))), label)
            metrics["inputs_checked"] += 1
            if problem:
                return finish(False, 0, problem)
        metrics["correctness_inputs"] = len(cases)
        metrics["max_n"] = max(len(c[1][0]) for c in cases)

        # ---- timing against the pristine reference, measured from outside
        try:
            ref = harness.Candidate(REFERENCE, ENTRY, POLICY, load_timeout=30, name="reference")
        except harness.CandidateFailure as exc:
            raise harness.EvaluatorError("the reference could not start: %s" % exc) from exc
        timing = harness.time_interleaved(
            cand, ref, repeats, round_inputs,
            check=lambda a, reply: fault(a, reply, "n=%d" % len(a[0])),
            timeout=lambda a: call_timeout(len(a[0])),
            warmup=warmup, budget_s=budget, started=started,
            echo_returns_input=False)  # one int comes back, not the input
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
