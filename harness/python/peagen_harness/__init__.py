"""peagen_harness: trusted building blocks for evaluators of untrusted Python programs.

    from peagen_harness import Candidate, CandidateFailure, Policy, emit_verdict

    policy = Policy(allowed_imports=frozenset({"math"}))
    problems = policy.check_source(source)                 # static check, helpful messages
    with Candidate(path, "solve", policy, name="candidate") as prog:
        reply = prog.call([3, 1, 2], timeout=2.0)          # one input per call
        # reply.output (plain JSON data), reply.error, reply.mutated, reply.wall_ns, reply.cpu_ns
    emit_verdict(True, 1.5, "maximize", {"speedup": 1.5})

The program runs in its own process (restricted built-ins, import allow-list, audit hook,
stdin/stdout on /dev/null); its time is measured by this process from outside and every
answer is data for the evaluator to check. See examples/README.md in the Peagen repository.
"""
from .candidate import Candidate, CandidateFailure, Reply
from .policy import ALWAYS_BANNED, Policy, imports_of, optional_imports_of, static_check
from .timing import EvaluatorError, Implausible, RoundTiming, Timing, check_plausible, time_interleaved, untimed_charge_ns
from .verdict import EXIT_EVALUATOR_FAILED, EXIT_VERDICT, emit_verdict, run_evaluator, verdict_line

__all__ = [
    "ALWAYS_BANNED", "Candidate", "CandidateFailure", "EXIT_EVALUATOR_FAILED", "EXIT_VERDICT",
    "EvaluatorError", "Implausible", "Policy", "Reply", "RoundTiming", "Timing",
    "check_plausible", "emit_verdict", "imports_of", "optional_imports_of", "run_evaluator", "static_check", "time_interleaved",
    "untimed_charge_ns", "verdict_line",
]
