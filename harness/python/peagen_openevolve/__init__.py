"""peagen_openevolve: runs an evaluator written for OpenEvolve as a Peagen evaluator.

    python3 -m peagen_openevolve PROGRAM [--metric NAME] [--cascade T1,T2,...] [--seed N] [--sealed-verdict]

Run with the example directory as the working directory: it imports that directory's
`evaluator.py`, calls `evaluate(PROGRAM)` (or the `evaluate_stage1/2/3` cascade), and prints
Peagen's verdict line (shared/evaluation.ts, EvaluatorOutputSchema) as the only line of the
real stdout, with `seal` when --sealed-verdict gave it one (daemon/evaluation/verdictSeal.ts):

- objective: the metric named by --metric (default `combined_score`). Without it, OpenEvolve's
  own rule: the mean of the numeric metrics. Direction: maximize.
- metrics: every finite numeric metric; other values become artifacts (as text).
- correct: the evaluation returned, with no `error` text, and the objective is finite. An
  exception or an `error` text makes the candidate incorrect with that text as the reason.
- artifacts: the EvaluationResult's artifacts, as text.

The adapter (__main__.py) is the trusted judge: evaluator.py runs in a worker process
(_worker.py) and imports, instead of the candidate, a stand-in whose functions run it in its
own locked-down process (isolation.py, peagen_harness.boundary); the judge alone prints the
verdict. When the example's initial_program.py cannot be carried by a stand-in, the candidate
runs in the worker, as OpenEvolve runs it, and the verdict says so. This module holds what the
worker does with evaluator.py and what it returns.
"""
from __future__ import annotations

import importlib.util
import math
import os
import sys
import traceback
from typing import Any, Dict, List, Mapping, Optional, Tuple

EVALUATOR_FILE = "evaluator.py"
DEFAULT_METRIC = "combined_score"
#: Exit status when evaluator.py itself cannot be used (as peagen_harness.EXIT_EVALUATOR_FAILED).
EXIT_EVALUATOR_FAILED = 2
#: Characters kept of one artifact, and of an error text: feedback, not a data channel.
TEXT_LIMIT = 8_000

COMPAT_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "compat")


class EvaluatorUnusable(Exception):
    """evaluator.py cannot be loaded or does not have the shape OpenEvolve expects: the
    example's fault, not the candidate's."""


def provide_compat_modules(environ: Optional[Dict[str, str]] = None) -> None:
    """Makes `from openevolve.evaluation_result import EvaluationResult` work: the stand-in
    comes last on sys.path (and on PYTHONPATH for processes the evaluator starts), so a real
    openevolve installed in the environment is preferred."""
    if COMPAT_DIR not in sys.path:
        sys.path.append(COMPAT_DIR)
    env = os.environ if environ is None else environ
    parts = [part for part in env.get("PYTHONPATH", "").split(os.pathsep) if part]
    if COMPAT_DIR not in parts:
        env["PYTHONPATH"] = os.pathsep.join(parts + [COMPAT_DIR])


def load_evaluator(directory: str) -> Any:
    path = os.path.join(directory, EVALUATOR_FILE)
    if not os.path.isfile(path):
        raise EvaluatorUnusable("%s is missing (an OpenEvolve-layout example needs an evaluator.py)" % path)
    if directory not in sys.path:
        sys.path.insert(0, directory)
    spec = importlib.util.spec_from_file_location("evaluator", path)
    if spec is None or spec.loader is None:
        raise EvaluatorUnusable("cannot load %s as a Python module" % path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["evaluator"] = module
    try:
        spec.loader.exec_module(module)
    except BaseException as exc:  # noqa: BLE001 - any failure here is the evaluator's, said as such
        if isinstance(exc, KeyboardInterrupt):
            raise
        raise EvaluatorUnusable(
            "evaluator.py could not be imported (%s: %s); fix evaluator.py, this is not the candidate's fault\n%s"
            % (type(exc).__name__, exc, _tail(traceback.format_exc()))
        ) from exc
    if not callable(getattr(module, "evaluate", None)) and not callable(getattr(module, "evaluate_stage1", None)):
        raise EvaluatorUnusable("evaluator.py defines no evaluate(program_path) function (OpenEvolve's layout needs one)")
    return module


def score_of(metrics: Mapping[str, float], metric: str) -> Optional[float]:
    """The objective: the named metric; for the default name, absent, the mean of the numeric
    metrics (what OpenEvolve ranks by then). None when there is nothing to score."""
    if metric in metrics:
        return metrics[metric]
    if metric == DEFAULT_METRIC and metrics:
        return sum(metrics.values()) / len(metrics)
    return None


def split_result(result: Any) -> Tuple[Dict[str, float], Dict[str, str], Optional[str]]:
    """(numeric metrics, artifacts as text, error text) of what evaluate() returned: a dict or
    an EvaluationResult-like object (`metrics` and optionally `artifacts`)."""
    if isinstance(result, Mapping):
        raw_metrics: Mapping[str, Any] = result
        raw_artifacts: Mapping[str, Any] = {}
    elif isinstance(getattr(result, "metrics", None), Mapping):
        raw_metrics = result.metrics
        raw_artifacts = getattr(result, "artifacts", None) or {}
    else:
        raise TypeError("evaluate() returned %s; expected a dict of metrics or an EvaluationResult" % type(result).__name__)
    metrics: Dict[str, float] = {}
    artifacts: Dict[str, str] = {}
    error: Optional[str] = None
    for key, value in raw_metrics.items():
        name = str(key)
        if name == "error" and isinstance(value, (str, bytes)):
            text = _text(value)
            if text.strip():
                error = text
            continue
        if isinstance(value, (int, float)):
            number = float(value)
            if math.isfinite(number):
                metrics[name] = number
            else:
                artifacts[name] = repr(number)
        elif value is not None:
            artifacts[name] = _text(value)
    if isinstance(raw_artifacts, Mapping):
        for key, value in raw_artifacts.items():
            artifacts[str(key)] = _text(value)
    return metrics, artifacts, error


def run_cascade(module: Any, program_path: str, thresholds: List[float], metric: str) -> Any:
    """OpenEvolve's cascade: stage 1, then each next stage only while the score so far reaches
    that stage's threshold; the metrics of the stages run are merged (later ones win)."""
    stages = [getattr(module, "evaluate_stage%d" % n, None) for n in (1, 2, 3)]
    stages = [stage for stage in stages if callable(stage)]
    if not stages:
        return module.evaluate(program_path)
    merged_metrics: Dict[str, Any] = {}
    merged_artifacts: Dict[str, Any] = {}
    for index, stage in enumerate(stages):
        metrics, artifacts, error = split_result(stage(program_path))
        merged_metrics.update(metrics)
        merged_artifacts.update(artifacts)
        if error is not None:
            merged_metrics["error"] = error
            break
        if index + 1 < len(stages) and index < len(thresholds):
            score = score_of({k: v for k, v in merged_metrics.items() if k != "error"}, metric)
            if score is None or score < thresholds[index]:
                merged_artifacts["cascade"] = "stopped after stage %d: score %s below threshold %s" % (index + 1, score, thresholds[index])
                break
    return _Result(merged_metrics, merged_artifacts)


class _Result:
    def __init__(self, metrics: Dict[str, Any], artifacts: Dict[str, Any]) -> None:
        self.metrics = metrics
        self.artifacts = artifacts


def verdict(module: Any, program_path: str, metric: str = DEFAULT_METRIC, cascade: Optional[List[float]] = None) -> Dict[str, Any]:
    """Evaluates one program and returns Peagen's verdict (a dict ready for json.dumps)."""
    try:
        if cascade is not None:
            result = run_cascade(module, program_path, cascade, metric)
        elif callable(getattr(module, "evaluate", None)):
            result = module.evaluate(program_path)
        else:
            result = run_cascade(module, program_path, [], metric)
        metrics, artifacts, error = split_result(result)
    except (Exception, SystemExit) as exc:  # noqa: BLE001 - often a broken candidate, run in this process
        return _line(False, 0.0, {}, "evaluate() raised %s: %s\n%s" % (type(exc).__name__, exc, _tail(traceback.format_exc(), TEXT_LIMIT // 2)), {})
    if error is not None:
        return _line(False, 0.0, metrics, error, artifacts)
    if metric in artifacts and metric not in metrics:
        return _line(False, 0.0, metrics, "the metric %r is not a finite number (got %s)" % (metric, artifacts[metric]), artifacts)
    score = score_of(metrics, metric)
    if score is None:
        wanted = "metric %r (the objective config.yaml names)" % metric if metric != DEFAULT_METRIC else "numeric metric"
        return _line(False, 0.0, metrics, "evaluate() returned no %s; it returned: %s" % (wanted, ", ".join(sorted(metrics)) or "nothing numeric"), artifacts)
    return _line(True, score, metrics, None, artifacts)


def _line(correct: bool, objective: float, metrics: Dict[str, float], error: Optional[str], artifacts: Dict[str, str]) -> Dict[str, Any]:
    line: Dict[str, Any] = {"correct": correct, "objective": objective if correct else 0.0, "direction": "maximize", "metrics": metrics}
    if error:
        # Peagen tells the model why its child failed from this text: the evaluator's artifacts
        # (a bad output, a stderr) are that feedback in OpenEvolve, so they go with it.
        details = "".join("\n%s: %s" % (key, value) for key, value in artifacts.items())
        line["error"] = _tail(error) + (_text("\nartifacts:" + details) if details else "")
    if artifacts:
        line["artifacts"] = artifacts
    return line


def _text(value: Any) -> str:
    text = value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)
    return text if len(text) <= TEXT_LIMIT else text[:TEXT_LIMIT] + "\n[... %d more characters]" % (len(text) - TEXT_LIMIT)


def _tail(text: str, limit: int = TEXT_LIMIT) -> str:
    return text if len(text) <= limit else "[...]\n" + text[-limit:]
