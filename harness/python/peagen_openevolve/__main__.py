"""Entry point: `python3 -m peagen_openevolve PROGRAM [--metric NAME] [--cascade T1,T2] [--seed N] [--sealed-verdict] [--in-process]`.

This process is the trusted judge. It runs no code of the example's nor of the candidate's:
evaluator.py runs in a worker process (peagen_openevolve._worker) that gets the candidate's
stand-in (isolation.py), and sends back what it found on a private pipe; this process checks
it and prints Peagen's verdict line, alone, on the real stdout. The worker's stdout is this
process's stderr, so nothing it or the candidate prints can come after or instead of it.

With --sealed-verdict (Peagen's daemon passes it), the first line of stdin is a secret that
only the daemon and this process know; the verdict line carries it as `seal`, and the daemon
accepts no verdict without it. A process that ends before this one has judged, whatever it
printed and wherever, leaves no sealed line: a failed evaluation.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import select
import shutil
import subprocess
import sys
import tempfile
from typing import Any, Dict, Optional, Tuple

from . import DEFAULT_METRIC, EXIT_EVALUATOR_FAILED, TEXT_LIMIT
from .isolation import BOUNDARY_METRIC, ISOLATION_ARTIFACT, prepare
from .privacy import refuse_inspection

#: The worker's message is a verdict, not a data channel.
MAX_RESULT_BYTES = 4 * 1024 * 1024
#: How long a worker may linger after sending its result (it exits at once when honest).
EXIT_GRACE_S = 5.0


def main() -> int:
    parser = argparse.ArgumentParser(prog="peagen_openevolve")
    parser.add_argument("program")
    parser.add_argument("--metric", default=DEFAULT_METRIC)
    parser.add_argument("--cascade", help="comma-separated stage thresholds: run evaluate_stage1/2/3")
    parser.add_argument("--seed", type=int)
    parser.add_argument("--sealed-verdict", action="store_true", help="read the verdict's seal from the first line of stdin")
    parser.add_argument("--in-process", action="store_true", help="give evaluate() the candidate's own path (config.yaml: peagen.in_process)")
    # Peagen may pass flags meant for its own evaluators (--quick): OpenEvolve's have no use for them.
    args, _ignored = parser.parse_known_args()

    refuse_inspection()
    seal = _read_seal() if args.sealed_verdict else None
    _stdin_from_devnull()
    verdict_out = os.fdopen(os.dup(1), "w")
    sys.stdout.flush()
    os.dup2(2, 1)
    sys.stdout = sys.stderr

    def say(line: Dict[str, Any], status: int) -> int:
        if seal is not None:
            line = dict(line, seal=seal)
        sys.stderr.flush()
        verdict_out.write(json.dumps(line) + "\n")
        verdict_out.flush()
        return status

    workdir = None
    try:
        workdir = tempfile.mkdtemp(prefix="peagen-openevolve-")
        isolation = prepare(os.path.abspath(args.program), os.getcwd(), workdir, in_process=args.in_process, seed=args.seed)
        if not isolation.isolated:
            sys.stderr.write("peagen_openevolve: warning: %s\n" % isolation.note)
        worker = [sys.executable, "-m", "peagen_openevolve._worker", isolation.program_path, "--metric", args.metric]
        if args.cascade is not None:
            worker += ["--cascade", args.cascade]
        if args.seed is not None:
            worker += ["--seed", str(args.seed)]
        message, ended = _run_worker(worker)
    except OSError as exc:  # no writable temporary directory, no process to start: not the candidate's fault
        return say(_failure("evaluator error: the adapter could not run the evaluation (%s: %s)" % (type(exc).__name__, exc)),
                   EXIT_EVALUATOR_FAILED)
    finally:
        if workdir is not None:
            shutil.rmtree(workdir, ignore_errors=True)

    if message is None or ended != 0:
        return say(_failure("the evaluation sent no readable result before it ended (%s); whatever it printed is not a verdict" % _status_text(ended)), 0)
    if "evaluator_unusable" in message:
        return say(_failure("evaluator error: %s" % _text(message["evaluator_unusable"])), EXIT_EVALUATOR_FAILED)
    try:
        line = _checked(message.get("verdict"))
    except (OverflowError, ValueError, TypeError) as exc:  # e.g. an integer too large for a float
        line = _failure("the evaluation sent a verdict that cannot be read (%s: %s)" % (type(exc).__name__, exc))
    line["metrics"][BOUNDARY_METRIC] = 1.0 if isolation.isolated else 0.0
    line.setdefault("artifacts", {})[ISOLATION_ARTIFACT] = isolation.note
    if not isolation.isolated and line["correct"]:
        # Also where the daemon shows it: a correct verdict's error text is its caveat. Not a
        # failure's: that text is what the model is told, and it needs no hint.
        line["error"] = "warning: " + isolation.note
    return say(line, 0)


def _read_seal() -> Optional[str]:
    """One line from stdin, read byte by byte so nothing past it is consumed."""
    data = bytearray()
    while len(data) < 1024:
        byte = os.read(0, 1)
        if not byte or byte == b"\n":
            break
        data += byte
    return data.decode("ascii", "replace").strip()


def _stdin_from_devnull() -> None:
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)


def _run_worker(command: list) -> Tuple[Optional[dict], Optional[int]]:
    """Runs the worker to its end: (its one message, or None; its exit status, None if it had
    to be killed). It stays in this process's group, as does the candidate's child it starts:
    when the sandbox kills this evaluation's group (a timeout, a candidate that killed this
    process), they die with it. In a session of their own they outlived a killed adapter."""
    read_end, write_end = os.pipe()
    try:
        proc = subprocess.Popen(command + ["--result-fd", str(write_end)], stdin=subprocess.DEVNULL, stdout=2,
                                pass_fds=(write_end,), env=_worker_environment())
    finally:
        os.close(write_end)
    data = bytearray()
    try:
        while b"\n" not in data and len(data) <= MAX_RESULT_BYTES:
            ready, _, _ = select.select([read_end], [], [], 0.2)
            if ready:
                chunk = os.read(read_end, 65536)
                if not chunk:
                    break
                data += chunk
            elif proc.poll() is not None:
                # Ended, and nothing more is coming from it (a process it left behind may hold
                # the pipe open: that is not a reason to wait for the sandbox's deadline).
                break
        try:
            status: Optional[int] = proc.wait(timeout=EXIT_GRACE_S)
        except subprocess.TimeoutExpired:
            status = None
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        os.close(read_end)
    newline = data.find(b"\n")
    if newline < 0:
        return None, status
    try:
        message = json.loads(bytes(data[:newline]))
    except (ValueError, RecursionError):  # RecursionError: nesting made to crash this process
        return None, status
    return (message if isinstance(message, dict) else None), status


def _worker_environment() -> Dict[str, str]:
    """This process's environment, with the harness library importable (the worker is started
    with `-m`, as this process was)."""
    env = dict(os.environ)
    library = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parts = [part for part in env.get("PYTHONPATH", "").split(os.pathsep) if part]
    if library not in parts:
        env["PYTHONPATH"] = os.pathsep.join(parts + [library])
    return env


def _status_text(status: Optional[int]) -> str:
    if status is None:
        return "it did not exit after its result and was killed"
    if status < 0:
        return "killed by signal %d" % -status
    return "exit status %d" % status


def _checked(raw: Any) -> Dict[str, Any]:
    """The worker's verdict rebuilt from checked fields: exact types, finite numbers, bounded text."""
    if not isinstance(raw, dict):
        return _failure("the evaluation sent no verdict")
    correct = raw.get("correct") is True
    objective = raw.get("objective")
    if type(objective) not in (int, float) or not math.isfinite(objective):
        return _failure("the evaluation sent an objective that is not a finite number")
    metrics: Dict[str, float] = {}
    for key, value in (raw.get("metrics") or {}).items() if isinstance(raw.get("metrics"), dict) else ():
        if type(value) in (int, float) and math.isfinite(value):
            metrics[str(key)] = float(value)
    line: Dict[str, Any] = {"correct": correct, "objective": float(objective) if correct else 0.0, "direction": "maximize", "metrics": metrics}
    if isinstance(raw.get("error"), str) and raw["error"]:
        line["error"] = _text(raw["error"], 2 * TEXT_LIMIT)
    artifacts = raw.get("artifacts")
    if isinstance(artifacts, dict):
        line["artifacts"] = {str(key): _text(value) for key, value in artifacts.items() if isinstance(value, str)}
    return line


def _failure(error: str) -> Dict[str, Any]:
    return {"correct": False, "objective": 0.0, "direction": "maximize", "metrics": {}, "error": error}


def _text(value: Any, limit: int = TEXT_LIMIT) -> str:
    text = str(value)
    return text if len(text) <= limit else text[:limit] + "\n[... %d more characters]" % (len(text) - limit)


if __name__ == "__main__":
    status = main()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)
