"""The one JSON line an evaluator ends with, and the exit statuses Peagen expects."""
from __future__ import annotations

import json
import math
import sys
from typing import Any, Callable, Mapping, Optional, Sequence

EXIT_VERDICT = 0  # any verdict about the candidate, also "incorrect"
EXIT_EVALUATOR_FAILED = 2  # the evaluator itself could not work


#: At most this many failing tests' ids in a verdict (the rest are left off the list).
FAILED_TESTS_LIMIT = 1000


def verdict_line(correct: bool, objective: float, direction: str, metrics: Mapping[str, Any],
                 error: Optional[str] = None, failed_tests: Optional[Sequence[str]] = None,
                 original_passed_tests: Optional[Sequence[str]] = None) -> str:
    """`objective` is forced to 0 when the candidate is not correct (or not a finite number).
    `failed_tests`: the ids of the project's tests that failed, as their runner reported them
    (`peagen init` reads them from the seed's verdict); `original_passed_tests`: for the
    original, those it passes (project_tests.tests_gate says where), which init lists in the
    example's project_tests.TESTS_FILE; a correct verdict may carry them too."""
    if direction not in ("maximize", "minimize"):
        raise ValueError("direction must be 'maximize' or 'minimize', not %r" % (direction,))
    value = float(objective) if correct else 0.0
    if not math.isfinite(value):
        value, correct = 0.0, False
        error = error or "the objective is not a finite number"
    line = {"correct": bool(correct), "objective": value, "direction": direction,
            "metrics": dict(metrics)}
    if error:
        line["error"] = error
    if failed_tests:
        line["failed_tests"] = list(failed_tests)[:FAILED_TESTS_LIMIT]
    if original_passed_tests is not None and len(original_passed_tests) <= FAILED_TESTS_LIMIT:
        line["original_passed_tests"] = list(original_passed_tests)  # whole, or not at all
    return json.dumps(line)


def emit_verdict(correct: bool, objective: float, direction: str, metrics: Mapping[str, Any],
                 error: Optional[str] = None, failed_tests: Optional[Sequence[str]] = None,
                 original_passed_tests: Optional[Sequence[str]] = None) -> None:
    """Prints the verdict as the last line of stdout. The candidate's processes never share
    this stdout, so it cannot print a line after (or instead of) this one."""
    sys.stdout.write(verdict_line(correct, objective, direction, metrics, error, failed_tests, original_passed_tests) + "\n")
    sys.stdout.flush()


def run_evaluator(main: Callable[[], int], direction: str) -> None:
    """Runs `main` and exits with its status; an unexpected exception still ends with a
    parseable verdict line (correct: false, error "evaluator error: ...") and exit status 2."""
    try:
        status = main()
    except Exception as exc:  # noqa: BLE001 - the evaluator's own bug
        emit_verdict(False, 0, direction, {}, "evaluator error: %s: %s" % (type(exc).__name__, exc))
        status = EXIT_EVALUATOR_FAILED
    sys.exit(status)
