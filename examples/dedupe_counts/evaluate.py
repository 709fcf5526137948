#!/usr/bin/env python3
"""Trusted evaluator for the Peagen `dedupe_counts` benchmark, built on peagen_harness.

usage: python3 evaluate.py <candidate.py> [--seed N] [--quick] [--call-timeout S] [--budget S] [--repeats R]

Prints exactly one JSON object on the LAST line of stdout:
  {"correct": bool, "objective": speedup, "direction": "maximize", "metrics": {...}, "error": "..."}
Exit status 0 whenever a verdict about the candidate was reached (also when it is wrong);
exit status 2 only when the evaluator itself could not work (e.g. the reference failed).

How it works (as examples/bad_sort/evaluate.py; only the inputs and the answer differ)
  1. Static check (AST) of the whole candidate file: no imports at all (so no
     collections.Counter; `from __future__` is fine), no eval/exec/getattr/..., no
     private/dunder or frame attributes. dict and set are allowed.
  2. The candidate runs in its own sandboxed process (peagen_harness.Candidate, the same
     empty import allow-list enforced at run time). This evaluator sends it ONE input per call.
  3. Correctness: fixed edge cases plus held-out inputs derived from --seed, smallest first,
     stop at the first failure. The output must equal the [value, count] pairs computed here
     (one per distinct value, in order of first occurrence) exactly, as a list of two-element
     lists of int, and the input list must not be mutated.
  4. Timing: the pristine reference (reference_dedupe_counts.py, next to this file) runs in a
     second sandboxed process; both get the same fresh inputs (few distinct values, many
     repeats), interleaved call by call, timed from outside minus the cost of passing the input;
     every timed output is checked too. objective = median over repeats of reference CPU /
     candidate CPU.
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

REFERENCE = os.path.join(HERE, "reference_dedupe_counts.py")
ENTRY = "dedupe_counts"
DIRECTION = "maximize"
DEFAULT_SEED = 20250601
PUBLIC_SEED = 7_000_003  # fixed: the "public" inputs never depend on --seed

COUNTING = "collections.Counter is not allowed: count with a dict"
POLICY = harness.Policy(
    allowed_imports=frozenset(),
    forbidden_modules={"collections": COUNTING},
    recursion_limit=10000,
)


# ---------------------------------------------------------------- inputs
def gen(rng: random.Random, kind: str, n: int) -> list[int]:
    k = rng.randint(4, 10)  # distinct values of the kinds drawn from a pool
    if kind == "pool":
        pool = [rng.randint(-1_000_000, 1_000_000) for _ in range(k)]
        return [rng.choice(pool) for _ in range(n)]
    if kind == "big":
        pool = [rng.randint(-10**18, 10**18) for _ in range(k)]
        return [rng.choice(pool) for _ in range(n)]
    if kind == "small":  # around zero: x and -x, -1 and -2 side by side
        return [rng.randint(-(k // 2), k - k // 2) for _ in range(n)]
    if kind == "runs":
        pool = [rng.randint(-1000, 1000) for _ in range(k)]
        out: list[int] = []
        while len(out) < n:
            out += [rng.choice(pool)] * rng.randint(1, 12)
        return out[:n]
    if kind == "many":
        return [rng.randint(0, max(1, n // 10)) for _ in range(n)]
    if kind == "distinct":
        return [rng.randint(-10**9, 10**9) for _ in range(n)]
    if kind == "all_equal":
        return [rng.randint(-5, 5)] * n
    if kind == "alternating":
        a, b = rng.randint(-50, 50), rng.randint(51, 100)
        return [a if i % 2 == 0 else b for i in range(n)]
    raise ValueError(kind)


KINDS = ["pool", "big", "small", "runs", "many", "distinct", "all_equal", "alternating"]


def correctness_inputs(seed: int, quick: bool) -> list[tuple[str, list[int]]]:
    cases: list[tuple[str, list[int]]] = [
        ("edge", []), ("edge", [5]), ("edge", [2, 2]), ("edge", [2, 1]), ("edge", [0, 0, 0]),
        ("edge", [3, -3, 3]), ("edge", [-1, -2, -1, -2, -2]), ("edge", [1, 2, 1, 3, 2, 1]),
        ("edge", [9, 8, 7, 8, 9]), ("edge", [-(10**18), 10**18, 0, 10**18]),
    ]
    pub = random.Random(PUBLIC_SEED)
    for size in ((10,) if quick else (10, 100)):
        for kind in KINDS:
            cases.append((kind, gen(pub, kind, size)))
    held = random.Random(seed * 1_000_003 + 1)
    lo, hi = (50, 150) if quick else (200, 400)
    for kind in KINDS:
        cases.append((kind, gen(held, kind, held.randint(lo, hi))))
    if quick:
        cases.append(("pool", gen(held, "pool", 500)))
    else:
        for kind in ("pool", "runs", "small", "big"):
            cases.append((kind, gen(held, kind, held.randint(1500, 2000))))
    cases.sort(key=lambda c: len(c[1]))  # cascade: cheap cases first
    return cases


TIMING_SPEC = [("pool", 1000), ("runs", 800), ("small", 800), ("big", 600), ("pool", 600), ("runs", 600)]
TIMING_SPEC_QUICK = [("pool", 800), ("runs", 600), ("small", 600)]
WARMUP_SPEC = [("pool", 300), ("runs", 200)]


def count_in_order(data: list[int]) -> list[list[int]]:
    """The trusted answer: [value, count] per distinct value, in order of first occurrence."""
    counts: dict[int, int] = {}
    for x in data:
        counts[x] = counts.get(x, 0) + 1
    return [[x, c] for x, c in counts.items()]


def fault(data: list[int], reply: harness.Reply, label: str) -> str | None:
    """None when the reply is a correct answer for `data`, else a description of the fault."""
    if reply.error is not None:
        return "%s: raised %s" % (label, reply.error)
    if reply.mutated:
        return "%s: the input list was modified (dedupe_counts must not mutate its argument)" % label
    out = reply.output
    if type(out) is not list:
        return "%s: returned %s, expected list" % (label, _json_type(out))
    odd = next((p for p in out if type(p) is not list or len(p) != 2
                or type(p[0]) is not int or type(p[1]) is not int), None)
    if odd is not None:
        return "%s: the list contains %s, expected [value, count] pairs of int" % (label, _short(odd))
    expected = count_in_order(data)
    if out == expected:
        return None
    show = " input=%s" % data if len(data) <= 10 else ""
    values = [p[0] for p in out]
    if len(set(values)) != len(values):
        return "%s: a value appears in more than one pair%s" % (label, show)
    if set(values) != {p[0] for p in expected}:
        return "%s: the values are not the distinct values of the input%s" % (label, show)
    truth = dict((p[0], p[1]) for p in expected)
    wrong = next((p for p in out if truth[p[0]] != p[1]), None)
    if wrong is not None:
        return "%s: wrong count for %d: got %d, expected %d%s" % (
            label, wrong[0], wrong[1], truth[wrong[0]], show)
    k = next(i for i, (a, b) in enumerate(zip(out, expected)) if a != b)
    return ("%s: the pairs are not in order of first occurrence (first difference at index %d: "
            "got value %d, expected %d)%s" % (label, k, out[k][0], expected[k][0], show))


def _json_type(value: object) -> str:
    return {bool: "bool", float: "float", str: "str", dict: "dict", type(None): "None"}.get(
        type(value), type(value).__name__)


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def evaluate(args: argparse.Namespace) -> int:
    started = time.monotonic()
    quick = args.quick

    def call_timeout(n: int) -> float:
        # generous per-call limit: ~10x what the seed needs at size n (all distinct) on a slow 2-core VM
        return args.call_timeout or (1.5 + 3e-6 * n * n)

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
            echo_returns_input=False)  # a few pairs come back, not the whole input
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
