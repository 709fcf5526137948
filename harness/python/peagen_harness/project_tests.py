"""A project's own tests, run against a candidate: the tests gate of generated evaluators and
the whole evaluator of `objective: tests` examples.

    run = run_project_tests("python3 -m unittest", project_dir, "pkg/stats.py", candidate_path)
    run.passed, run.total, run.failed  # e.g. 9, 10, ["FAIL: test_pairs (test_stats.Test.test_pairs)"]

The tests run in a copy of the project (`project_dir` is read-only in the sandbox) with the
candidate written over the file it evolves, in their own session, killed as a group when they
end or time out. Counting reads the runner's own summary (unittest, pytest, node --test TAP),
the WORST of all it printed, so a summary the candidate prints (while loading, or after the
runner's at shutdown) can only lower the count; a
command whose output has no summary counts as one test that passed when it exits with 0.

As an evaluator (for a hand-written peagen.example.json):
    "evaluator": ["python3", "-m", "peagen_harness.project_tests", "--tests", "python3 -m unittest",
                  "--project", "project", "--program", "stats.py", "{program}"],
    "objective": {"name": "tests passed", "direction": "maximize"}
(no unit: a share of tests reads as a plain number, "tests passed 0.900", and compares by difference)
objective = passed / total, plus less than 0.01 / total for speed as the tie break (the test
run's CPU time against the original's); metrics tests_passed, tests_total, tests_cpu_ms.
"""
from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from typing import List, Optional

SKIPPED_DIRS = ("__pycache__", ".peagen", "node_modules", ".git")


@dataclass
class TestRun:
    passed: int
    total: int
    failed: List[str] = field(default_factory=list)
    output: str = ""
    cpu_seconds: float = 0.0
    status: Optional[int] = None

    def summary(self) -> str:
        return "tests passed %d/%d" % (self.passed, self.total)

    def failure_text(self) -> str:
        """What a failing run says to a reader (and to a model): the failing tests by name."""
        named = "; ".join(self.failed[:5]) + (" (and %d more)" % (len(self.failed) - 5) if len(self.failed) > 5 else "")
        return "the project's tests failed (%s): %s\n%s" % (self.summary(), named or "see the output", self.output[-2000:])


def assemble(project_dir: str, program: str, candidate: str, into: str) -> str:
    """A writable copy of the project with the candidate in place of `program`; returns its path."""
    copy = os.path.join(into, "project")
    shutil.copytree(project_dir, copy, ignore=shutil.ignore_patterns(*SKIPPED_DIRS))
    target = os.path.join(copy, program)
    os.makedirs(os.path.dirname(target), exist_ok=True)
    shutil.copyfile(candidate, target)
    return copy


def _summaries(output: str) -> List[TestRun]:
    """Every summary a known runner printed (unittest, node --test TAP, pytest), in order."""
    runs: List[TestRun] = []
    starts = [m.start() for m in re.finditer(r"^Ran \d+ tests? in ", output, re.MULTILINE)]
    for index, start in enumerate(starts):  # unittest: "Ran N tests in", then "FAILED (failures=F, errors=E)" or "OK"
        part = output[start:starts[index + 1] if index + 1 < len(starts) else len(output)]
        ran = int(re.match(r"Ran (\d+)", part).group(1))
        bad = sum(int(n) for n in re.findall(r"(?:failures|errors|unexpected successes)=(\d+)", part))
        runs.append(TestRun(ran - bad, ran))
    for block in re.finditer(r"^# tests (\d+)\n(?:# .*\n)*", output + "\n", re.MULTILINE):  # node --test
        passed = int((re.search(r"^# pass (\d+)", block.group(0), re.MULTILINE) or [0, 0])[1])
        failing = int((re.search(r"^# fail (\d+)", block.group(0), re.MULTILINE) or [0, 0])[1])
        runs.append(TestRun(passed, passed + failing))
    for line in re.findall(r"^=+ (.*\b(?:passed|failed|error)\b.*) in [\d.]+s", output, re.MULTILINE):  # pytest
        passed = int((re.search(r"(\d+) passed", line) or [0, 0])[1])
        bad = sum(int(n) for n in re.findall(r"(\d+) (?:failed|errors?)", line))
        runs.append(TestRun(passed, passed + bad))
    return runs


def count(output: str, status: Optional[int]) -> TestRun:
    """passed / total and the failing tests' names, from the runner's summary.

    The candidate's code runs inside the test process and can print a summary of its own, also
    after the runner's (at shutdown), but it cannot take back what the runner printed: so of
    all the summaries in the output the WORST share counts, and a forged one can only lower it.
    """
    # A summary of no tests counts as one test that failed: a run that tested nothing passed nothing.
    summaries = [run if run.total > 0 else TestRun(0, 1, ["the test command ran no tests"]) for run in _summaries(output)]
    failed = re.findall(r"^((?:FAIL|ERROR): .+)$", output, re.MULTILINE)  # unittest
    failed += [name.strip() for name in re.findall(r"^\s*not ok \d+ - (.+)$", output, re.MULTILINE)]  # TAP
    failed += re.findall(r"^FAILED (\S+)", output, re.MULTILINE)  # pytest
    if summaries:
        worst = min(summaries, key=lambda run: run.passed / run.total)
        run = TestRun(worst.passed, worst.total, failed or worst.failed)
    else:
        run = TestRun(1 if status == 0 else 0, 1, [] if status == 0 else ["the test command"])
    if status != 0 and run.passed == run.total:
        # A runner that says all passed but exits non-zero (a crash after the summary) did not pass.
        run.passed = max(0, run.total - 1)
        run.failed.append("the test command exited with status %s" % status)
    run.status = status
    return run


def run_tests(command: str, cwd: str, timeout: float = 300) -> TestRun:
    """Runs the shell command in cwd, in its own session (whatever it starts dies with it). `sh`
    is found on PATH: the sandbox image has it in /usr/bin (busybox), not necessarily /bin."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    env = dict(os.environ)
    env.pop("PEAGEN_CAPTURE_FILE", None)
    proc = subprocess.Popen(["sh", "-c", command], cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, start_new_session=True, env=env)
    timed_out = False
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        out, timed_out = b"", True
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        proc.wait()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    text = out.decode("utf-8", "replace")
    if timed_out:
        run = TestRun(0, 1, ["the tests did not finish in %d s" % timeout], text, status=None)
    else:
        run = count(text, proc.returncode)
        run.output = text
    run.cpu_seconds = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return run


def run_project_tests(command: str, project_dir: str, program: str, candidate: str, timeout: float = 300) -> TestRun:
    work = tempfile.mkdtemp(prefix="peagen-tests-")
    try:
        return run_tests(command, assemble(project_dir, program, candidate, work), timeout)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main() -> int:
    from .policy import Policy
    from .timing import EvaluatorError
    from .verdict import EXIT_EVALUATOR_FAILED, emit_verdict

    parser = argparse.ArgumentParser(prog="python3 -m peagen_harness.project_tests")
    parser.add_argument("candidate")
    parser.add_argument("--tests", required=True, help="the shell command that runs the project's tests")
    parser.add_argument("--project", required=True, help="the project's files, relative to the example directory")
    parser.add_argument("--program", required=True, help="the evolved file's path inside the project")
    parser.add_argument("--timeout", type=float, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    started = time.monotonic()
    metrics = {"tests_passed": 0, "tests_total": 0, "seed": args.seed}
    try:
        original = os.path.join(args.project, args.program)
        if not os.path.isfile(original):
            raise EvaluatorError("%s is not a file: --project and --program name the original" % original)
        with open(original, encoding="utf-8") as fh:
            reference_source = fh.read()
        with open(args.candidate, encoding="utf-8") as fh:
            source = fh.read()
        if original.endswith(".py"):
            # The candidate runs inside the test process: what it may import and call is checked first.
            policy = Policy(allowed_imports=_imports(reference_source))
            tolerated = {p.split(": ", 1)[-1] for p in policy.check_source(reference_source)}
            problems = [p for p in policy.check_source(source) if p.split(": ", 1)[-1] not in tolerated]
            if problems:
                emit_verdict(False, 0, "maximize", metrics, "rejected by the static check: " + "; ".join(problems[:5]))
                return 0
        reference = run_project_tests(args.tests, args.project, args.program, original, args.timeout)
        run = run_project_tests(args.tests, args.project, args.program, args.candidate, args.timeout)
        tie = 0.01 * reference.cpu_seconds / max(1e-9, reference.cpu_seconds + run.cpu_seconds)
        metrics.update(tests_passed=run.passed, tests_total=run.total, tests_cpu_ms=round(run.cpu_seconds * 1000, 3),
                       reference_tests_passed=reference.passed, eval_seconds=round(time.monotonic() - started, 3))
        error = None if run.passed == run.total else run.failure_text()
        emit_verdict(True, (run.passed + tie) / run.total, "maximize", metrics, error)
        return 0
    except (EvaluatorError, OSError) as exc:
        emit_verdict(False, 0, "maximize", metrics, "evaluator error: %s" % exc)
        return EXIT_EVALUATOR_FAILED


def _imports(source: str) -> frozenset:
    import ast
    names = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            names.add(node.module)
            names.update("%s.%s" % (node.module, alias.name) for alias in node.names)
    return frozenset(names)


if __name__ == "__main__":
    from .verdict import run_evaluator
    run_evaluator(main, "maximize")
