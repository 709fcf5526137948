/**
 * The Python evaluator the scaffold writes (placeholders __FUNCTION__, __PROGRAM__, __REFERENCE__,
 * __TESTS__, __PROJECT__, __PROJECT_PROGRAM__, __OBJECTIVE__ are JSON literals, see
 * {@link EvaluatorSettings} in scaffoldExample.ts). It is built on peagen_harness exactly as examples/bad_sort is: the
 * candidate never runs in the evaluator's process, every answer is compared with the pristine
 * reference's, and time is measured from outside the candidate's process.
 */
export const PYTHON_EVALUATOR = String.raw`#!/usr/bin/env python3
"""Evaluator scaffolded by Peagen for __FUNCTION__ in __PROGRAM__: REVIEW IT before evolving.

usage: python3 peagen_evaluate.py <candidate.py> [--seed N] [--quick]
Prints one JSON line last: {"correct", "objective", "direction", "metrics", "error"}; exit
status 0 for every verdict about the candidate, 2 when the evaluator itself cannot work.

Built on Peagen's evaluation harness (peagen_harness, as examples/bad_sort/evaluate.py), because
evolution optimises whatever this file rewards and the candidates are written by a model:
  1. Static check of the candidate (peagen_harness.Policy): imports only of modules the original
     program imports; no eval/exec/getattr/open/dunder tricks (unless the original uses them).
  2. Correctness: the candidate runs in its own sandboxed process (peagen_harness.Candidate) and
     gets one input per call; each answer must equal the answer of the pristine reference
     (__REFERENCE__, next to this file), in its own process too; an exception is an answer (its
     class's name). The inputs: the calls the project's tests made (peagen_inputs.json,
     captured by peagen init --tests), then inputs of the same kinds drawn from --seed.
  3. The project's tests: TESTS (a shell command) in a copy of the project's files (PROJECT, a
     copy made by peagen init) with the candidate in place of PROJECT_PROGRAM, behind a stand-in
     (the original module, its evolved function forwarded to the candidate in its own process:
     peagen_harness.project_tests); without TESTS, pytest in a copy of this directory when it
     has tests. A failing test rejects it. After the answers: a candidate that hangs fails
     there in seconds, where each of the tests' calls could wait a minute.
  4. Timing: every round starts a FRESH candidate and reference process, warms both up on a
     small input, then times ONE call on a fresh input drawn from the OS's randomness (so no
     cache or precomputed table can know it), checked as well. A function too quick to time one
     call at a time (or whose larger inputs it refuses) is timed on a batch of distinct valid
     calls instead: variations of the valid inputs seen, kept when the reference accepts them. The time is the child's CPU
     time measured from here (peagen_harness.time_interleaved), never what the child says. CPU
     the candidate's process spends beyond the reference's outside the timed call (loading,
     warm-up: precomputation) is charged to its timed call.
     objective = median over rounds of reference CPU / candidate CPU ("speedup").
     With OBJECTIVE "score" there is no timing and no comparison: the function's answer must be
     a finite number, and objective = the mean of its answers over the inputs ("score"; the
     candidate writes the function that returns it, so keep what computes the score outside
     the EVOLVE-BLOCK, e.g. evolve the function a scorer calls).
Edit sample_args() to time the function on realistic inputs, and POLICY for what it may use.
"""
from __future__ import annotations

import argparse
import ast
import json
import math
import os
import random
import re
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
FUNCTION = __FUNCTION__
PROGRAM = __PROGRAM__
REFERENCE = os.path.join(HERE, __REFERENCE__)
TESTS = __TESTS__  # the project's test command, or None
PROJECT = __PROJECT__  # the copy of the project's files the tests run in (relative to HERE), or None
PROJECT_PROGRAM = __PROJECT_PROGRAM__  # where the program lives in that copy
OBJECTIVE = __OBJECTIVE__  # "speed" or "score"
INPUTS = os.path.join(HERE, "peagen_inputs.json")  # captured calls: {"source", "calls": [[arg, ...], ...]}
DIRECTION = "maximize"
ENTRY = "peagen_entry"  # appended below the program: turns tuples and sets into lists
BATCH_ENTRY = "peagen_batch"  # the same over a list of calls: timing a function too quick to time one call at a time
VALID_ENTRY = "peagen_valid"  # which of a list of calls the reference answers without raising (untimed)
BATCH_POOL = 50000  # distinct valid calls a batch is drawn from at most
VALID_CHUNK = 5000  # variations the reference checks at a time while a batch's pool is drawn
SMALL_CALL_CHARS = 1000  # the largest call (as JSON) a batch is drawn from, beside the smallest valid one
# A drawn input (not one of the tests' calls) is kept only when the original answers it within
# these: one it cannot finish says nothing of a candidate (see vetted()).
VETTING_SECONDS = 3.0
VETTING_MEMORY_MB = 256


def _harness():
    try:
        import peagen_harness  # on PYTHONPATH in every Peagen sandbox
        return peagen_harness
    except ImportError:
        pass
    lib = os.environ.get("PEAGEN_HARNESS_LIB")
    if lib:
        sys.path.insert(0, os.path.join(lib, "python"))
        import peagen_harness
        return peagen_harness
    print(json.dumps({"correct": False, "objective": 0.0, "direction": DIRECTION, "metrics": {},
                      "error": "evaluator error: peagen_harness is not importable: run this evaluator through "
                               "Peagen, or set PYTHONPATH=<peagen>/harness/python"}))
    sys.exit(2)


harness = _harness()

WRAPPER = '''


def _peagen_wrappers(_builtins, fn, positional, keywords):
    # Everything bound here, at load, from the restricted built-ins and the function object: a
    # candidate that rebinds a global name (peagen_plain, isinstance, its own function) on a call
    # changes nothing the timed entries use.
    isinstance, tuple, list, set, frozenset, dict, str, sorted, repr, Exception = (
        _builtins[name] for name in ("isinstance", "tuple", "list", "set", "frozenset", "dict", "str", "sorted", "repr",
                                     "Exception"))
    generator = _builtins["type"]((lambda: (yield))())

    def plain(value):
        # A generator's work is done as it is read (braceexpand): read here, inside the timed call.
        if isinstance(value, generator):
            value = list(value)
        if isinstance(value, (tuple, list)):
            return [plain(item) for item in value]
        if isinstance(value, (set, frozenset)):
            return sorted((plain(item) for item in value), key=repr)
        if isinstance(value, dict):
            return {(key if isinstance(key, str) else repr(key)): plain(item) for key, item in value.items()}
        return value

    def call(args):
        # A call gives the keyword-only parameters last, after every positional one (how the
        # tests' calls were recorded: tomli-w's format_string(s, *, allow_multiline)).
        if keywords and len(args) > positional:
            return fn(*args[:positional], **dict(zip(keywords, args[positional:])))
        return fn(*args)

    def entry(*args):
        return plain(call(args))

    def batch(calls):
        return [plain(call(each)) for each in calls]

    def valid(calls):
        answers = []
        for each in calls:
            try:
                plain(call(each))
                answers.append(True)
            except Exception:
                answers.append(False)
        return answers

    return entry, batch, valid


peagen_entry, peagen_batch, peagen_valid = _peagen_wrappers(__builtins__, %s, %d, %r)
'''


def read(path):
    with open(path, "r", encoding="utf-8") as fh:
        return fh.read()


REFERENCE_SOURCE = read(REFERENCE)


def calling_convention(source):
    """How many positional parameters FUNCTION has, and the names of its keyword-only ones."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == FUNCTION:
            return len(node.args.posonlyargs + node.args.args), [p.arg for p in node.args.kwonlyargs]
    return 0, []


WRAPPER = WRAPPER % ((FUNCTION,) + calling_convention(REFERENCE_SOURCE))


def package_of_program():
    """The user's package the program belongs to (its relative imports resolve there, in the
    project's copy), and the folder it is imported from; (None, None) outside a package."""
    if PROJECT is None:
        return None, None
    from peagen_harness.project_tests import python_package
    package, root = python_package(os.path.join(HERE, PROJECT), PROJECT_PROGRAM)
    return (package, root) if package else (None, None)


PACKAGE, PACKAGE_ROOT = package_of_program()
# The candidate may import what the original program imports (its relative imports included), nothing else.
# optional_imports: what the original runs without stays missing for every program (see harness.Policy).
POLICY = harness.Policy(allowed_imports=harness.imports_of(REFERENCE_SOURCE, PACKAGE, PACKAGE_ROOT), package=PACKAGE,
                        optional_imports=harness.optional_imports_of(REFERENCE_SOURCE))


def parameter_kinds(source):
    """What each required parameter of FUNCTION takes, guessed from its annotation: edit to taste."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == FUNCTION:
            params = node.args.posonlyargs + node.args.args
            required = params[:len(params) - len(node.args.defaults)]
            # Then the keyword-only ones without a default, which a call gives last (WRAPPER).
            required += [p for p, default in zip(node.args.kwonlyargs, node.args.kw_defaults) if default is None]
            kinds = []
            for p in required:
                kind = ast.unparse(p.annotation) if p.annotation is not None else ""
                listed = re.fullmatch(r"(?:typing\.)?(?:list|List|Sequence|Iterable)\[(\w+)\]", kind.replace(" ", ""))
                if listed and listed.group(1) == "str":
                    kinds.append("strs")
                elif listed and listed.group(1) == "float":
                    kinds.append("floats")
                elif kind == "bool":
                    kinds.append("bool")
                elif re.fullmatch(r"(?:typing\.)?(?:bytes|bytearray|ByteString|memoryview)", kind.replace(" ", "")):
                    kinds.append("bytes")
                elif "str" in kind and "list" not in kind.lower():
                    kinds.append("str")
                elif "float" in kind and "list" not in kind.lower():
                    kinds.append("float")
                elif "int" in kind and "list" not in kind.lower():
                    kinds.append("int")
                else:
                    kinds.append("list")
            return kinds
    raise harness.EvaluatorError("%s() is not defined at the top level of %s" % (FUNCTION, REFERENCE))


def captured_calls():
    """The arguments of the calls the project's tests made and what the original answered then
    (recorded by peagen init; an answer is {"value": ...} or None when not recorded)."""
    if not os.path.exists(INPUTS):
        return [], []
    with open(INPUTS, "r", encoding="utf-8") as fh:
        data = json.load(fh)
    from peagen_harness._child import from_wire  # (harness made it importable above)

    def arguments(call):
        # Plain JSON, or {"$wire": [...]}: arguments JSON cannot say (bytes, tuples), in the
        # process-boundary form, the way the tests passed them.
        return tuple(from_wire(call["$wire"]) if isinstance(call, dict) and "$wire" in call else call)
    calls = [arguments(call) for call in data.get("calls", [])]
    return calls, data.get("answers") or [None] * len(calls)


def call_key(call):
    """A call's text, to tell calls apart (and size them): JSON, or the process-boundary form
    of arguments JSON cannot say."""
    try:
        return json.dumps(call, sort_keys=True)
    except (TypeError, ValueError):
        from peagen_harness._child import wire_json
        return wire_json(list(call))


def kind_of(value):
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "str"
    if isinstance(value, (bytes, bytearray)):
        return "bytes"
    if isinstance(value, list) and value and all(isinstance(item, str) for item in value):
        return "strs"
    if isinstance(value, list) and all(isinstance(item, (int, float)) and not isinstance(item, bool) for item in value):
        return "floats" if any(isinstance(item, float) for item in value) else "list"
    return None


def is_ascending(value):
    """Whether a list is in ascending order (False where its items do not compare)."""
    try:
        return all(a <= b for a, b in zip(value, value[1:]))
    except TypeError:
        return False


def captured_kinds(calls, fallback):
    """The kinds the tests' calls show, else the fallback: of the calls of the commonest
    arity, each argument's commonest kind (a test of coercion that passes True where the
    others pass strings does not make the function's input a boolean). A list kind becomes "sorted " + kind when every list the tests passed there is in
    ascending order and one has 3 or more items: a function given sorted data (a merge, a
    search, a check of order) does its real work only on sorted data, and random lists would
    time its quickest way out."""
    if not calls:
        return fallback
    arities = [len(call) for call in calls]
    arity = max(set(arities), key=arities.count)
    same = [call for call in calls if len(call) == arity]
    kinds = []
    for at in range(arity):
        column_kinds = [kind_of(call[at]) for call in same]
        kinds.append(max(column_kinds, key=column_kinds.count))  # the first of the commonest
    if None in kinds:
        return fallback
    for at, kind in enumerate(kinds):
        column = [call[at] for call in same]
        if kind in ("list", "floats", "strs") and all(kind_of(v) == kind or v == [] for v in column) \
                and max(len(v) for v in column) >= 3 and all(is_ascending(v) for v in column):
            kinds[at] = "sorted " + kind
    return kinds


CALLS, ANSWERS = captured_calls()
KINDS = captured_kinds(CALLS, parameter_kinds(REFERENCE_SOURCE))


def sample_args(rng, size, timed=False):
    """Arguments of one call (JSON data) of about size elements: edit to taste."""
    args = []
    for kind in KINDS:
        if kind.startswith("sorted "):
            # Sorted for timing; half the time for correctness, so that the answers vary.
            drawn = sample_one(rng, kind[len("sorted "):], size, timed)
            args.append(sorted(drawn) if timed or rng.random() < 0.5 else drawn)
        else:
            args.append(sample_one(rng, kind, size, timed))
    return tuple(args)


def sample_one(rng, kind, size, timed):
    """One argument of kind, of about size elements."""
    if kind == "str":
        return "".join(rng.choice("abcdefgh") for _ in range(size))
    if kind == "float":
        return rng.uniform(-1000, 1000)
    if kind == "bytes":
        return rng.getrandbits(8 * size).to_bytes(size, "little") if size else b""
    if kind == "bool":
        return rng.random() < 0.5
    if kind == "strs":
        return ["".join(rng.choice("abcd") for _ in range(rng.randint(1, 4))) for _ in range(size)]
    if kind == "floats":
        return [rng.uniform(-1000, 1000) for _ in range(size)]
    if kind == "int":
        return size - rng.randint(0, 2) if timed else min(size, rng.randint(0, 20))
    return [rng.randint(-10**6, 10**6) for _ in range(size)]


def vary_calls(rng, calls, count):
    """count calls like calls (of their commonest arity), each with one argument varied
    within what those calls show: an int or float in their range, a string edited with their
    characters, a list of their elements, a record with one numeric field in its range; any
    other value is one of theirs."""
    arities = [len(call) for call in calls]
    arity = max(set(arities), key=arities.count)
    same = [list(call) for call in calls if len(call) == arity]
    if not same or arity == 0:
        return []
    columns = [[call[i] for call in same] for i in range(arity)]

    def summary(column):
        """What a column of values allows, computed once: (kind, range or alphabet, pool)."""
        if all(type(v) is int for v in column):
            return ("int", (min(column), max(column)), None)
        if all(type(v) in (int, float) for v in column):
            return ("float", (min(column), max(column)), None)
        texts = [v for v in column if type(v) is str]
        if texts:
            return ("str", "".join(sorted(set("".join(texts)))) or "a", texts)
        lists = [v for v in column if type(v) is list]
        elements = [item for v in lists for item in v]
        if elements:
            return ("list", elements, lists)
        # Records ({"h": 120, "s": 98.8}): each numeric field within the range the calls show.
        records = [v for v in column if type(v) is dict]
        fields = {}
        for record in records:
            for key, value in record.items():
                if type(value) in (int, float) and math.isfinite(value):
                    lo, hi, integer = fields.get(key, (value, value, True))
                    fields[key] = (min(lo, value), max(hi, value), integer and type(value) is int)
        if fields:
            return ("record", sorted(fields.items()), records)
        return ("other", None, column)

    summaries = [summary(column) for column in columns]

    def vary(value, at):
        kind, info, pool = summaries[at]
        if kind == "int":
            return rng.randint(*info)
        if kind == "float":
            return rng.uniform(*info)
        if kind == "str" and type(value) is str:
            text = list(rng.choice(pool))
            longest = max(len(t) for t in pool)  # never longer than the tests' longest (a range's end grown from "1" to "19999")
            for _ in range(rng.randint(1, 3)):
                where = rng.randint(0, len(text))
                move = rng.random()
                if (move < 0.4 or not text) and len(text) >= longest:
                    continue
                if move < 0.4 or not text:
                    text.insert(where, rng.choice(info))
                elif move < 0.7:
                    del text[min(where, len(text) - 1)]
                else:
                    text[min(where, len(text) - 1)] = rng.choice(info)
            return "".join(text)
        if kind == "record":
            record = dict(rng.choice(pool))
            key, (lo, hi, integer) = rng.choice(info)
            record[key] = rng.randint(lo, hi) if integer else rng.uniform(lo, hi)
            return record
        if kind == "list" and type(value) is list:
            drawn = [rng.choice(info) for _ in range(len(rng.choice(pool)))]
            # Sorted like theirs when all of theirs are, half the time (see captured_kinds).
            ordered = all(is_ascending(v) for v in pool) and max(map(len, pool)) >= 3
            return sorted(drawn) if ordered and rng.random() < 0.5 else drawn
        return rng.choice(columns[at])

    out = []
    for _ in range(count):
        call = list(rng.choice(same))
        at = rng.randrange(arity)
        call[at] = vary(call[at], at)
        out.append(call)
    return out


def has_tests(root):
    for dirpath, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in ("node_modules", "__pycache__", ".peagen", ".git")]
        if any((f.startswith("test_") or f.endswith("_test.py")) and f.endswith(".py") for f in files):
            return True
    return False


def project_tests(candidate, work):
    """The project's tests with the candidate behind the process boundary (docs/trust.md: the
    tests import a stand-in that forwards each call to the candidate in its own locked-down
    process): a run, passed when run.passed == run.total, or None when the project has none.
    The tests init listed (peagen_tests.json) decide: each expected one must pass, the left-out
    ones count neither way (peagen_harness.project_tests.tests_gate)."""
    from peagen_harness.project_tests import is_original_text, run_project_tests, tests_gate
    if TESTS is not None:
        # is_original: init's check of the seed, which also learns what to list.
        return tests_gate(TESTS, os.path.join(HERE, PROJECT), PROJECT_PROGRAM, candidate, example_dir=HERE,
                          evolved=[FUNCTION], is_original=is_original_text(read(candidate), REFERENCE_SOURCE))
    try:
        import pytest  # noqa: F401
    except ImportError:
        return None
    if not has_tests(HERE):
        return None
    return run_project_tests(shlex.quote(sys.executable) + " -m pytest -q -x -p no:cacheprovider", HERE, PROGRAM,
                             candidate, evolved=[FUNCTION])


def show(reply):
    return ("raised " + reply.error) if reply.error is not None else repr(reply.output)[:200]


def differs(got, expected):
    """Why the answer got is not the reference's answer expected, or None."""
    if expected.error is not None:
        same = got.error is not None and got.error.split(":")[0] == expected.error.split(":")[0]
        return None if same else "%s, the reference %s" % (show(got), show(expected))
    if got.error is not None or call_key([got.output]) != call_key([expected.output]):
        return "%s, the reference %s" % (show(got), show(expected))
    if got.mutated != expected.mutated:
        return "%s its arguments, the reference %s" % (("modified" if got.mutated else "left"),
                                                       ("modified them" if expected.mutated else "did not"))
    return None


def score(cand, inputs, metrics):
    """OBJECTIVE "score": the mean of the numbers the function answers on the inputs the reference
    accepts (no answer to match: the score is what evolves)."""
    if not inputs:
        raise harness.EvaluatorError("the reference raised on every input: edit sample_args()")
    scores = []
    for label, call_args in inputs:
        reply = cand.call(*call_args, timeout=60)
        metrics["inputs_checked"] += 1
        value = reply.output
        if reply.error is not None:
            raise harness.CandidateFailure("%s raised %s" % (label, reply.error))
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value or value in (float("inf"), float("-inf")):
            raise harness.CandidateFailure("%s answered %s: a score must be a finite number" % (label, show(reply)))
        scores.append(float(value))
    metrics["score"] = round(statistics.fmean(scores), 9)
    metrics["score_inputs"] = len(scores)
    return metrics["score"]


def cpu_ns(program):
    """CPU time of the program's whole process so far, read by Linux from outside it."""
    return time.clock_gettime_ns(((~program.pid) << 3) | 2)


def evaluate(args, metrics, started, learned):
    """The candidate's objective; learned gets the seed's original_passed_tests (init lists them)."""
    quick = args.quick
    source = read(args.candidate)
    tolerated = {p.split(": ", 1)[-1] for p in POLICY.check_source(REFERENCE_SOURCE)}
    problems = [p for p in POLICY.check_source(source) if p.split(": ", 1)[-1] not in tolerated]
    if problems:
        raise harness.CandidateFailure("rejected by the static check: " + "; ".join(problems[:5]))
    work = tempfile.mkdtemp(prefix="peagen-eval-")
    programs = []
    try:
        def tests_gate():
            run = project_tests(args.candidate, work)
            if run is None:
                return
            if run.passed < run.total:
                raise harness.CandidateFailure(run.failure_text()[-3000:], run.failed_ids, run.original_passed)
            learned["original_passed_tests"] = run.original_passed

        candidate_file = os.path.join(work, "candidate.py")
        reference_file = os.path.join(work, "reference.py")
        with open(candidate_file, "w", encoding="utf-8") as fh:
            fh.write(source + WRAPPER)
        with open(reference_file, "w", encoding="utf-8") as fh:
            fh.write(REFERENCE_SOURCE + WRAPPER)

        def start(path, name, entry=ENTRY, memory_mb=None):
            try:
                # wire_answers: a date, a Decimal or an instance of the user's classes (by its state) is an answer too.
                program = harness.Candidate(path, entry, POLICY, load_timeout=30, name=name,
                                            import_paths=[PACKAGE_ROOT] if PACKAGE_ROOT else [], wire_answers=True,
                                            memory_mb=memory_mb)
            except harness.CandidateFailure as exc:
                if name == "candidate":
                    raise
                raise harness.EvaluatorError("the reference could not start: %s" % exc) from exc
            programs.append(program)
            return program

        def expect(oracle, call_args, timeout=120):
            try:
                reply = oracle.call(*call_args, timeout=timeout)
            except harness.CandidateFailure as exc:
                raise harness.EvaluatorError("the reference failed: %s" % exc) from exc
            missing = re.search(r"NameError: name '(\w+)' is not defined", reply.error or "")
            if missing and missing.group(1) in harness.ALWAYS_BANNED:
                # The original itself needs what no candidate's process is given (dynamic imports, globals()).
                raise harness.EvaluatorError(
                    "your %s() uses %s(), which the locked-down process every candidate (and the original) runs in "
                    "does not have (docs/trust.md): evolve a function that does not need it (one it calls, say), "
                    "or write the evaluator by hand" % (FUNCTION, missing.group(1)))
            return reply

        def expect_timed(oracle, call_args, what, timeout=120):
            # A timed call must do the work: an input on which the reference raises would
            # reward any candidate that raises the same error at once.
            reply = expect(oracle, call_args, timeout)
            if reply.error is not None:
                raise harness.EvaluatorError("the reference raised on %s (%s): edit sample_args() so that timed inputs are valid" % (what, show(reply)))
            return reply

        def draw_timed(trng, size, batch):
            """One timed call's arguments: an input of size, or a batch of distinct valid calls
            (distinct: a candidate that remembers its answers gains nothing within a batch)."""
            if not batch:
                return sample_args(trng, size, timed=True)
            return ([list(call) for call in trng.sample(pool, min(batch, len(pool)))],)

        def valid_pool(trng, want):
            """Distinct calls the reference answers without raising: the valid inputs seen so
            far and variations of them (a number within their range, a string edited with
            their characters, a list of their elements), kept when the reference accepts them."""
            # Small calls only: a batch is for calls too quick to time one at a time, and
            # variations of a test's 70,000-character input, thousands of them, would fill the memory.
            sized = sorted(((call_key(call), list(call)) for call in valid), key=lambda item: len(item[0]))
            found = dict(item for i, item in enumerate(sized) if i == 0 or len(item[0]) <= SMALL_CALL_CHARS)
            checker = start(reference_file, "reference", VALID_ENTRY, memory_mb=VETTING_MEMORY_MB)
            # A few seconds at most, in chunks: when most variations are invalid (isodate's
            # durations, edited at random), checking 100,000 of them a round took two minutes.
            deadline = time.monotonic() + (4.0 if quick else 8.0)
            try:
                for _ in range(64):
                    if len(found) >= want or time.monotonic() > deadline:
                        break
                    fresh = {}
                    for call in vary_calls(trng, list(found.values()), min(2 * want, VALID_CHUNK)):
                        fresh.setdefault(call_key(call), call)
                    fresh = [call for key, call in fresh.items() if key not in found]
                    try:
                        reply = checker.call(fresh, timeout=max(1.0, deadline - time.monotonic()) + VETTING_SECONDS)
                    except harness.CandidateFailure:
                        # A variation the original never finishes (or fills the memory on): the
                        # chunk is lost, the calls found so far are kept.
                        break
                    if reply.error is not None or not isinstance(reply.output, list):
                        break
                    for call, ok in zip(fresh, reply.output):
                        if ok is True:
                            found[call_key(call)] = call
            finally:
                stop(checker)
            return list(found.values())[:BATCH_POOL]

        def stop(program):
            programs.remove(program)
            program.close()

        def vetted(drawn):
            """The drawn inputs the original answers (or raises on) within VETTING_SECONDS and
            VETTING_MEMORY_MB: on one it never finishes (a one-letter alphabet: shortuuid's
            int_to_string loops forever, filling the memory) no candidate can be judged, and it
            would end the evaluation; it is left out, and counted."""
            kept, prober = [], None
            metrics["drawn_inputs_left_out"] = 0
            try:
                for entry in drawn:
                    prober = prober or start(reference_file, "reference", memory_mb=VETTING_MEMORY_MB)
                    try:
                        reply = prober.call(*entry[1], timeout=VETTING_SECONDS)
                        ran_out = (reply.error or "").split(":")[0] in ("MemoryError", "RecursionError")
                    except harness.CandidateFailure:
                        ran_out = True
                    if ran_out:
                        stop(prober)
                        prober = None
                        metrics["drawn_inputs_left_out"] += 1
                    else:
                        kept.append(entry)
            finally:
                if prober is not None:
                    stop(prober)
            return kept

        # ---- correctness: the tests' calls, then seeded inputs smallest first; the oracle is the pristine reference
        rng = random.Random(args.seed * 1_000_003 + 1)
        sizes = [0, 1, 2, 3, 5, 10, 20, 50, 100] + ([] if quick else [200, 400, 400])
        # (label, arguments, the original's answer recorded when the tests ran or None)
        inputs = [("the tests' call %d of %s" % (n + 1, FUNCTION), call, ANSWERS[n]) for n, call in enumerate(CALLS)]
        inputs += vetted([("call %d of %s" % (n + 1, FUNCTION), sample_args(rng, size), None) for n, size in enumerate(sizes)])
        oracle = start(reference_file, "reference")
        if OBJECTIVE == "score":
            tests_gate()
            return score(start(candidate_file, "candidate"), [(label, call_args) for label, call_args, _ in inputs
                                                               if expect(oracle, call_args).error is None], metrics)
        cand = start(candidate_file, "candidate")
        slowest_ns, raised = 0, 0
        # The distinct answers of the reference: one answer to every input cannot tell a wrong
        # candidate (one that returns a constant) from a right one.
        answers = set()
        valid = []  # the inputs the reference answers without raising: a batch draws from them
        # A recorded answer the reference does not give again: state the tests had set (a
        # language activated) or a change since init. A few are the first; most, the second.
        recorded_total, differing = sum(1 for _, _, r in inputs if r is not None), []
        for label, call_args, recorded in inputs:
            expected = expect(oracle, call_args)
            # == as JSON data: the record was rewritten by Node, which writes 5.0 as 5.
            if recorded is not None and (expected.error is not None or expected.output != recorded["value"]):
                differing.append("the reference answered %s to %s, not %s as when peagen init ran the tests"
                                 % (show(expected), label, json.dumps(recorded["value"])[:200]))
                if len(differing) * 2 > recorded_total:
                    raise harness.EvaluatorError("%s: it is not deterministic, or the project changed since; re-run peagen init"
                                                 % differing[0])
            metrics["state_dependent_calls"] = len(differing)
            slowest_ns = max(slowest_ns, expected.wall_ns)
            raised += expected.error is not None
            if expected.error is None:
                valid.append(list(call_args))
            answers.add(("raised " + expected.error.split(":")[0]) if expected.error is not None
                        else json.dumps(expected.output, sort_keys=True, default=repr))
            why = differs(cand.call(*call_args, timeout=5 + 10 * expected.wall_ns / 1e9), expected)
            metrics["inputs_checked"] += 1
            if why:
                raise harness.CandidateFailure("%s answered %s" % (label, why))
        if raised == len(inputs):
            raise harness.EvaluatorError("the reference raised on every input (e.g. %s): edit sample_args() in peagen_evaluate.py so "
                                         "that it draws inputs %s() accepts, or init with --objective tests, which judges by the "
                                         "tests alone" % (show(expected), FUNCTION))
        if len(answers) == 1:
            raise harness.EvaluatorError("the reference gives the same answer to every sample input (%s): sample_args() draws "
                                         "inputs that cannot tell a wrong candidate from a right one; edit it (or annotate the "
                                         "parameters' types) so that the answers vary" % next(iter(answers))[:120])
        metrics["captured_inputs"] = len(CALLS)
        stop(cand)
        # The project's tests after the answers: a candidate that hangs or answers wrong fails
        # there within seconds, where each of the tests' calls could wait a minute.
        tests_gate()
        metrics["correctness_inputs"] = len(inputs)

        # ---- timing: fresh processes every round, one timed call on an unknowable input
        trng = random.Random(int.from_bytes(os.urandom(16), "big"))
        # The timed input grows until the reference needs target_ns of CPU for it: a shorter
        # call drowns in the noise of starting a process, and hiding work in loading would pay.
        target_ns = 10e6 if quick else 30e6
        size = 18 if "int" in KINDS else 100
        batch = 0  # > 0: each timed call is a batch of that many calls drawn from valid
        try:
            previous = None  # (size, arguments, reply) of the last size the reference answered below the target
            for _ in range(60):
                call_args = sample_args(trng, size, timed=True)
                try:
                    # Past the first size, a call a hundred times dearer than the target (at
                    # most twice the size of one below it) is an input the original never
                    # finishes (negative numbers drawn for mnemonic's b58encode loop forever):
                    # the last size it answered is the one timed.
                    probe = expect_timed(oracle, call_args, "a timed input of size %d" % size,
                                         120 if previous is None else max(VETTING_SECONDS, 100 * target_ns / 1e9))
                except harness.EvaluatorError as exc:
                    if previous is None or not str(exc).startswith("the reference failed: timeout"):
                        raise
                    stop(oracle)
                    oracle = start(reference_file, "reference")
                    size, call_args, probe = previous
                    metrics["timing_size_capped"] = 1
                    break
                if probe.cpu_ns >= target_ns or size >= 10**6:
                    break
                previous = (size, call_args, probe)
                grow = "int" not in KINDS and probe.cpu_ns < target_ns / 4
                size = size * 2 if grow else size + max(1, size // 8)
            # What the call costs beyond passing its data, which the timing subtracts (an echo):
            # under a tenth of it, the data would be timed, not the call (hsluv's xyz_to_luv reads
            # three items of whatever list it gets), and batches of calls time it instead.
            small = probe.output is None or isinstance(probe.output, (bool, int, float))
            net_ns = probe.cpu_ns - oracle.echo(*call_args, timeout=120, returns_input=not small).cpu_ns
            too_quick = probe.cpu_ns < target_ns / 4 or net_ns < probe.cpu_ns / 10
        except harness.EvaluatorError as exc:
            if not valid or not str(exc).startswith("the reference raised on"):
                raise  # a reference that crashed or hung is the evaluator's problem, not a reason to batch
            too_quick = True  # larger inputs are not valid ones (a numeral out of range): time many valid calls
        pool = []
        if too_quick and valid:
            # One call is too quick for a process's CPU clock (and a size the function refuses
            # cannot make it slower): each timed call runs a batch of distinct valid calls,
            # grown until the reference needs target_ns for it or the valid calls run out.
            pool = valid_pool(trng, BATCH_POOL if not quick else BATCH_POOL // 5)
            oracle = start(reference_file, "reference", BATCH_ENTRY)
            batch = 8
            while True:
                batch_args = draw_timed(trng, size, batch)
                probe = expect_timed(oracle, batch_args, "a batch of %d calls" % batch)
                # What the calls cost beyond passing their data, which the timing subtracts (an
                # echo of the batch): calls barely dearer than their arguments (base32's encode of
                # an int) need a batch that many times larger before anything is left to time.
                net_ns = probe.cpu_ns - oracle.echo(*batch_args, timeout=120, returns_input=False).cpu_ns
                if net_ns >= target_ns or batch >= len(pool):
                    break
                batch = min(len(pool), int(batch * (2 if net_ns < target_ns / 4 else 1.25)))
            metrics["timing_batch"] = batch
            metrics["timing_pool"] = len(pool)
        slowest_ns = max(slowest_ns, probe.wall_ns)
        # A small input the reference accepts (a drawn one may be invalid, e.g. a window of 0).
        warmup = [draw_timed(trng, 10, 4) if batch else
                  next((a for a in (sample_args(trng, 10) for _ in range(20)) if expect(oracle, a).error is None),
                       sample_args(trng, 10, timed=True))]
        expected_by_args = {}
        timeout = 5 + 10 * slowest_ns / 1e9

        def check(call_args, reply):
            why = differs(reply, expected_by_args[id(call_args)])
            return None if why is None else "answered " + why

        rounds, outside = [], {"candidate": [], "reference": []}
        repeats = 6 if quick else 7  # 6: the fewest whose median has a 95% interval (init's check prints it)
        budget = 20.0 if quick else 90.0
        for r in range(repeats):
            for redraw in range(5):
                call_args = draw_timed(trng, size, batch)
                try:
                    # A fresh draw the original never finishes, where the probe of its size took
                    # a hundredth of the bound, is drawn again (at most four times), not the end
                    # of the evaluation.
                    expected = expect_timed(oracle, call_args, "a timed input of size %d" % size,
                                            max(VETTING_SECONDS, 100 * probe.cpu_ns / 1e9) if redraw < 4 else 120)
                    break
                except harness.EvaluatorError as exc:
                    if redraw == 4 or not str(exc).startswith("the reference failed: timeout"):
                        raise
                    stop(oracle)
                    oracle = start(reference_file, "reference", BATCH_ENTRY if batch else ENTRY)
                    metrics["timed_inputs_redrawn"] = metrics.get("timed_inputs_redrawn", 0) + 1
            expected_by_args[id(call_args)] = expected
            for warm in warmup:
                expected_by_args[id(warm)] = expect_timed(oracle, warm, "the warm-up input")
            # A small answer (a number) is echoed as None, a large one as the input (see
            # time_interleaved). A batch is always echoed as None: the echo of its whole list of
            # calls would cost more than sending back its answers (base32's strings for
            # [number, checksum, split] calls), and subtracting that leaves less than nothing.
            small = bool(batch) or expected.output is None or isinstance(expected.output, (bool, int, float))
            entry = BATCH_ENTRY if batch else ENTRY
            if r % 2:
                cand, ref = start(candidate_file, "candidate", entry), start(reference_file, "reference", entry)
            else:
                ref, cand = start(reference_file, "reference", entry), start(candidate_file, "candidate", entry)
            # Echoes of another input of the timed size warm each fresh process's memory before
            # its timed call: the first large inputs a process meets cost it page faults (1,500,
            # some 25 ms of CPU, for 52,000 ints), which its call would pay and the echoes after
            # the call would not (harness/python/peagen_harness/timing.py).
            timing = harness.time_interleaved(cand, ref, 1, lambda _round: [call_args], check=check,
                                              timeout=lambda _args: timeout, warmup=warmup,
                                              warm_echoes=[draw_timed(trng, size, batch)],
                                              echoes_after=2, echo_returns_input=not small, order_offset=r)
            metrics["inputs_checked"] += timing.calls_checked
            one = timing.rounds[0]
            outside["candidate"].append(cpu_ns(cand) - one.candidate_cpu_ns)
            outside["reference"].append(cpu_ns(ref) - one.reference_cpu_ns)
            stop(cand)
            stop(ref)
            rounds.append(one)
            spent = time.monotonic() - started
            if r >= 2 and spent + spent / (r + 1) > budget:
                metrics["budget_cut"] = 1
                break

        # Work moved out of the timed call (into loading or the warm-up) is charged back,
        # beyond what starting a process costs the reference and how much that varies.
        ref_timed = statistics.median(one.reference_cpu_ns for one in rounds)
        charge = harness.untimed_charge_ns(outside["candidate"], outside["reference"], ref_timed)
        result = harness.Timing()
        for one in rounds:
            one.candidate_cpu_ns += charge
            result.rounds.append(one)
        metrics.update(result.summary())
        metrics["charged_outside_ms"] = round(charge / 1e6, 4)
        metrics["timing_size"] = size
        return metrics["speedup"]
    finally:
        for program in programs:
            program.close()
        shutil.rmtree(work, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("candidate")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    started = time.monotonic()
    metrics = {"inputs_checked": 0, "seed": args.seed, "quick": int(args.quick)}
    if OBJECTIVE == "speed":
        metrics["speedup"] = 0.0

    def finish(correct, objective, error=None, status=0, failed_tests=None, original_passed_tests=None):
        metrics["eval_seconds"] = round(time.monotonic() - started, 3)
        harness.emit_verdict(correct, objective, DIRECTION, metrics, error, failed_tests, original_passed_tests)
        return status

    learned = {}
    try:
        objective = evaluate(args, metrics, started, learned)
        return finish(True, objective, original_passed_tests=learned.get("original_passed_tests"))
    except harness.CandidateFailure as exc:
        return finish(False, 0, str(exc), failed_tests=getattr(exc, "failed_tests", None),
                      original_passed_tests=getattr(exc, "original_passed_tests", None))
    except (OSError, UnicodeDecodeError, SyntaxError) as exc:
        return finish(False, 0, "cannot read the candidate: %s" % exc)
    except harness.EvaluatorError as exc:
        return finish(False, 0, "evaluator error: %s" % exc, status=harness.EXIT_EVALUATOR_FAILED)


if __name__ == "__main__":
    harness.run_evaluator(main, DIRECTION)
`;
