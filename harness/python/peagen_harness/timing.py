"""Timing a candidate against the pristine reference, call by call, from outside.

Every timed call is paired with echoes of the same input on the same process (the same path
minus the program: parsing, copying, checking and sending the data back): one before it and,
for fresh processes (`echoes_after`, as the scaffolded evaluators use), two after it. The
cheapest echo of the two processes is subtracted from both calls, so a process that slows
down its own echoes gains nothing, and a call that is cheaper than its own echo, or that
used more CPU than wall time allows, is physically impossible and rejected. A net time
counts as no less than what the subtraction resolves: how far the reference's two echoes
after its call differ.

Why echoes after the call: a process's first meetings with a large input pay for memory
(page faults: 1,500 of them, 30 ms of CPU, for 52,000 ints) that later requests reuse, so
an echo before the call can cost more than the call, which does strictly more. Measured on
60,000 ints in fresh processes, echo, call, echo cost 35, 22 and 8 ms of CPU for a
candidate that only sums them: subtracting the first echo left it nothing (it scored
13,000x), subtracting the last left it 14 ms (2x). The echoes after the call run as warm as
the call did, and for fresh processes `warm_echoes` warms the memory before the call too."""
from __future__ import annotations

import functools
import math
import statistics
import time
from dataclasses import dataclass, field
from typing import Any, Callable, List, Optional, Sequence, Tuple

from .candidate import Candidate, CandidateFailure, Reply

# A call may not be cheaper than its own echo by more than this (scheduler and clock noise).
ECHO_SLACK_NS = 200_000
# Measurements of one call (echo and call) before an implausible one condemns the process: a
# burst of load on a busy machine can inflate one echo to twice an honest call (seen in CI: a
# 3.8 ms call after an 8.4 ms echo), while a tampered process is implausible every time.
PLAUSIBILITY_TRIES = 3
# Warming a fresh process (`warm_echoes`): echoes of a timed-size input until one takes no more
# than WARM_FAULTS page faults (cold, 52,000 ints took 1,500, then 1,100, 200 and 0), at least
# WARM_ECHOES_MIN and at most WARM_ECHOES_MAX of them.
WARM_FAULTS = 32
WARM_ECHOES_MIN = 2
WARM_ECHOES_MAX = 6
# CPU time may exceed the wall round trip only by clock granularity, never by a whole CPU.
CPU_OVER_WALL_FACTOR = 1.5
CPU_OVER_WALL_SLACK_NS = 2_000_000
# Work moved out of the timed call is free up to this share of the reference's timed call, or
# up to the spread of the reference's own untimed CPU when starting a process varies more
# than that (a loaded machine: tens of ms beside a 5 ms call).
OUTSIDE_WORK_TOLERANCE = 0.25


class EvaluatorError(Exception):
    """The evaluator itself cannot work (e.g. the reference failed): exit status 2."""


class Implausible(CandidateFailure):
    """A measurement no honest process can produce."""


def check_plausible(call: Reply, echo: Reply, name: str = "candidate", what: str = "the call") -> None:
    """Raises Implausible when `call` cannot be real given `echo` of the same input."""
    if call.cpu_ns > call.wall_ns * CPU_OVER_WALL_FACTOR + CPU_OVER_WALL_SLACK_NS:
        raise Implausible(
            "implausible timing: %s of the %s used %.3f ms of CPU within %.3f ms of wall time "
            "(more than one CPU at once: threads and helper processes are not allowed)"
            % (what, name, call.cpu_ns / 1e6, call.wall_ns / 1e6))
    if call.cpu_ns + ECHO_SLACK_NS < echo.cpu_ns // 2:
        raise Implausible(
            "implausible timing: %s of the %s took %.3f ms of CPU, less than half of the %.3f ms "
            "its process needs merely to receive the same input and send it back; "
            "its process was tampered with" % (what, name, call.cpu_ns / 1e6, echo.cpu_ns / 1e6))


@dataclass
class RoundTiming:
    """Net totals of one round (echo cost subtracted), in ns."""

    candidate_cpu_ns: int = 0
    reference_cpu_ns: int = 0
    candidate_wall_ns: int = 0
    reference_wall_ns: int = 0
    echo_cpu_ns: int = 0
    # What subtracting an echo cannot resolve: how far the reference's own two echoes of the
    # same input after its call differ (both as warm as the call was; the one before it can
    # be colder). The reference's only, so that a candidate cannot widen it by making its
    # own echoes erratic.
    resolution_cpu_ns: int = 0


def median_interval(values: Sequence[float]) -> Optional[Tuple[float, float]]:
    """A distribution-free 95% interval for the median of `values`: the order statistics whose
    ranks a binomial(n, 1/2) gives (medianInterval in harness/js/peagen-harness.js is the same);
    None for fewer than 6 values, which cannot give one."""
    xs = sorted(values)
    n = len(xs)
    k, below = 0, 0  # below: the count of outcomes with B <= k - 1, B ~ binomial(n, 1/2)
    while k < n and 2 * (below + math.comb(n, k)) / 2 ** n <= 0.05:
        below += math.comb(n, k)
        k += 1
    return None if k == 0 else (xs[k - 1], xs[n - k])


@dataclass
class Timing:
    rounds: List[RoundTiming] = field(default_factory=list)
    budget_cut: bool = False
    calls_checked: int = 0

    def summary(self) -> dict:
        """Metrics for the verdict. `speedup` = median over rounds of the paired CPU ratio
        reference/candidate (steadier on a loaded machine than the ratio of medians)."""
        if not self.rounds:
            return {}
        med = statistics.median
        # A net CPU time counts as no less than what the echo subtraction resolves (the rounds'
        # median): below it, a fast call's net time is the noise of passing the data, and its
        # speedup a ratio to nearly nothing (seen: 0.12x and 13,000x for one program).
        floor = max(1_000, med(r.resolution_cpu_ns for r in self.rounds))
        cand = [max(floor, r.candidate_cpu_ns) for r in self.rounds]
        ref = [max(floor, r.reference_cpu_ns) for r in self.rounds]
        cand_wall = [r.candidate_wall_ns for r in self.rounds]
        ref_wall = [r.reference_wall_ns for r in self.rounds]
        interval = median_interval([r / c for r, c in zip(ref, cand)])
        return {
            "speedup": round(med(r / c for r, c in zip(ref, cand)), 4),
            # How far the speedup could be from this one by the rounds' spread alone.
            **({"speedup_low": round(interval[0], 4), "speedup_high": round(interval[1], 4)} if interval else {}),
            "speedup_of_medians": round(med(ref) / med(cand), 4),
            "resolution_ms": round(floor / 1e6, 4),
            "candidate_ms": round(med(cand) / 1e6, 4),
            "reference_ms": round(med(ref) / 1e6, 4),
            "candidate_ms_min": round(min(cand) / 1e6, 4),
            "reference_ms_min": round(min(ref) / 1e6, 4),
            "candidate_wall_ms": round(med(cand_wall) / 1e6, 4),
            "reference_wall_ms": round(med(ref_wall) / 1e6, 4),
            "speedup_wall": round(med(ref_wall) / max(1_000, med(cand_wall)), 4),
            "echo_ms": round(med(r.echo_cpu_ns for r in self.rounds) / 1e6, 4),
            "repeats": len(self.rounds),
        }


Check = Callable[[Tuple[Any, ...], Reply], Optional[str]]


def _minor_faults(program: Candidate) -> Optional[int]:
    """Minor page faults of the program's process so far (Linux's /proc), None when unknown."""
    try:
        with open("/proc/%d/stat" % program.pid, "rb") as fh:
            return int(fh.read().rsplit(b")", 1)[1].split()[7])
    except (OSError, ValueError, IndexError):
        return None


def _cheaper(a: Reply, b: Reply) -> Reply:
    """The lower CPU and the lower wall time of two echoes of the same input."""
    return Reply(output=None, error=None, mutated=False,
                 wall_ns=min(a.wall_ns, b.wall_ns), cpu_ns=min(a.cpu_ns, b.cpu_ns))


def _net(call: Reply, echo_a: Reply, echo_b: Reply) -> Tuple[int, int, int]:
    echo_cpu = min(echo_a.cpu_ns, echo_b.cpu_ns)
    echo_wall = min(echo_a.wall_ns, echo_b.wall_ns)
    return max(0, call.cpu_ns - echo_cpu), max(0, call.wall_ns - echo_wall), echo_cpu


def time_interleaved(candidate: Candidate, reference: Candidate,
                     repeats: int, round_inputs: Callable[[int], Sequence[Tuple[Any, ...]]], *,
                     check: Check, timeout: Callable[[Tuple[Any, ...]], float],
                     warmup: Sequence[Tuple[Any, ...]] = (),
                     budget_s: Optional[float] = None, started: Optional[float] = None,
                     reference_timeout_factor: float = 3.0,
                     echo_returns_input: bool = True, order_offset: int = 0,
                     warm_echoes: Sequence[Tuple[Any, ...]] = (), echoes_after: int = 0) -> Timing:
    """Times both programs on the same inputs, interleaved call by call (alternating who goes
    first), after an untimed warm-up, for `repeats` rounds. The reference goes first where
    round + input + `order_offset` is even: an evaluator that times one input per call of
    this function (fresh processes every round) passes its round number, so the order still
    alternates. `round_inputs(r)` gives round r's argument tuples: draw fresh data for every
    round, so caching across calls gains nothing. `check(args, reply)` returns None for a
    correct answer, else the fault: every timed answer is checked (a wrong candidate answer
    raises CandidateFailure, a wrong reference answer EvaluatorError). With `budget_s`,
    rounds stop when the next would not fit (counted from `started`, a time.monotonic()
    value). `echo_returns_input`: True when the program's
    result is about as large as its first argument (sorting, transforming), False when it
    is small (a number): the echo then returns None, so it is not dearer than a real call.
    `warm_echoes`: for fresh processes, inputs like the timed ones (never a timed one) that
    each process echoes, untimed and never called, after the warm-up until its memory is warm
    (WARM_ECHOES_MIN to WARM_ECHOES_MAX times, as many for both). `echoes_after`: 2 to echo
    each timed input twice after its call too, as fresh processes need (the cheapest echo is
    subtracted, and the reference's two after its call give the resolution floor); 0 for
    processes that live through the evaluation, whose echo before the call is warm."""
    started = time.monotonic() if started is None else started
    timing = Timing()

    def run(program: Candidate, args: Tuple[Any, ...], label: str) -> Tuple[Reply, Reply, Tuple[Reply, ...]]:
        """The checked reply, the echo before it and the `echoes_after` after it."""
        is_ref = program is reference
        limit = timeout(args) * (reference_timeout_factor if is_ref else 1.0)
        for attempt in range(1, PLAUSIBILITY_TRIES + 1):
            try:
                before = program.echo(*args, timeout=limit, returns_input=echo_returns_input)
                reply = program.call(*args, timeout=limit)
                after = tuple(program.echo(*args, timeout=limit, returns_input=echo_returns_input)
                              for _ in range(echoes_after))
            except CandidateFailure as exc:
                if is_ref:
                    raise EvaluatorError("the reference failed: %s" % exc) from exc
                raise
            fault = check(args, reply)
            if fault:
                if is_ref:
                    raise EvaluatorError("the reference gave a wrong answer: %s: %s" % (label, fault))
                raise CandidateFailure("%s: %s" % (label, fault))
            # The subtraction takes the cheaper echo; the plausibility check the one before the
            # call, so that work done in it (by a process that hooks the echo) is caught.
            if is_ref:
                return reply, before, after
            timing.calls_checked += 1
            try:
                check_plausible(reply, before, candidate.name, label)
                return reply, before, after
            except Implausible:
                if attempt == PLAUSIBILITY_TRIES:
                    raise
        raise AssertionError("unreachable")

    def warm(program: Candidate, args: Tuple[Any, ...], at_least: int, at_most: int) -> int:
        """Echoes `args` until the process's memory is warm; returns how many it took."""
        done = 0
        while done < at_most:
            faults = _minor_faults(program)
            try:
                program.echo(*args, timeout=timeout(args), returns_input=echo_returns_input)
            except CandidateFailure as exc:
                if program is reference:
                    raise EvaluatorError("the reference failed: %s" % exc) from exc
                raise
            done += 1
            after = _minor_faults(program)
            if done >= at_least and (faults is None or after is None or after - faults <= WARM_FAULTS):
                break
        return done

    for j, args in enumerate(warmup):
        run(reference, args, "warm-up input %d" % j)
        run(candidate, args, "warm-up input %d" % j)
    # After the warm-up, not before it: one small request after large ones gives their memory
    # back, and the next large echo is as cold as the first (measured: 19 ms, not 10). Both
    # processes get as many echoes as the colder needed, so that their CPU outside the timed
    # calls (compared by untimed_charge_ns) stays alike.
    for args in warm_echoes:
        took = {id(p): warm(p, args, WARM_ECHOES_MIN, WARM_ECHOES_MAX) for p in (reference, candidate)}
        most = max(took.values())
        for program in (reference, candidate):
            if took[id(program)] < most:
                more = most - took[id(program)]
                warm(program, args, more, more)
    for r in range(repeats):
        batch = round_inputs(r)
        total = RoundTiming()
        for j, args in enumerate(batch):
            label = "timing round %d input %d" % (r, j)
            order = (reference, candidate) if (r + j + order_offset) % 2 == 0 else (candidate, reference)
            results = {id(p): run(p, args, label) for p in order}
            cand_reply, cand_before, cand_after = results[id(candidate)]
            ref_reply, ref_before, ref_after = results[id(reference)]
            cand_echo = functools.reduce(_cheaper, cand_after, cand_before)
            ref_echo = functools.reduce(_cheaper, ref_after, ref_before)
            c_cpu, c_wall, echo_cpu = _net(cand_reply, cand_echo, ref_echo)
            r_cpu, r_wall, _ = _net(ref_reply, cand_echo, ref_echo)
            total.candidate_cpu_ns += c_cpu
            total.candidate_wall_ns += c_wall
            total.reference_cpu_ns += r_cpu
            total.reference_wall_ns += r_wall
            total.echo_cpu_ns += echo_cpu
            if len(ref_after) >= 2:
                total.resolution_cpu_ns += abs(ref_after[0].cpu_ns - ref_after[1].cpu_ns)
        if total.reference_cpu_ns <= 0:
            raise EvaluatorError("the reference's calls took no measurable CPU time beyond passing "
                                 "the data (%.3f ms per round): use larger timing inputs"
                                 % (total.echo_cpu_ns / 1e6))
        timing.rounds.append(total)
        if budget_s is not None and r + 1 < repeats:
            next_round = (total.candidate_wall_ns + total.reference_wall_ns) / 1e9 + 0.05
            if time.monotonic() - started + next_round > budget_s:
                timing.budget_cut = True
                break
    return timing


def untimed_charge_ns(candidate_outside_ns: Sequence[float], reference_outside_ns: Sequence[float],
                      reference_timed_ns: float) -> float:
    """CPU to charge to the candidate's timed call for work done outside it (loading, warm-up),
    from fresh processes' CPU beyond their timed calls, one value per round: the candidate's
    median beyond the reference's, less what the measurement cannot tell apart.

    The median, because the speedup is a median over rounds: a candidate that precomputes in
    most rounds (and skips it in a few, to look cheap) is charged. The allowance is the larger
    of a share of the reference's timed call and the spread (max - min) of the reference's own
    untimed CPU: a process start costs 70-100 ms on a loaded two-core machine (one that starts
    beside another on the same core runs 25% slower), beside a timed call of 5 ms, and
    charging that noise made an unchanged program score 0.25x. Only the reference's spread
    counts, so a candidate cannot widen the allowance by making its own loading erratic."""
    spread = max(reference_outside_ns) - min(reference_outside_ns)
    allowance = max(OUTSIDE_WORK_TOLERANCE * reference_timed_ns, spread)
    return max(0.0, statistics.median(candidate_outside_ns) - statistics.median(reference_outside_ns) - allowance)
