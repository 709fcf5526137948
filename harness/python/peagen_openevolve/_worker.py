"""The process evaluator.py runs in, started by the adapter (`python3 -m peagen_openevolve`);
never run by hand.

    python3 -m peagen_openevolve._worker PROGRAM --result-fd N [--metric M] [--cascade T] [--seed S]

It imports evaluator.py, calls evaluate(PROGRAM) (PROGRAM is the candidate's stand-in, or the
candidate itself in the in-process mode) and sends what it found as ONE JSON line on fd N:
{"verdict": {...}} or {"evaluator_unusable": "why"}. It never sees Peagen's verdict channel
(its stdout is the adapter's stderr) nor the seal; the adapter checks this line, and a worker
that ends without sending it, or with a status other than 0, is a failed evaluation.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import sys

from . import DEFAULT_METRIC, EvaluatorUnusable, load_evaluator, provide_compat_modules, verdict
from .privacy import drop_capabilities, refuse_inspection


def main() -> None:
    parser = argparse.ArgumentParser(prog="peagen_openevolve._worker")
    parser.add_argument("program")
    parser.add_argument("--result-fd", type=int, required=True)
    parser.add_argument("--metric", default=DEFAULT_METRIC)
    parser.add_argument("--cascade")
    parser.add_argument("--seed", type=int)
    args = parser.parse_args()
    # Before anything of the example's runs: without capabilities, neither this process (the
    # candidate too, in the in-process mode) nor the candidate's own can open the adapter's
    # files (/proc/PID/fd) or read its memory (the seal), and a candidate process that escaped
    # its sandbox cannot open this one's to write the result itself.
    drop_capabilities()
    refuse_inspection()
    result = args.result_fd
    os.set_inheritable(result, False)

    if args.seed is not None:
        random.seed(args.seed)
    provide_compat_modules()
    try:
        module = load_evaluator(os.getcwd())
    except EvaluatorUnusable as exc:
        _send(result, {"evaluator_unusable": str(exc)})
        return
    thresholds = None
    if args.cascade is not None:
        thresholds = [float(part) for part in args.cascade.split(",") if part.strip()]
    _send(result, {"verdict": verdict(module, args.program, args.metric, thresholds)})


def _send(fd: int, message: dict) -> None:
    data = (json.dumps(message) + "\n").encode()
    while data:
        data = data[os.write(fd, data):]


if __name__ == "__main__":
    main()
    sys.stdout.flush()
    sys.stderr.flush()
    # Not sys.exit: threads an evaluator leaves behind would hold the process, and atexit
    # handlers (the candidate's too, in the in-process mode) have nothing to add.
    os._exit(0)
