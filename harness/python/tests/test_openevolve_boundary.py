"""The OpenEvolve adapter's trust boundary, attacked: python3 harness/python/tests/test_openevolve_boundary.py

Each hostile candidate (openevolve_attacks/) stands for examples/openevolve_schedule's program
and is evaluated as Peagen's daemon does it: `python3 -m peagen_openevolve PROGRAM
--sealed-verdict`, a fresh seal on stdin, the example directory as cwd. Its score is what the
daemon would take (daemon/evaluation/interpretRun.ts): the last line of stdout, only if it
carries the seal and says correct. No attack may score more than an honest wrong answer (0).
"""
import json
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import textwrap
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
LIBRARY = os.path.join(HERE, "..")
ATTACKS = os.path.join(HERE, "openevolve_attacks")
EXAMPLE = os.path.join(HERE, "..", "..", "..", "examples", "openevolve_schedule")
SEED_SCORE = 0.5451338865936847
ATTACK_FILES = sorted(name for name in os.listdir(ATTACKS) if name.endswith(".py") and name != "honest_wrong.py")


def attack(name):
    with open(os.path.join(ATTACKS, name)) as fh:
        return fh.read()


class Evaluation:
    def __init__(self, run, seal):
        self.stdout, self.stderr, self.status = run.stdout, run.stderr, run.returncode
        lines = run.stdout.strip().splitlines()
        try:
            self.line = json.loads(lines[-1]) if lines else None
        except ValueError:
            self.line = None
        self.sealed = isinstance(self.line, dict) and self.line.get("seal") == seal

    @property
    def score(self):
        """What the daemon takes: the objective of a sealed, correct verdict, else 0."""
        return self.line["objective"] if self.sealed and self.line.get("correct") is True else 0.0

    def describe(self):
        return "score %s, sealed %s, line %s\nstderr: %s" % (self.score, self.sealed, self.stdout[-600:], self.stderr[-1500:])


class ExampleCase(unittest.TestCase):
    """A copy of examples/openevolve_schedule (its reference program replaceable) and a
    workspace holding the candidate, as in the sandbox."""

    reference = None  # None: the example's own initial_program.py

    def setUp(self):
        root = tempfile.mkdtemp(prefix="oe-boundary-")
        self.addCleanup(shutil.rmtree, root, True)
        self.example = os.path.join(root, "example")
        shutil.copytree(EXAMPLE, self.example)
        if self.reference is not None:
            with open(os.path.join(self.example, "initial_program.py"), "w") as fh:
                fh.write(textwrap.dedent(self.reference))
        self.workspace = os.path.join(root, "workspace")
        os.makedirs(self.workspace)

    def evaluate(self, source, *flags):
        program = os.path.join(self.workspace, "initial_program.py")
        with open(program, "w") as fh:
            fh.write(source)
        seal = secrets.token_hex(32)
        run = subprocess.run([sys.executable, "-m", "peagen_openevolve", program, "--sealed-verdict", *flags],
                             cwd=self.example, env=dict(os.environ, PYTHONPATH=LIBRARY), input=seal + "\n",
                             capture_output=True, text=True, timeout=120,
                             # An attack that signals its group or its parent's must not reach this test.
                             start_new_session=True)
        return Evaluation(run, seal)


class Boundary(ExampleCase):
    def test_the_honest_seed_scores_as_before_and_ran_behind_the_boundary(self):
        with open(os.path.join(EXAMPLE, "initial_program.py")) as fh:
            result = self.evaluate(fh.read())
        self.assertTrue(result.sealed, result.describe())
        self.assertAlmostEqual(result.score, SEED_SCORE, places=12)
        self.assertEqual(result.line["metrics"]["process_boundary"], 1.0)
        self.assertIn("its own locked-down process", result.line["artifacts"]["peagen_isolation"])

    def test_an_honest_wrong_answer_scores_0(self):
        result = self.evaluate(attack("honest_wrong.py"))
        self.assertTrue(result.sealed, result.describe())
        self.assertEqual((result.line["correct"], result.score), (False, 0.0))

    def test_no_attack_scores_above_an_honest_wrong_answer(self):
        for name in ATTACK_FILES:
            with self.subTest(attack=name):
                result = self.evaluate(attack(name))
                self.assertEqual(result.score, 0.0, result.describe())
                # The verdict is the adapter's own, sealed, and says why the candidate failed.
                self.assertTrue(result.sealed, result.describe())
                self.assertEqual(result.line["correct"], False)
                self.assertEqual(result.line["metrics"]["process_boundary"], 1.0)

    def test_a_list_subclass_is_refused_at_the_boundary_not_judged(self):
        result = self.evaluate(attack("shifty_list.py"))
        self.assertIn("cannot cross the process boundary", result.line["error"])

    def test_a_line_printed_without_the_seal_is_not_a_verdict(self):
        # The evaluator's own process (evaluator.py is not Peagen's code) cannot reach the
        # verdict channel either: what it writes on fd 1 goes to stderr.
        with open(os.path.join(self.example, "evaluator.py"), "a") as fh:
            fh.write("\nimport os\nos.write(1, b'{\"correct\": true, \"objective\": 1e300, \"direction\": \"maximize\", \"metrics\": {}}\\n')\n")
        with open(os.path.join(EXAMPLE, "initial_program.py")) as fh:
            result = self.evaluate(fh.read())
        self.assertTrue(result.sealed, result.describe())
        self.assertEqual(len(result.stdout.strip().splitlines()), 1)
        self.assertAlmostEqual(result.score, SEED_SCORE, places=12)


class PermissiveReference(ExampleCase):
    """A reference that imports everything the attacks need: the allow-list lets them load, and
    the candidate's process (audit hook, no files, plain data back) still holds them."""

    reference = """
        import atexit, builtins, json, os, signal, sys, threading, time

        def run_schedule(jobs):
            return list(range(len(jobs)))
    """

    def test_the_honest_seed_still_scores_its_own_score(self):
        with open(os.path.join(EXAMPLE, "initial_program.py")) as fh:
            result = self.evaluate(fh.read())
        self.assertAlmostEqual(result.score, SEED_SCORE, places=12, msg=result.describe())

    def test_no_attack_scores_above_an_honest_wrong_answer(self):
        for name in ATTACK_FILES:
            with self.subTest(attack=name):
                result = self.evaluate(attack(name))
                self.assertEqual(result.score, 0.0, result.describe())
                self.assertTrue(result.sealed, result.describe())


class InProcess(ExampleCase):
    """A reference a stand-in cannot carry (a class the evaluator could use): every candidate
    runs in evaluator.py's process, as OpenEvolve runs it. Its score is not trustworthy, and the
    verdict says so; the channel still is: nothing but the adapter writes a sealed verdict."""

    reference = """
        class Scheduler:
            pass

        def run_schedule(jobs):
            return list(range(len(jobs)))
    """

    def test_the_verdict_and_stderr_say_the_candidate_was_not_isolated(self):
        with open(os.path.join(EXAMPLE, "initial_program.py")) as fh:
            result = self.evaluate(fh.read())
        self.assertAlmostEqual(result.score, SEED_SCORE, places=12, msg=result.describe())
        self.assertEqual(result.line["metrics"]["process_boundary"], 0.0)
        self.assertIn("not trustworthy", result.line["artifacts"]["peagen_isolation"])
        self.assertIn("class Scheduler", result.line["artifacts"]["peagen_isolation"])
        self.assertIn("warning: the candidate ran inside evaluator.py's process", result.stderr)
        # Where the daemon shows it to the user: a correct verdict's error text.
        self.assertIn("warning: the candidate ran inside evaluator.py's process", result.line["error"])

    def test_attacks_on_the_verdict_channel_still_fail(self):
        for name in ("verdict_on_every_fd.py", "atexit_verdict.py", "lingering_thread.py", "signals_parent.py", "forged_json_dumps.py"):
            with self.subTest(attack=name):
                result = self.evaluate(attack(name))
                self.assertEqual(result.score, 0.0, result.describe())

    def test_a_process_that_ends_before_the_adapter_judged_is_a_failure_whatever_it_printed(self):
        result = self.evaluate(attack("verdict_on_every_fd.py"))
        self.assertTrue(result.sealed, result.describe())
        self.assertEqual(result.line["correct"], False)
        self.assertIn("sent no verdict", result.line["error"])
        self.assertEqual(len(result.stdout.strip().splitlines()), 1, "only the adapter's line is on stdout")
        result = self.evaluate("import os\nprint('{\"correct\": true, \"objective\": 1e300}')\nos._exit(0)\n")
        self.assertTrue(result.sealed, result.describe())
        self.assertIn("sent no readable result before it ended (exit status 0)", result.line["error"])


class InProcessAskedFor(ExampleCase):
    """config.yaml's peagen.in_process: true (the daemon passes --in-process): the example's
    choice, for an evaluator that reads the program's text or runs it as a script."""

    def test_evaluate_gets_the_candidates_own_path_and_the_verdict_says_so(self):
        with open(os.path.join(self.example, "evaluator.py"), "a") as fh:
            fh.write(textwrap.dedent("""

                def evaluate(program_path):
                    with open(program_path) as fh:
                        return {"combined_score": 1.0 if "def schedule(jobs)" in fh.read() else 0.0}
            """))
        with open(os.path.join(EXAMPLE, "initial_program.py")) as fh:
            source = fh.read()
        self.assertEqual(self.evaluate(source).score, 0.0, "behind the boundary it reads the stand-in")
        result = self.evaluate(source, "--in-process")
        self.assertEqual(result.score, 1.0, result.describe())
        self.assertEqual(result.line["metrics"]["process_boundary"], 0.0)
        self.assertIn("peagen.in_process: true", result.line["artifacts"]["peagen_isolation"])


class AdapterPrivacy(ExampleCase):
    """The seal lives in the adapter's memory, its verdict channel among its file descriptors:
    the worker (evaluator.py, and the candidate in the in-process mode) runs without
    capabilities, and the adapter is not dumpable, so even as root the worker reaches neither."""

    def test_the_evaluators_process_cannot_open_the_adapters_fds_memory_or_environment(self):
        with open(os.path.join(self.example, "evaluator.py"), "w") as fh:
            fh.write(textwrap.dedent("""
                import os

                def evaluate(program_path):
                    adapter = os.getppid()
                    reached = {}
                    paths = ["/proc/%d/mem" % adapter, "/proc/%d/environ" % adapter]
                    try:
                        paths += ["/proc/%d/fd/%s" % (adapter, fd) for fd in os.listdir("/proc/%d/fd" % adapter)]
                    except OSError:
                        pass
                    for path in paths:
                        try:  # opening is enough: the seal is in mem, the verdict channel an fd
                            os.close(os.open(path, os.O_RDONLY | os.O_NONBLOCK))
                            reached[path] = 1.0
                        except OSError:
                            pass
                    reached["combined_score"] = 0.1
                    return reached
            """))
        with open(os.path.join(EXAMPLE, "initial_program.py")) as fh:
            result = self.evaluate(fh.read())
        self.assertTrue(result.sealed, result.describe())
        reached = {key for key in result.line["metrics"] if key.startswith("/proc/")}
        self.assertEqual(reached, set(), result.describe())


if __name__ == "__main__":
    unittest.main()
