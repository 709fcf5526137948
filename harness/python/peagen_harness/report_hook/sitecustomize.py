"""Loaded by every Python the project's test command starts (Peagen puts this folder first on
PYTHONPATH while it runs the tests): records what unittest's TestResult is told, test by test,
with peagen_harness.test_report. Does nothing unless PEAGEN_TEST_REPORT_DIR is set. (It takes
the place of another sitecustomize further down the path; Peagen's sandboxes have none.)"""
import os

if os.environ.get("PEAGEN_TEST_REPORT_DIR"):
    import unittest.result as _result

    from peagen_harness.test_report import record as _record, runs_every_test as _runs_every_test

    import re as _re

    # "<Fraction object at 0x7f3a...>" in a subtest's parameters: the same test on every run.
    _ADDRESS = _re.compile(r" at 0x[0-9a-fA-F]+")

    def _id(test):
        try:
            return _ADDRESS.sub("", test.id())
        except Exception:  # noqa: BLE001 - a test object without an id still counts
            return _ADDRESS.sub("", repr(test))

    def _wrap(name, outcome):
        original = getattr(_result.TestResult, name)

        def method(self, test, *args):
            _record("unittest", _id(test), outcome)
            return original(self, test, *args)
        setattr(_result.TestResult, name, method)

    _wrap("addSuccess", "passed")
    # What the code did, not what the marker expected (see test_report.OUTCOMES).
    _wrap("addExpectedFailure", "xfailed")
    _wrap("addFailure", "failed")
    _wrap("addUnexpectedSuccess", "xpassed")
    _wrap("addError", "error")
    _wrap("addSkip", "skipped")
    _original_sub_test = _result.TestResult.addSubTest

    _seen = {}

    def _add_sub_test(self, test, subtest, err):
        # Each subtest is a test of its own ("test_x (n=3)"): a table of cases is judged case by
        # case, so one case left out (it fails only behind the process boundary) leaves the
        # others judging. Cases of the same description are numbered in the order they run
        # ("test_x (<subtest>) #2"). A failing subtest fails the test it belongs to as well.
        name = _id(subtest)
        _seen[name] = _seen.get(name, 0) + 1
        _record("unittest", name if _seen[name] == 1 else "%s #%d" % (name, _seen[name]), "passed" if err is None else "failed")
        if err is not None:
            _record("unittest", _id(test), "failed")
        return _original_sub_test(self, test, subtest, err)
    _result.TestResult.addSubTest = _add_sub_test

    if _runs_every_test():  # `-f`, `failfast=True` (see test_report.EVERY_TEST_ENV)
        _result.TestResult.failfast = property(lambda self: False, lambda self, value: None)
