"""How the candidate meets evaluator.py: through a stand-in, or (when the example cannot be
run that way) imported into the evaluator's process.

The stand-in (peagen_harness.boundary) is a Python file that evaluator.py imports instead of
the candidate: its module-level functions forward each call to the candidate running in its
own locked-down process (peagen_harness.Candidate) and return plain data of exact built-in
types. The candidate's code then never runs in the evaluator's process, so it cannot patch
the evaluator, its clock or its checks, nor reach the channel Peagen's verdict travels on.

Which mode applies is decided by the example, never by the candidate (config.yaml's
`peagen.in_process: true` asks for the in-process mode outright): the reference is the
example's own program (initial_program.py, beside evaluator.py). When the reference's module
can be forwarded (module-level functions and nothing the evaluator reads besides them), every
candidate of the example goes through the stand-in, whatever it defines; a candidate cannot
choose the weaker mode by defining a class. The candidate may import only what the reference
imports (the speed harness's rule).
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Optional

#: A metric in every verdict, named as objective tests name it: 1 when the candidate ran
#: behind the boundary, 0 when it ran in the evaluator's process (then the score is only as
#: trustworthy as the candidate).
BOUNDARY_METRIC = "process_boundary"
#: The artifact that says which mode ran, and why.
ISOLATION_ARTIFACT = "peagen_isolation"

IN_PROCESS_WARNING = (
    "the candidate ran inside evaluator.py's process (OpenEvolve's own way): it could patch the "
    "evaluator, its clock or its checks, so this score is not trustworthy"
)


@dataclass(frozen=True)
class Isolation:
    #: What evaluate() is given: the stand-in's path, or the candidate's own in-process.
    program_path: str
    isolated: bool
    #: Said in the verdict's artifacts and on stderr.
    note: str


def prepare(candidate_path: str, example_dir: str, workdir: str, *, in_process: bool = False,
            seed: Optional[int] = None) -> Isolation:
    """Writes the stand-in for `candidate_path` under `workdir` (a private directory) when the
    example allows it; otherwise says why the candidate runs in the evaluator's process. A
    candidate that does not load (a syntax error, an import outside the reference's) makes
    the stand-in's import fail in evaluator.py, as the candidate's own import would."""
    if in_process:
        return _in_process(candidate_path, "config.yaml asks for it (peagen.in_process: true)")
    try:
        from peagen_harness import boundary  # type: ignore[attr-defined]
    except ImportError as exc:
        return _in_process(candidate_path, "this harness library has no candidate boundary (%s)" % exc)
    reference = os.path.join(example_dir, os.path.basename(candidate_path))
    if not os.path.isfile(reference):
        return _in_process(candidate_path, "there is no reference program %s beside evaluator.py to decide what a candidate may import"
                           % os.path.basename(candidate_path))
    # Under the candidate's own file name: evaluators that look at the name still see it. The
    # plan and the allow-list are the reference's: nothing in the candidate's file decides them.
    os.makedirs(os.path.join(workdir, "standin"), exist_ok=True)
    standin = os.path.join(workdir, "standin", os.path.basename(candidate_path))
    try:
        plan = boundary.write_standin(standin, candidate_path, reference_path=reference, seed=seed)
    except Exception as exc:  # noqa: BLE001 - the example's own program cannot be read: its fault, said as such
        return _in_process(candidate_path, "the reference program %s cannot be planned (%s: %s)"
                           % (os.path.basename(reference), type(exc).__name__, exc))
    if plan.unsupported:
        return _in_process(candidate_path, "the reference program %s needs more than calls to its module-level functions (%s)"
                           % (os.path.basename(reference), "; ".join(plan.unsupported)))
    return Isolation(standin, True, "the candidate ran in its own locked-down process; evaluator.py called its functions (%s) "
                     "through a stand-in and got plain data back" % ", ".join(plan.forwardable))


def _in_process(candidate_path: str, why: str) -> Isolation:
    return Isolation(candidate_path, False, "%s: %s" % (IN_PROCESS_WARNING, why))
