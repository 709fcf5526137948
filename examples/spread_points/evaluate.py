#!/usr/bin/env python3
"""Trusted evaluator for the Peagen `spread_points` example, built on peagen_harness.

usage: python3 evaluate.py <candidate.py> [--seed N] [--quick] [--call-timeout S] [--no-static-check]

Prints exactly one JSON object on the LAST line of stdout:
  {"correct": bool, "objective": score, "direction": "maximize", "metrics": {...}, "error": "..."}
Exit status 0 whenever a verdict about the candidate was reached (also when it is wrong);
exit status 2 only when the evaluator itself could not work.

The objective is a score computed here, never taken from the candidate:
  1. Static check (AST): only `math` may be imported; no eval/exec/getattr/open/..., no
     private/dunder or frame attributes.
  2. The candidate runs in its own sandboxed process (peagen_harness.Candidate: the same
     import allow-list and built-ins enforced at run time, stdout on /dev/null so it cannot
     print a verdict). It gets one instance per call: a number of points n and a box
     [width, height], with a per-call time limit.
  3. Each answer must be exactly n points [x, y] of finite numbers inside the box (edges
     included, within 1e-9), and the box it was given must come back unchanged. Anything
     else fails the candidate.
  4. Score of an instance: the smallest distance between two of the returned points, as a
     percentage of an upper bound no placement can beat (discs of that diameter around the
     points fit in the box grown by half a diameter on every side, at most at the densest
     packing of the plane). objective = the mean over instances, in %.
  Instances: fixed public ones plus held-out ones drawn from --seed, so a table of answers
  for the public instances alone does not score.
"""
from __future__ import annotations

import argparse
import math
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

ENTRY = "place_points"
DIRECTION = "maximize"
DEFAULT_SEED = 20250601
TOLERANCE = 1e-9
POLICY = harness.Policy(allowed_imports=frozenset({"math"}))

# (n, [width, height]): small and lopsided boxes alike, so one fixed layout does not fit all.
PUBLIC_INSTANCES = [(12, [1.0, 1.0]), (7, [2.0, 1.0]), (20, [1.0, 1.5]), (30, [3.0, 1.0])]


def held_out_instances(seed: int, count: int) -> list[tuple[int, list[float]]]:
    rng = random.Random(seed * 1_000_003 + 17)
    return [(rng.randint(8, 28), [round(rng.uniform(0.5, 2.0), 3), 1.0]) for _ in range(count)]


def distance_bound(n: int, width: float, height: float) -> float:
    """The largest smallest-distance n points in the box could have. Discs of diameter d
    around the points are disjoint and lie in the box grown by d/2 on every side, and discs
    cover at most pi/sqrt(12) of any region: n*pi*d^2/4 <= pi/sqrt(12) * (w+d)(h+d). Solved
    for d; never more than the box's diagonal."""
    a = n * math.sqrt(3) / 2 - 1
    b = width + height
    bound = (b + math.sqrt(b * b + 4 * a * width * height)) / (2 * a)
    return min(bound, math.hypot(width, height))


def fault(n: int, box: list[float], reply: harness.Reply, label: str) -> str | None:
    """None when the reply is a valid placement for (n, box), else what is wrong with it."""
    if reply.error is not None:
        return "%s: raised %s" % (label, reply.error)
    if reply.mutated:
        return "%s: the box argument was modified (place_points must not change its arguments)" % label
    out = reply.output
    if type(out) is not list:
        return "%s: returned %s, expected a list of %d points [x, y]" % (label, _json_type(out), n)
    if len(out) != n:
        return "%s: returned %d points, expected %d" % (label, len(out), n)
    width, height = box
    for k, point in enumerate(out):
        if type(point) is not list or len(point) != 2:
            return "%s: point %d is %s, expected [x, y]" % (label, k, _show(point))
        if any(type(c) not in (int, float) for c in point):
            return "%s: point %d is %s, coordinates must be numbers" % (label, k, _show(point))
        x, y = point
        if not (math.isfinite(x) and math.isfinite(y)):
            return "%s: point %d is %s, coordinates must be finite" % (label, k, _show(point))
        if not (-TOLERANCE <= x <= width + TOLERANCE and -TOLERANCE <= y <= height + TOLERANCE):
            return "%s: point %d %s lies outside the box [0, %g] x [0, %g]" % (label, k, _show(point), width, height)
    return None


def smallest_distance(points: list[list[float]]) -> float:
    best = math.inf
    for i in range(len(points)):
        x, y = points[i]
        for j in range(i + 1, len(points)):
            best = min(best, math.hypot(x - points[j][0], y - points[j][1]))
    return best


def _show(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _json_type(value: object) -> str:
    return {bool: "bool", float: "float", str: "str", dict: "dict", type(None): "None"}.get(
        type(value), type(value).__name__)


def evaluate(args: argparse.Namespace) -> int:
    started = time.monotonic()
    metrics: dict = {"score": 0.0, "instances_checked": 0, "seed": args.seed, "quick": int(args.quick)}

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

    instances = PUBLIC_INSTANCES + held_out_instances(args.seed, 1 if args.quick else 2)
    shares: list[float] = []
    cand: harness.Candidate | None = None
    try:
        cand = harness.Candidate(args.candidate, ENTRY, POLICY, load_timeout=10, name="candidate")
        for i, (n, box) in enumerate(instances):
            label = "instance #%d (n=%d, box %gx%g)" % (i, n, box[0], box[1])
            sent = list(box)  # the evaluator keeps its own copy: nothing the candidate does to its box counts
            reply = cand.call(n, sent, timeout=args.call_timeout or (5.0 if args.quick else 10.0))
            problem = fault(n, box, reply, label)
            metrics["instances_checked"] += 1
            if problem:
                return finish(False, 0, problem)
            share = 100.0 * smallest_distance(reply.output) / distance_bound(n, box[0], box[1])
            shares.append(share)
            metrics["score_%d" % i] = round(share, 4)
        score = sum(shares) / len(shares)
        metrics["score"] = round(score, 4)
        metrics["worst_instance_score"] = round(min(shares), 4)
        return finish(True, metrics["score"])
    except harness.CandidateFailure as exc:
        return finish(False, 0, str(exc))
    finally:
        if cand is not None:
            cand.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[1])
    parser.add_argument("candidate")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--quick", action="store_true", help="one held-out instance instead of two")
    parser.add_argument("--call-timeout", type=float, default=0.0,
                        help="seconds per instance (default 10, 5 with --quick; the seed needs 0.01)")
    parser.add_argument("--no-static-check", action="store_true",
                        help="for testing the sandbox: skip the static check (the sandbox still "
                             "enforces the same imports and built-ins at run time)")
    return evaluate(parser.parse_args())


if __name__ == "__main__":
    harness.run_evaluator(main, DIRECTION)
