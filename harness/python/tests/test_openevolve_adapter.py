"""Tests of peagen_openevolve, the adapter for OpenEvolve evaluators:
python3 harness/python/tests/test_openevolve_adapter.py

Each test writes an example directory (evaluator.py + a program) and runs the adapter as Peagen
does: `python3 -m peagen_openevolve PROGRAM ...` with the directory as cwd and only
harness/python on PYTHONPATH. What Peagen reads is the last line of stdout and the exit status.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import unittest

LIBRARY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")

PROGRAM = "def answer():\n    return 42\n"


class AdapterCase(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="oe-adapter-")
        self.addCleanup(shutil.rmtree, self.dir, True)
        with open(os.path.join(self.dir, "initial_program.py"), "w") as fh:
            fh.write(PROGRAM)

    def run_adapter(self, evaluator, *args, pythonpath=None):
        with open(os.path.join(self.dir, "evaluator.py"), "w") as fh:
            fh.write(textwrap.dedent(evaluator))
        env = dict(os.environ, PYTHONPATH=pythonpath or LIBRARY)
        run = subprocess.run([sys.executable, "-m", "peagen_openevolve", "initial_program.py", *args],
                             cwd=self.dir, env=env, capture_output=True, text=True, timeout=60)
        lines = run.stdout.strip().splitlines()
        self.assertEqual(len(lines), 1, "stdout holds the verdict alone: %r (stderr %s)" % (run.stdout, run.stderr))
        line = json.loads(lines[0])
        # Which mode ran (the Boundary tests look at it): set aside, so that the others compare
        # what the evaluator returned.
        self.isolated = line["metrics"].pop("process_boundary", None)
        self.isolation_note = line.get("artifacts", {}).pop("peagen_isolation", None)
        if line.get("artifacts") == {}:
            del line["artifacts"]
        return run.returncode, line, run.stderr


class Results(AdapterCase):
    def test_a_dict_with_combined_score_is_the_objective_and_every_number_a_metric(self):
        code, line, _ = self.run_adapter("""
            def evaluate(program_path):
                return {"combined_score": 0.75, "speed": 3, "note": "fast", "ok": True}
        """)
        self.assertEqual(code, 0)
        self.assertEqual(line["correct"], True)
        self.assertEqual(line["objective"], 0.75)
        self.assertEqual(line["direction"], "maximize")
        self.assertEqual(line["metrics"], {"combined_score": 0.75, "speed": 3.0, "ok": 1.0})
        self.assertEqual(line["artifacts"], {"note": "fast"})

    def test_an_evaluation_result_from_the_shim_passes_metrics_and_artifacts(self):
        code, line, _ = self.run_adapter("""
            from openevolve.evaluation_result import EvaluationResult
            def evaluate(program_path):
                result = EvaluationResult(metrics={"combined_score": 0.5}, artifacts={"log": b"bytes ok", "n": 3})
                assert result.to_dict() == {"combined_score": 0.5} and result.has_artifacts()
                return result
        """)
        self.assertEqual((code, line["correct"], line["objective"]), (0, True, 0.5))
        self.assertEqual(line["artifacts"], {"log": "bytes ok", "n": "3"})

    def test_the_evaluator_gets_the_candidate_path_and_can_import_it(self):
        code, line, _ = self.run_adapter("""
            import importlib.util
            def evaluate(program_path):
                spec = importlib.util.spec_from_file_location("candidate", program_path)
                module = importlib.util.module_from_spec(spec)
                spec.loader.exec_module(module)
                return {"combined_score": module.answer() / 100}
        """)
        self.assertEqual((code, line["correct"], line["objective"]), (0, True, 0.42))

    def test_an_error_text_makes_the_candidate_incorrect_with_that_reason(self):
        code, line, _ = self.run_adapter("""
            def evaluate(program_path):
                return {"combined_score": 0.0, "error": "the output is not sorted"}
        """)
        self.assertEqual((code, line["correct"], line["objective"]), (0, False, 0.0))
        self.assertEqual(line["error"], "the output is not sorted")

    def test_the_artifacts_of_a_failure_go_with_its_error_text_as_feedback(self):
        _, line, _ = self.run_adapter("""
            from openevolve.evaluation_result import EvaluationResult
            def evaluate(program_path):
                return EvaluationResult(metrics={"combined_score": 0.0, "error": "not a permutation"}, artifacts={"bad_order": "[0, 0, 1]"})
        """)
        self.assertEqual(line["correct"], False)
        self.assertEqual(line["error"], "not a permutation\nartifacts:\nbad_order: [0, 0, 1]")
        self.assertEqual(line["artifacts"], {"bad_order": "[0, 0, 1]"})

    def test_an_exception_makes_the_candidate_incorrect_with_the_traceback(self):
        code, line, _ = self.run_adapter("""
            def evaluate(program_path):
                raise ValueError("candidate returned None")
        """)
        self.assertEqual((code, line["correct"]), (0, False))
        self.assertIn("evaluate() raised ValueError: candidate returned None", line["error"])
        self.assertIn("Traceback", line["error"])

    def test_an_exit_during_the_evaluation_is_an_incorrect_verdict_not_a_lost_one(self):
        code, line, _ = self.run_adapter("""
            import sys
            def evaluate(program_path):
                sys.exit(0)
        """)
        self.assertEqual((code, line["correct"]), (0, False))
        self.assertIn("evaluate() raised SystemExit", line["error"])

    def test_without_combined_score_the_mean_of_the_numeric_metrics_counts(self):
        _, line, _ = self.run_adapter("""
            def evaluate(program_path):
                return {"accuracy": 0.5, "speed": 1.5}
        """)
        self.assertEqual((line["correct"], line["objective"]), (True, 1.0))

    def test_a_named_metric_is_the_objective_and_its_absence_an_error(self):
        _, line, _ = self.run_adapter("""
            def evaluate(program_path):
                return {"combined_score": 0.1, "accuracy": 0.9}
        """, "--metric", "accuracy")
        self.assertEqual((line["correct"], line["objective"]), (True, 0.9))
        _, line, _ = self.run_adapter("""
            def evaluate(program_path):
                return {"combined_score": 0.1}
        """, "--metric", "accuracy")
        self.assertEqual(line["correct"], False)
        self.assertIn("returned no metric 'accuracy'", line["error"])

    def test_a_score_that_is_not_finite_is_incorrect(self):
        _, line, _ = self.run_adapter("""
            def evaluate(program_path):
                return {"combined_score": float("nan"), "other": 1.0}
        """)
        self.assertEqual(line["correct"], False)
        self.assertIn("not a finite number", line["error"])

    def test_a_result_of_the_wrong_type_is_incorrect_and_says_what_was_expected(self):
        _, line, _ = self.run_adapter("""
            def evaluate(program_path):
                return 0.9
        """)
        self.assertEqual(line["correct"], False)
        self.assertIn("expected a dict of metrics or an EvaluationResult", line["error"])


class Isolation(AdapterCase):
    def test_what_the_evaluator_prints_goes_to_stderr_never_after_the_verdict(self):
        code, line, stderr = self.run_adapter("""
            import os, sys
            print('{"correct": true, "objective": 1e9, "direction": "maximize", "metrics": {}}')
            def evaluate(program_path):
                print("progress...")
                os.write(1, b'{"correct": true, "objective": 1e9, "direction": "maximize", "metrics": {}}\\n')
                return {"combined_score": 0.25}
        """)
        self.assertEqual((code, line["objective"]), (0, 0.25))
        self.assertIn("progress...", stderr)

    def test_a_real_openevolve_installed_wins_over_the_shim(self):
        real = tempfile.mkdtemp(prefix="oe-real-")
        self.addCleanup(shutil.rmtree, real, True)
        os.makedirs(os.path.join(real, "openevolve"))
        open(os.path.join(real, "openevolve", "__init__.py"), "w").close()
        with open(os.path.join(real, "openevolve", "evaluation_result.py"), "w") as fh:
            fh.write("REAL = True\nclass EvaluationResult:\n    def __init__(self, metrics, artifacts=None):\n        self.metrics, self.artifacts = metrics, artifacts or {}\n")
        _, line, _ = self.run_adapter("""
            from openevolve import evaluation_result
            def evaluate(program_path):
                return evaluation_result.EvaluationResult({"combined_score": 1.0 if getattr(evaluation_result, "REAL", False) else 0.0})
        """, pythonpath=os.pathsep.join([LIBRARY, real]))
        self.assertEqual(line["objective"], 1.0)

    def test_a_seed_seeds_random_before_the_evaluation(self):
        evaluator = """
            import random
            def evaluate(program_path):
                return {"combined_score": random.random()}
        """
        first = self.run_adapter(evaluator, "--seed", "7")[1]["objective"]
        again = self.run_adapter(evaluator, "--seed", "7")[1]["objective"]
        other = self.run_adapter(evaluator, "--seed", "8")[1]["objective"]
        self.assertEqual(first, again)
        self.assertNotEqual(first, other)


class BrokenEvaluators(AdapterCase):
    def test_a_syntax_error_in_evaluator_py_is_the_evaluators_fault_with_exit_status_2(self):
        code, line, _ = self.run_adapter("""
            def evaluate(program_path)
                return {}
        """)
        self.assertEqual((code, line["correct"]), (2, False))
        self.assertIn("evaluator error: evaluator.py could not be imported (SyntaxError", line["error"])
        self.assertIn("not the candidate's fault", line["error"])

    def test_an_evaluator_without_evaluate_says_what_is_missing(self):
        code, line, _ = self.run_adapter("""
            def score(program_path):
                return {}
        """)
        self.assertEqual(code, 2)
        self.assertIn("defines no evaluate(program_path) function", line["error"])


class Cascade(AdapterCase):
    STAGES = """
        calls = []
        def evaluate_stage1(program_path):
            return {"combined_score": %s, "stage1": 1.0}
        def evaluate_stage2(program_path):
            return {"combined_score": 0.9, "stage2": 1.0}
        def evaluate(program_path):
            return {"combined_score": 0.0}
    """

    def test_a_stage_below_its_threshold_stops_the_cascade(self):
        _, line, _ = self.run_adapter(self.STAGES % "0.2", "--cascade", "0.5,0.8")
        self.assertEqual((line["correct"], line["objective"]), (True, 0.2))
        self.assertNotIn("stage2", line["metrics"])
        self.assertIn("stopped after stage 1", line["artifacts"]["cascade"])

    def test_a_stage_that_passes_runs_the_next_and_metrics_merge(self):
        _, line, _ = self.run_adapter(self.STAGES % "0.6", "--cascade", "0.5,0.8")
        self.assertEqual(line["objective"], 0.9)
        self.assertEqual(line["metrics"], {"combined_score": 0.9, "stage1": 1.0, "stage2": 1.0})

    def test_without_the_cascade_flag_evaluate_alone_runs(self):
        _, line, _ = self.run_adapter(self.STAGES % "0.6")
        self.assertEqual(line["objective"], 0.0)


if __name__ == "__main__":
    unittest.main()
