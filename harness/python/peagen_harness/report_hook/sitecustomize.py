"""Loaded by every Python the project's test command starts (Peagen puts this folder first on
PYTHONPATH while it runs the tests): records what unittest's TestResult is told, test by test,
with peagen_harness.test_report. Does nothing unless PEAGEN_TEST_REPORT_DIR is set. (It takes
the place of another sitecustomize further down the path; Peagen's sandboxes have none.)"""
import os

if os.environ.get("PEAGEN_TEST_REPORT_DIR"):
    import unittest.result as _result

    from peagen_harness.test_report import record as _record

    def _id(test):
        try:
            return test.id()
        except Exception:  # noqa: BLE001 - a test object without an id still counts
            return repr(test)

    def _wrap(name, outcome):
        original = getattr(_result.TestResult, name)

        def method(self, test, *args):
            _record("unittest", _id(test), outcome)
            return original(self, test, *args)
        setattr(_result.TestResult, name, method)

    _wrap("addSuccess", "passed")
    _wrap("addExpectedFailure", "passed")
    _wrap("addFailure", "failed")
    _wrap("addUnexpectedSuccess", "failed")
    _wrap("addError", "error")
    _wrap("addSkip", "skipped")
    _original_sub_test = _result.TestResult.addSubTest

    def _add_sub_test(self, test, subtest, err):
        if err is not None:  # a failing subtest fails the test it belongs to
            _record("unittest", _id(test), "failed")
        return _original_sub_test(self, test, subtest, err)
    _result.TestResult.addSubTest = _add_sub_test
