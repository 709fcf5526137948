"""Test outcomes as the test runner itself reports them, one JSON line per outcome, written by
the judge's own process into a folder only the trusted side reads (PEAGEN_TEST_REPORT_DIR):

  * unittest: report_hook/sitecustomize.py records what unittest's TestResult is told
    (python3 -m unittest, unittest.main(), any spelling, -q or -v);
  * pytest: the plugin peagen_harness.pytest_report (named in PYTEST_PLUGINS);
  * node --test: harness/js/peagen-test-report.mjs, a test reporter named in NODE_OPTIONS;
  * mocha: harness/js/peagen-mocha-report.js, preloaded (NODE_OPTIONS=--require) into the
    test run's Node processes, listening to mocha's own Runner;
  * tape: harness/js/peagen-tape-report.js, preloaded the same way, hooking tape's Test;
  * jest and vitest: harness/js/peagen-jest-report.js and peagen-vitest-report.mjs, reporters
    of their kind that harness/js/peagen-cli-reporters.js (preloaded the same way) adds to the
    runner's command line.

Nothing is read from what the tests print, so a summary printed by anyone counts for nothing.
Under the process boundary the candidate cannot reach these files at all (its process may not
open any); in the in-process mode it could, which is why that mode is weaker (docs/trust.md).
"""
from __future__ import annotations

import json
import os
from typing import Dict

REPORT_DIR_ENV = "PEAGEN_TEST_REPORT_DIR"
#: Set wherever Peagen runs a project's tests: each runner that can be told so runs every test,
#: whatever fail-fast option the project's command gives (`pytest -x`, `unittest -f`, `mocha
#: --bail`, `jest --bail`). A test is left out for its own outcome behind the process boundary,
#: never because a runner stopped before it; and a left-out test that fails does not stop the
#: run before the tests that judge.
EVERY_TEST_ENV = "PEAGEN_RUN_EVERY_TEST"
#: The runners that obey EVERY_TEST_ENV (their test ids' prefixes): a test of another runner
#: that did not run behind the boundary is never left out (its runner may have stopped early).
EVERY_TEST_RUNNERS = ("pytest:", "unittest:", "mocha:", "jest:", "vitest:")


def runs_every_test() -> bool:
    return os.environ.get(EVERY_TEST_ENV) == "1"
#: The outcomes, worst last: a test recorded twice (a failing subtest, a teardown error after
#: a pass) has the worst of its outcomes. A test marked as an expected failure is "xfailed"
#: when it fails and "xpassed" when it passes: whichever it does, it counts neither way
#: (project_tests.UNJUDGED). Its marker says the assertion fails and its assertion says what
#: is right, so neither outcome tells a better program from a worse one: a candidate that makes
#: a stale marker's test fail, or a known bug's test pass by special-casing its input, gains
#: nothing, and one that really fixes the bug is not rewarded for it either.
OUTCOMES = ("passed", "skipped", "xfailed", "xpassed", "failed", "error")

_stream = None


def record(runner: str, test_id: str, outcome: str) -> None:
    """Appends one outcome to this process's report file (flushed at once: a run killed
    halfway keeps what it recorded, and the tests it never reached count as failed)."""
    global _stream
    folder = os.environ.get(REPORT_DIR_ENV)
    if not folder or outcome not in OUTCOMES:
        return
    if _stream is None:
        _stream = open(os.path.join(folder, "python-%d.jsonl" % os.getpid()), "a", encoding="utf-8")
    _stream.write(json.dumps({"runner": runner, "id": str(test_id), "outcome": outcome}) + "\n")
    _stream.flush()


def read_reports(folder: str) -> Dict[str, str]:
    """Test id -> its worst outcome, over every report file in `folder` (empty: no report).
    Lines that are not well-formed outcomes are skipped."""
    outcomes: Dict[str, str] = {}
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".jsonl"):
            continue
        with open(os.path.join(folder, name), encoding="utf-8", errors="replace") as fh:
            for line in fh:
                try:
                    entry = json.loads(line)
                except ValueError:
                    continue
                if not isinstance(entry, dict) or entry.get("outcome") not in OUTCOMES:
                    continue
                key = "%s:%s" % (entry.get("runner"), entry.get("id"))
                before = outcomes.get(key)
                if before is None or OUTCOMES.index(entry["outcome"]) > OUTCOMES.index(before):
                    outcomes[key] = entry["outcome"]
    return outcomes
