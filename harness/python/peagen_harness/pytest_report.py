"""A pytest plugin (Peagen names it in PYTEST_PLUGINS while it runs a project's tests): records
each test's outcome with peagen_harness.test_report, from pytest's own reports, and every
collection error as a failed test, so a test that was never collected is never a pass."""
from peagen_harness.test_report import record, runs_every_test


def pytest_configure(config):
    if runs_every_test():  # `-x`, `--maxfail=N` (see test_report.EVERY_TEST_ENV)
        config.option.maxfail = 0


def pytest_runtest_logreport(report):
    if report.when == "call" or report.outcome != "passed":
        if hasattr(report, "wasxfail") or "XPASS(strict)" in str(getattr(report, "longrepr", "") or ""):
            # marked xfail (strict or not): see test_report.OUTCOMES
            outcome = "xfailed" if report.skipped else "xpassed"
        elif report.passed:
            outcome = "passed"
        elif report.skipped:
            outcome = "skipped"
        else:
            outcome = "failed" if report.when == "call" else "error"
        record("pytest", report.nodeid, outcome)


def pytest_collectreport(report):
    if report.failed:
        record("pytest", "collecting " + (report.nodeid or "the tests"), "error")
