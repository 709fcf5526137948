"""Entry point: `python3 -m peagen_openevolve PROGRAM [--metric NAME] [--cascade T1,T2] [--seed N]`.

Everything the evaluator (or a candidate it imports) prints goes to stderr: the real stdout
is kept aside for the verdict, so nothing can print a line after it or instead of it.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import sys

from . import DEFAULT_METRIC, EXIT_EVALUATOR_FAILED, EvaluatorUnusable, load_evaluator, provide_compat_modules, verdict


def main() -> int:
    parser = argparse.ArgumentParser(prog="peagen_openevolve")
    parser.add_argument("program")
    parser.add_argument("--metric", default=DEFAULT_METRIC)
    parser.add_argument("--cascade", help="comma-separated stage thresholds: run evaluate_stage1/2/3")
    parser.add_argument("--seed", type=int)
    # Peagen may pass flags meant for its own evaluators (--quick): OpenEvolve's have no use for them.
    args, _ignored = parser.parse_known_args()

    verdict_out = os.fdopen(os.dup(1), "w")
    sys.stdout.flush()
    os.dup2(2, 1)
    sys.stdout = sys.stderr

    if args.seed is not None:
        random.seed(args.seed)
    provide_compat_modules()
    try:
        module = load_evaluator(os.getcwd())
    except EvaluatorUnusable as exc:
        verdict_out.write(json.dumps({"correct": False, "objective": 0.0, "direction": "maximize", "metrics": {}, "error": "evaluator error: %s" % exc}) + "\n")
        verdict_out.flush()
        return EXIT_EVALUATOR_FAILED
    thresholds = None
    if args.cascade is not None:
        thresholds = [float(part) for part in args.cascade.split(",") if part.strip()]
    line = verdict(module, os.path.abspath(args.program), args.metric, thresholds)
    sys.stderr.flush()
    verdict_out.write(json.dumps(line) + "\n")
    verdict_out.flush()
    return 0


if __name__ == "__main__":
    status = main()
    sys.stdout.flush()
    sys.stderr.flush()
    # Not sys.exit: threads an evaluator leaves behind (a timed-out worker) would hold the
    # process until the sandbox's deadline kills it, after the verdict is already out.
    os._exit(status)
