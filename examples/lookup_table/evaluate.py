#!/usr/bin/env python3
"""Trusted evaluator for the Peagen `lookup_table` example (a program of two files), on peagen_harness.

usage: python3 evaluate.py <workspace> [--seed N] [--quick] [--budget S] [--repeats R]

Prints one JSON verdict on the last line of stdout, like examples/bad_sort/evaluate.py.

The program is two modules, table.py (build) and lookup.py (lookup, and total, the entry),
which are evolved together. The harness runs one file per sandboxed process, so this
evaluator links them: table.py, then lookup.py without its `from table import ...` line (the
link), written to one file in the workspace. Nothing of the candidate runs before it is in the
harness's locked-down process: the static check and the run-time policy see the linked file,
and no import at all is allowed. Correctness: fixed edge cases and held-out inputs from --seed,
each answer compared with total() computed here. Timing: interleaved against the pristine
reference (reference_table.py + reference_lookup.py, linked the same way), measured from
outside on fresh random inputs; objective = median speedup.
"""
from __future__ import annotations

import argparse
import os
import random
import re
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
try:
    import peagen_harness as harness  # on PYTHONPATH inside every Peagen sandbox
except ImportError:  # run by hand from the repository
    sys.path.insert(0, os.path.join(HERE, "..", "..", "harness", "python"))
    import peagen_harness as harness

ENTRY = "total"
DIRECTION = "maximize"
DEFAULT_SEED = 20250601
POLICY = harness.Policy(allowed_imports=frozenset(), recursion_limit=10000)
LINK_LINE = re.compile(r"^from table import [A-Za-z_][A-Za-z0-9_]*(\s*,\s*[A-Za-z_][A-Za-z0-9_]*)*\s*$", re.M)


def link(table_source: str, lookup_source: str) -> str:
    """One module from the two: the names lookup.py imports from table.py are now its own."""
    return table_source.rstrip("\n") + "\n\n\n" + LINK_LINE.sub("", lookup_source)


def link_files(table_path: str, lookup_path: str, out_dir: str, name: str) -> str:
    with open(table_path, "r", encoding="utf-8") as fh:
        table_source = fh.read()
    with open(lookup_path, "r", encoding="utf-8") as fh:
        lookup_source = fh.read()
    out = os.path.join(out_dir, name)
    with open(out, "w", encoding="utf-8") as fh:
        fh.write(link(table_source, lookup_source))
    return out


def gen(rng: random.Random, n: int, asked: int) -> tuple[list, list]:
    keys = rng.sample(range(-10 * n - 10, 10 * n + 10), n)
    pairs = [[key, rng.randint(-1000, 1000)] for key in keys]
    present = [key for key, _ in pairs]
    queries = [rng.choice(present) if present and rng.random() < 0.7 else rng.randint(-20 * n - 20, 20 * n + 20) for _ in range(asked)]
    return pairs, queries


def expected(pairs: list, keys: list) -> int:
    table = {key: value for key, value in reversed(pairs)}  # the first pair of a key counts
    return sum(table[key] for key in keys if key in table)


def correctness_inputs(seed: int, quick: bool) -> list:
    cases = [([], []), ([], [1]), ([[1, 5]], []), ([[1, 5]], [1, 1, 2]), ([[0, 0], [3, -3]], [3, 0, 4]),
             ([[2, 7], [2, 9]], [2])]  # a repeated key: the first pair counts
    held = random.Random(seed * 1_000_003 + 11)
    for n in ((5, 40, 120) if quick else (5, 40, 200, 400)):
        cases.append(gen(held, n, n))
    return cases


def fault(args: tuple, reply: harness.Reply, label: str) -> str | None:
    if reply.error is not None:
        return "%s: raised %s" % (label, reply.error)
    if reply.mutated:
        return "%s: an argument was modified (total must not change its inputs)" % label
    want = expected(*args)
    if type(reply.output) is not int or reply.output != want:
        return "%s: returned %r, expected %d" % (label, reply.output, want)
    return None


def evaluate(args: argparse.Namespace) -> int:
    started = time.monotonic()
    metrics: dict = {"speedup": 0.0, "inputs_checked": 0, "seed": args.seed, "quick": int(args.quick)}

    def finish(correct: bool, objective: float, error: str | None = None, status: int = 0) -> int:
        metrics["eval_seconds"] = round(time.monotonic() - started, 3)
        harness.emit_verdict(correct, objective, DIRECTION, metrics, error)
        return status

    # The linked files go beside the candidate's, in the sandbox's writable workspace.
    work = os.path.join(args.workspace, ".linked")
    try:
        os.makedirs(work, exist_ok=True)
        candidate_path = link_files(os.path.join(args.workspace, "table.py"), os.path.join(args.workspace, "lookup.py"), work, "candidate.py")
        reference_path = link_files(os.path.join(HERE, "reference_table.py"), os.path.join(HERE, "reference_lookup.py"), work, "reference.py")
    except (OSError, UnicodeDecodeError) as exc:
        return finish(False, 0, "cannot read the candidate's table.py and lookup.py: %s" % exc)
    with open(candidate_path, "r", encoding="utf-8") as fh:
        problems = POLICY.check_source(fh.read())
    if problems:
        return finish(False, 0, "rejected by the static check: " + "; ".join(problems[:5]))

    repeats = args.repeats or (5 if args.quick else 5)
    budget = args.budget or (15.0 if args.quick else 40.0)
    spec = [(300, 300), (150, 600)] if args.quick else [(600, 600), (300, 1200), (1000, 300)]
    trng = random.Random(int.from_bytes(os.urandom(16), "big"))
    cand = ref = None
    try:
        cand = harness.Candidate(candidate_path, ENTRY, POLICY, load_timeout=10, name="candidate")
        for i, case in enumerate(correctness_inputs(args.seed, args.quick)):
            problem = fault(case, cand.call(*case, timeout=10.0), "input #%d (%d pairs, %d keys)" % (i, len(case[0]), len(case[1])))
            metrics["inputs_checked"] += 1
            if problem:
                return finish(False, 0, problem)
        try:
            ref = harness.Candidate(reference_path, ENTRY, POLICY, load_timeout=30, name="reference")
        except harness.CandidateFailure as exc:
            raise harness.EvaluatorError("the reference could not start: %s" % exc) from exc
        timing = harness.time_interleaved(
            cand, ref, repeats, lambda _round: [gen(trng, n, k) for n, k in spec],
            check=lambda a, reply: fault(a, reply, "%d pairs, %d keys" % (len(a[0]), len(a[1]))),
            timeout=lambda a: 10.0,
            warmup=[gen(trng, 100, 100)], budget_s=budget, started=started)
        metrics["inputs_checked"] += timing.calls_checked
        metrics.update(timing.summary())
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
    parser.add_argument("workspace", help="the folder holding the candidate's table.py and lookup.py")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--budget", type=float, default=0.0, help="soft wall-clock budget (s)")
    parser.add_argument("--repeats", type=int, default=0)
    return evaluate(parser.parse_args())


if __name__ == "__main__":
    harness.run_evaluator(main, DIRECTION)
