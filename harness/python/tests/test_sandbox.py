"""Tests of peagen_harness: python3 harness/python/tests/test_sandbox.py"""
import importlib.util
import itertools
import json
import os
import shutil
import sys
import tempfile
import textwrap
import unittest
from unittest import mock

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from peagen_harness import (Candidate, CandidateFailure, Implausible, Policy, Reply,  # noqa: E402
                            RoundTiming, Timing, check_plausible, time_interleaved, untimed_charge_ns,
                            verdict_line)
from peagen_harness import timing  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
INSERTION_SORT = """
def bad_sort(values):
    out = list(values)
    for i in range(1, len(out)):
        x = out[i]
        j = i - 1
        while j >= 0 and out[j] > x:
            out[j + 1] = out[j]
            j -= 1
        out[j + 1] = x
    return out
"""
# A generous allow-list: the sandbox must hold even when an evaluator admits these modules.
PERMISSIVE = Policy(allowed_imports=frozenset({"typing", "dataclasses", "collections", "time", "pickle"}),
                    forbidden_names={"sorted": "uses sorted()"})


class ProgramFile:
    def __init__(self, source):
        fd, self.path = tempfile.mkstemp(suffix=".py")
        with os.fdopen(fd, "w") as fh:
            fh.write(textwrap.dedent(source))

    def __enter__(self):
        return self.path

    def __exit__(self, *exc):
        os.unlink(self.path)


def run(source, policy=PERMISSIVE, data=(3, 1, 2)):
    with ProgramFile(source) as path, Candidate(path, "bad_sort", policy) as prog:
        return prog.call(list(data), timeout=10)


class SandboxTest(unittest.TestCase):
    def assertRefused(self, source, fragment):
        with self.assertRaises(CandidateFailure) as caught:
            run(source)
        self.assertIn(fragment, str(caught.exception))

    def test_an_honest_program_is_called_and_timed_from_outside(self):
        reply = run(INSERTION_SORT, data=range(300, 0, -1))
        self.assertEqual(reply.output, list(range(1, 301)))
        self.assertIsNone(reply.error)
        self.assertFalse(reply.mutated)
        self.assertGreater(reply.cpu_ns, 0)
        self.assertGreaterEqual(reply.wall_ns, reply.cpu_ns // 2)

    def test_a_capped_process_that_runs_away_with_the_memory_raises_memory_error_and_lives(self):
        # shortuuid's int_to_string never ends on a one-letter alphabet, growing its answer: with
        # a cap, the evaluator's reference fails that input alone instead of the whole sandbox.
        source = "def bad_sort(values):\n    out = []\n    while values:\n        out.append('x' * 4096)\n    return out\n"
        with ProgramFile(source) as path, Candidate(path, "bad_sort", PERMISSIVE, memory_mb=128) as prog:
            self.assertTrue(prog.call([1], timeout=30).error.startswith("MemoryError"))
            self.assertEqual(prog.call([], timeout=10).output, [], "the process answers on")

    def test_asked_for_an_instance_of_the_programs_class_is_an_answer_by_its_state(self):
        source = "class Box:\n    def __init__(self, n):\n        self.n = n\n\n\ndef bad_sort(values):\n    return Box(len(values))\n"
        with ProgramFile(source) as path:
            with Candidate(path, "bad_sort", PERMISSIVE, wire_answers=True) as prog:
                reply = prog.call([3, 1, 2], timeout=10)
            self.assertIsNone(reply.error)
            self.assertEqual(reply.output, {"peagen_wire": {"$": "instance", "v": ["candidate_program", "Box", {"$": "dict", "v": [["n", 3]]}]}})
            with Candidate(path, "bad_sort", PERMISSIVE) as prog:  # not asked: not plain data
                self.assertIn("contains a Box", prog.call([3, 1, 2], timeout=10).error)
        # A plain dict that spells that reply is sent as a dict (helper-33), never read as one.
        forged = 'def bad_sort(values):\n    return {"peagen_wire": {"$": "decimal", "v": "1"}}\n'
        with ProgramFile(forged) as path:
            with Candidate(path, "bad_sort", PERMISSIVE, wire_answers=True) as prog:
                reply = prog.call([3, 1, 2], timeout=10)
            self.assertEqual(reply.output["peagen_wire"]["$"], "dict")
        # A subclass of a built-in value type keeps its value outside __dict__: it crosses with
        # that value, read by the base's own method (helper-19: never by the class's __int__).
        cents = "class Cents(int):\n    def __int__(self):\n        return 99\n\n\ndef bad_sort(values):\n    return Cents(len(values))\n"
        with ProgramFile(cents) as path:
            with Candidate(path, "bad_sort", PERMISSIVE, wire_answers=True) as prog:
                reply = prog.call([3, 1, 2], timeout=10)
            self.assertIsNone(reply.error)
            self.assertEqual(reply.output, {"peagen_wire": {"$": "instance", "v": ["candidate_program", "Cents", {"$": "dict", "v": []}, 3]}})
        # One with slots of its own does not.
        with ProgramFile("class Box:\n    __slots__ = ('n',)\n\n\ndef bad_sort(values):\n    made = Box()\n    made.n = 1\n    return made\n") as path:
            with Candidate(path, "bad_sort", PERMISSIVE, wire_answers=True) as prog:
                self.assertIn("contains a Box", prog.call([3, 1, 2], timeout=10).error)

    def test_locals_reads_the_functions_own_names_and_globals_stays_refused(self):
        # parse's extract_format returns locals(): a copy of the function's own names.
        reply = run("def bad_sort(xs):\n    first = xs[0]\n    found = dict(locals())\n    return list(found)\n")
        self.assertIsNone(reply.error)
        self.assertEqual(reply.output, ["xs", "first"])
        self.assertIn("NameError: name 'globals'", run("def bad_sort(xs):\n    return list(globals())\n").error)

    def test_a_star_import_only_from_the_users_package_and_only_of_allowed_modules(self):
        from peagen_harness import imports_of
        with tempfile.TemporaryDirectory() as root:
            os.mkdir(os.path.join(root, "kit"))
            files = {"__init__.py": "", "_plain.py": "LIMIT = 2\n", "_reach.py": "import os\nLIMIT = 2\n",
                     "_private.py": "import os as _os\nLIMIT = 2\n",
                     "_listed.py": "class Names(list):\n    pass\n__all__ = Names(['LIMIT'])\nLIMIT = 2\n"}
            for name, text in files.items():
                with open(os.path.join(root, "kit", name), "w") as fh:
                    fh.write(text)

            def call(source, allowed):
                policy = Policy(allowed_imports=allowed, package="kit")
                with ProgramFile(source) as path, Candidate(path, "bad_sort", policy, import_paths=[root]) as prog:
                    return prog.call([3, 1, 2], timeout=10)

            plain = "from ._plain import *\ndef bad_sort(values):\n    return list(values)[:LIMIT]\n"
            self.assertEqual(call(plain, imports_of(plain, "kit", root)).output, [3, 1])
            reach = "from ._reach import *\ndef bad_sort(values):\n    return [os.getpid()]\n"
            # The original's own star import brings os: a candidate of it may use os as the original does...
            self.assertIn("os", imports_of(reach, "kit", root))
            # ...and without that allowance the module it would bring is refused in the candidate's process.
            with self.assertRaises(CandidateFailure) as caught:
                call(reach, frozenset({"kit._reach"}))
            self.assertIn("brings a module not allowed", str(caught.exception))
            # A module the star import does not bring (a private alias) is not allowed by it.
            self.assertNotIn("os", imports_of("from ._private import *\n", "kit", root))
            # An __all__ that is not a plain list of names is refused: the names it would bring cannot be checked.
            listed = "from ._listed import *\ndef bad_sort(values):\n    return list(values)[:LIMIT]\n"
            with self.assertRaises(CandidateFailure) as caught:
                call(listed, imports_of(listed, "kit", root))
            self.assertIn("not a plain list of names", str(caught.exception))
            with self.assertRaises(CandidateFailure) as caught:
                call("from os import *\ndef bad_sort(values):\n    return values\n", frozenset({"os"}))
            self.assertIn("import *", str(caught.exception))

    def test_eval_inside_typing_is_refused(self):
        # A ForwardRef compiles its text (allowed: `Reversible["IgnoreRule"]` is common in
        # annotations), and get_type_hints would run it: that is refused.
        self.assertRefused("""
            from typing import get_type_hints
            def _s(x: "__builtins__['sorted']"): pass
            def bad_sort(values):
                return get_type_hints(_s, globalns={})["x"](values)
            """, "'exec'")

    def test_the_standard_librarys_own_import_statements_run_and_an_import_by_name_is_refused(self):
        # sexpdata: functools.singledispatch's register() imports typing (and typing its own
        # modules) on the first call, while the program loads: an import statement of the
        # standard library's code, which the program cannot name.
        self.assertEqual(run("""
            from functools import singledispatch
            @singledispatch
            def size(value):
                return 1
            @size.register(list)
            def _(value):
                return len(value)
            def bad_sort(values):
                return [size(values), size(3)]
            """, Policy(allowed_imports=frozenset({"functools"}))).output, [3, 1])
        # A module named by the program (pkgutil.resolve_name imports by a call, after its
        # own `import re`) stays refused: reading its file is.
        with self.assertRaises(CandidateFailure) as caught:
            run("""
            import pkgutil
            def bad_sort(values):
                return pkgutil.resolve_name("subprocess:run")(["true"])
            """, Policy(allowed_imports=frozenset({"pkgutil"})))
        self.assertIn("refuses", str(caught.exception))

    def test_a_hook_the_program_puts_in_the_import_machinery_gets_nothing_from_a_standard_library_import(self):
        # atk10 B2: os.system (or exec) as a path hook, called with no frame of its own by the
        # import machinery while functools' own `import weakref` runs.
        for hook, entry in (("os.system", "echo ran > /dev/null"), ('sys.modules["builtins"].exec', "import os; os.system('true')")):
            with self.assertRaises(CandidateFailure, msg=hook) as caught:
                run("""
                import re
                def bad_sort(values):
                    sys = re.enum.sys
                    os = sys.modules["os"]
                    sys.path.insert(0, %r)
                    sys.path_hooks.insert(0, %s)
                    sys.path_importer_cache.clear()
                    sys.modules.pop("weakref", None)
                    re.functools.singledispatch(len)
                    return sys.path_importer_cache.get(%r)
                """ % (entry, hook, entry), Policy(allowed_imports=frozenset({"re"})))
            self.assertIn("refuses", str(caught.exception))

    def test_a_forward_reference_in_an_annotation_loads(self):
        # gitignore_parser: `def handle_negation(file_path, rules: Reversible["IgnoreRule"])`.
        program = """
            from typing import List, Reversible
            def first(rules: Reversible["Rule"]) -> List["Rule"]:
                return list(rules)[:1]
            def bad_sort(values):
                return list(values) + first(values)
            """
        self.assertEqual(run(program).output, [3, 1, 2, 3])

    def test_namedtuples_and_dataclasses_are_built_and_their_code_gets_only_the_programs_builtins(self):
        # Most real modules define one at import (tabulate both): the standard library's
        # factories compile their classes' methods, which the hook lets them do...
        program = """
            from collections import namedtuple
            from dataclasses import dataclass, make_dataclass
            Pair = namedtuple("Pair", ["key", "value"])
            @dataclass
            class Row:
                key: int
            Made = make_dataclass("Made", [("key", int)])
            def bad_sort(values):
                keys = [Row(Pair(v, v).value).key for v in values]
                for i in range(1, len(keys)):
                    j = i
                    while j > 0 and keys[j - 1] > keys[j]:
                        keys[j - 1], keys[j] = keys[j], keys[j - 1]
                        j -= 1
                # ...and the code they generate runs with the program's own builtins, not the real ones.
                return keys + [Made(0).key, "getattr" in Row.__init__.__globals__["__builtins__"]]
            """
        self.assertEqual(run(program).output, [1, 2, 3, 0, False])

    def test_a_function_the_program_hands_a_class_factory_runs_as_the_program(self):
        # Attack (review of the factories' allowance): a C function the program passes in runs
        # with the factory's frame on top; when the whole file was trusted, os.listdir ran so.
        policy = Policy(allowed_imports=frozenset({"os", "collections", "collections.Counter", "collections.namedtuple"}))
        for call in ("Counter(map(os.listdir, ['/']))", "namedtuple('P', ['a'], defaults=map(os.listdir, ['/']))"):
            program = "import os\nfrom collections import Counter, namedtuple\ndef bad_sort(values):\n    %s\n    return values\n" % call
            with ProgramFile(program) as path, Candidate(path, "bad_sort", policy) as prog:
                with self.assertRaises(CandidateFailure) as caught:
                    prog.call([1], timeout=10)
                self.assertIn("os.listdir", str(caught.exception), call)

    def test_what_real_modules_do_at_import_loads(self):
        # An optional dependency that is not installed, the package's version from its
        # metadata, a codec looked up by name (tabulate does all three).
        program = """
            try:
                import peagen_not_installed_anywhere
            except ImportError:
                peagen_not_installed_anywhere = None
            from importlib.metadata import version, PackageNotFoundError
            try:
                VERSION = version("peagen-not-installed-anywhere")
            except PackageNotFoundError:
                VERSION = "unknown"
            def bad_sort(values):
                return [VERSION, peagen_not_installed_anywhere is None, "\\u00e9".encode("unicode_escape").decode("ascii")] + list(values)
            """
        policy = Policy(allowed_imports=frozenset({"peagen_not_installed_anywhere", "importlib.metadata",
                                                   "importlib.metadata.version", "importlib.metadata.PackageNotFoundError"}))
        with ProgramFile(program) as path, Candidate(path, "bad_sort", policy) as prog:
            self.assertEqual(prog.call([2, 1], timeout=10).output, ["unknown", True, "\\xe9", 2, 1])

    def test_a_module_that_names_a_builtin_the_process_lacks_is_told_which(self):
        with self.assertRaises(CandidateFailure) as caught:
            run("""
                UNSAFE = {eval, len}
                def bad_sort(values):
                    return values
                """)
        self.assertIn("eval() is a built-in the candidate's locked-down process does not have", str(caught.exception))

    def test_pickle_cannot_resolve_builtins_by_name(self):
        self.assertRefused("""
            import pickle
            def bad_sort(values):
                return pickle.loads(b"cbuiltins\\nsorted\\n.")(values)
            """, "pickle")

    def test_clock_patches_inside_the_child_change_nothing(self):
        # time is allowed here, so the patch works inside the child; the parent's clocks
        # are its own, so the program's real work is still measured.
        reply = run("""
            import time
            time.perf_counter_ns = lambda: 0
            time.process_time_ns = lambda: 0
            def bad_sort(values):
                total = 0
                for i in range(300000):
                    total += i
                return list(values)
            """)
        self.assertGreater(reply.cpu_ns, 1_000_000)

    def test_a_refusal_caught_by_the_program_is_still_reported(self):
        self.assertRefused("""
            def bad_sort(values):
                try:
                    raise ValueError
                except ValueError as exc:
                    try:
                        exc.__traceback__.tb_frame
                    except BaseException:
                        pass
                return list(values)
            """, "tb_frame")

    def test_forbidden_builtins_are_absent_at_run_time(self):
        for name in ("sorted", "eval", "exec", "compile", "getattr", "open", "globals", "vars"):
            reply = run("def bad_sort(values):\n    return %s\n" % name)
            self.assertIn("NameError", reply.error or "", name)
        with self.assertRaises(CandidateFailure) as caught:
            run("def bad_sort(values):\n    return __import__('os').getpid()\n", Policy())
        self.assertIn("import of module 'os'", str(caught.exception))

    def test_memoryview_may_be_tested_for_but_not_made(self):
        # xmltodict's unparse: isinstance(value, (bytes, bytearray, memoryview)).
        tested = "def bad_sort(values):\n    return [isinstance(v, (str, memoryview)) or issubclass(type(v), memoryview) for v in values]\n"
        self.assertEqual(PERMISSIVE.check_source(tested), [])
        self.assertEqual(run(tested, data=("x", 1)).output, [True, False])
        made = "def bad_sort(values):\n    return memoryview(b'x').tolist()\n"
        self.assertEqual(PERMISSIVE.check_source(made), ["line 2: uses memoryview()"])
        self.assertIn("memoryview() is not allowed", run(made).error or "")
        aliased = "def bad_sort(values):\n    kind = memoryview\n    return kind(b'x').tolist()\n"
        self.assertEqual(PERMISSIVE.check_source(aliased), ["line 2: uses memoryview()"])
        self.assertIn("memoryview() is not allowed", run(aliased).error or "")

    def test_the_program_cannot_write_the_protocol_through_stdout(self):
        reply = run("""
            print('{"output": [9, 9, 9], "mutated": false}')
            def bad_sort(values):
                print('{"output": [9, 9, 9], "mutated": false}')
                return [1, 2, 3]
            """)
        self.assertEqual(reply.output, [1, 2, 3])

    def test_a_mutated_argument_and_a_non_json_result_are_reported(self):
        self.assertTrue(run("def bad_sort(values):\n    values.append(1)\n    return values\n").mutated)
        reply = run("def bad_sort(values):\n    return tuple(values)\n")
        self.assertIn("tuple", reply.error or "")


class InterpreterPackagesTest(unittest.TestCase):
    """A package installed for the interpreter (not in a .venv) that the program imports is
    found in the child; one it imports only optionally stays missing, as the original ran."""

    def test_a_needed_package_loads_and_an_optional_one_stays_missing(self):
        from peagen_harness import candidate
        from peagen_harness.policy import optional_imports_of
        with tempfile.TemporaryDirectory() as site:
            for name in ("peagen_needed_dep", "peagen_optional_dep"):
                with open(os.path.join(site, name + ".py"), "w") as fh:
                    fh.write("def twice(x):\n    return 2 * x\n")
            source = """
            import peagen_needed_dep
            try:
                import peagen_optional_dep
            except ImportError:
                peagen_optional_dep = None

            def bad_sort(values):
                return [peagen_needed_dep.twice(v) for v in values] + [peagen_optional_dep is None]
            """
            policy = Policy(allowed_imports=frozenset({"peagen_needed_dep", "peagen_optional_dep"}),
                            optional_imports=optional_imports_of(textwrap.dedent(source)))
            with mock.patch.object(candidate, "_interpreter_site_packages", return_value=[site]):
                reply = run(source, policy, data=(1, 2))
            self.assertIsNone(reply.error, reply.error)
            self.assertEqual(reply.output, [2, 4, True])
            with mock.patch.object(candidate, "_interpreter_site_packages", return_value=[]):
                with self.assertRaisesRegex(CandidateFailure, "No module named 'peagen_needed_dep'"):
                    run(source, policy, data=(1, 2))

    def test_the_packages_of_the_interpreter_the_tests_run_with_are_searched_too(self):
        # The evaluator may run with the system's python3 while the project's packages were
        # installed for a pyenv Python of the same version, whose bin folder Peagen names.
        from peagen_harness import candidate
        with tempfile.TemporaryDirectory() as prefix:
            site = os.path.join(prefix, "lib", "python%d.%d" % sys.version_info[:2], "site-packages")
            os.makedirs(site)
            os.makedirs(os.path.join(prefix, "bin"))
            with mock.patch.dict(os.environ, {"PEAGEN_PROJECT_PATH": os.path.join(prefix, "bin")}):
                self.assertIn(site, candidate._interpreter_site_packages())
            self.assertNotIn(site, candidate._interpreter_site_packages())

    def test_optional_imports_are_those_guarded_by_a_try_that_catches_their_absence(self):
        from peagen_harness.policy import optional_imports_of
        self.assertEqual(optional_imports_of("try:\n    import numpy as np\nexcept ImportError:\n    np = None\nimport attr\n"),
                         frozenset({"numpy"}))
        self.assertEqual(optional_imports_of("try:\n    import numpy\nexcept ImportError:\n    pass\nimport numpy\n"), frozenset())
        self.assertEqual(optional_imports_of("try:\n    import x\nexcept KeyError:\n    pass\n"), frozenset())


class PlausibilityTest(unittest.TestCase):
    def test_more_cpu_than_wall_time_is_impossible(self):
        echo = Reply(output=None, error=None, mutated=False, wall_ns=100_000, cpu_ns=80_000)
        call = Reply(output=None, error=None, mutated=False, wall_ns=10_000_000, cpu_ns=40_000_000)
        with self.assertRaises(Implausible) as caught:
            check_plausible(call, echo)
        self.assertIn("more than one CPU", str(caught.exception))

    def test_a_process_whose_call_is_cheaper_than_its_echo_is_rejected(self):
        with ProgramFile(INSERTION_SORT) as path, \
                Candidate(path, "bad_sort", name="candidate",
                          child_script=os.path.join(HERE, "fake_child_slow_echo.py")) as tampered, \
                Candidate(path, "bad_sort", name="reference") as honest:
            with self.assertRaises(Implausible) as caught:
                time_interleaved(tampered, honest, 1, lambda r: [([3, 1, 2],)],
                                 check=lambda args, reply: None, timeout=lambda args: 10)
        self.assertIn("its process was tampered with", str(caught.exception))

    def test_one_inflated_echo_is_measured_again_not_condemned(self):
        with ProgramFile(INSERTION_SORT) as path, \
                Candidate(path, "bad_sort", name="candidate",
                          child_script=os.path.join(HERE, "fake_child_one_slow_echo.py")) as bursty, \
                Candidate(path, "bad_sort", name="reference") as honest:
            # An input on which the reference's insertion sort takes measurable CPU (~20 ms):
            # on three values it can fall under what the harness resolves, an evaluator error.
            timing = time_interleaved(bursty, honest, 1, lambda r: [(list(range(600, 0, -1)),)],
                                      check=lambda args, reply: None, timeout=lambda args: 10)
        self.assertEqual(len(timing.rounds), 1)


class EchoSubtractionTest(unittest.TestCase):
    """The echo subtracted from a call is a warm one, and what it cannot resolve is a floor."""

    def time(self, candidate_child, reference_child="fake_child_cold.py"):
        with ProgramFile(INSERTION_SORT) as path, \
                Candidate(path, "bad_sort", name="candidate",
                          child_script=os.path.join(HERE, candidate_child)) as cand, \
                Candidate(path, "bad_sort", name="reference",
                          child_script=os.path.join(HERE, reference_child)) as ref:
            timing = time_interleaved(cand, ref, 3, lambda r: [([r, 3, 1, 2],)], echoes_after=2,
                                      check=lambda args, reply: None, timeout=lambda args: 10)
        return timing.summary()

    def test_a_cold_first_echo_is_not_subtracted(self):
        # Both processes pay 15 ms for the first echo of each input and 10 ms for a call:
        # subtracting the first echo would leave the reference nothing to measure.
        summary = self.time("fake_child_cold.py")
        self.assertLess(summary["echo_ms"], 5, summary)
        self.assertGreater(summary["reference_ms"], 7, summary)
        self.assertTrue(0.5 < summary["speedup"] < 2, summary)

    def test_a_candidate_cannot_widen_the_resolution_with_erratic_echoes(self):
        # Its echoes after the call burn 40 ms: neither the subtracted echo nor the floor moves.
        summary = self.time("fake_child_erratic_echo.py")
        self.assertLess(summary["resolution_ms"], 5, summary)
        self.assertLess(summary["echo_ms"], 5, summary)
        self.assertTrue(0.5 < summary["speedup"] < 2, summary)

    def test_net_times_below_the_resolution_count_as_the_resolution(self):
        rounds = [RoundTiming(candidate_cpu_ns=c, reference_cpu_ns=10_000_000, resolution_cpu_ns=500_000)
                  for c in (10_000, 0, 400_000)]
        summary = Timing(rounds=rounds).summary()
        self.assertEqual(summary["speedup"], 20.0)
        self.assertEqual(summary["resolution_ms"], 0.5)


class WarmEchoesTest(unittest.TestCase):
    """Fresh processes are echoed until their memory is warm: at least WARM_ECHOES_MIN, at most
    WARM_ECHOES_MAX times, as many for both, read from /proc's page-fault count."""

    def echoes(self, faults):
        """Echoes per process of one warm-up input, with the page-fault reading `faults(name)`."""
        counts = {}
        with ProgramFile(INSERTION_SORT) as path, \
                Candidate(path, "bad_sort", name="candidate") as cand, \
                Candidate(path, "bad_sort", name="reference") as ref, \
                mock.patch.object(timing, "_minor_faults", lambda program: faults(program.name)):
            for program in (cand, ref):
                def counted(*args, _echo=program.echo, _name=program.name, **kwargs):
                    counts[_name] = counts.get(_name, 0) + 1
                    return _echo(*args, **kwargs)
                program.echo = counted
            time_interleaved(cand, ref, 0, lambda r: [], warm_echoes=[([5, 4, 3],)],
                             check=lambda args, reply: None, timeout=lambda args: 10)
        return counts

    def test_without_proc_each_process_gets_the_least(self):
        # No /proc (or a process it cannot read): no reading says "cold", so no echo past the least.
        self.assertEqual(self.echoes(lambda name: None), {"candidate": timing.WARM_ECHOES_MIN,
                                                          "reference": timing.WARM_ECHOES_MIN})

    def test_memory_that_never_warms_stops_at_the_most(self):
        rising = itertools.count(step=10 * timing.WARM_FAULTS)
        self.assertEqual(self.echoes(lambda name: next(rising)), {"candidate": timing.WARM_ECHOES_MAX,
                                                                  "reference": timing.WARM_ECHOES_MAX})

    def test_the_colder_process_sets_the_count_for_both(self):
        # The candidate's faults keep rising, the reference's stay: both get the candidate's count.
        rising = itertools.count(step=10 * timing.WARM_FAULTS)
        counts = self.echoes(lambda name: next(rising) if name == "candidate" else 7)
        self.assertEqual(counts["candidate"], counts["reference"])
        self.assertEqual(counts["candidate"], timing.WARM_ECHOES_MAX)


class UntimedWorkTest(unittest.TestCase):
    # CPU outside the timed call, in ms, per round: fresh processes of the same program
    # measured on a loaded two-core machine (a start beside another process runs ~25% slower).
    LOADED_REFERENCE = [98.6, 72.6, 94.4, 73.9, 72.4]
    LOADED_SAME_PROGRAM = [89.8, 73.5, 103.9, 90.9, 93.2]
    QUIET = [71.2, 70.6, 71.4, 68.9, 71.3]
    MS = 1e6

    def charge_ms(self, candidate, reference):
        return untimed_charge_ns([x * self.MS for x in candidate], [x * self.MS for x in reference], 5 * self.MS) / self.MS

    def test_start_up_noise_of_a_loaded_machine_is_not_charged(self):
        self.assertEqual(self.charge_ms(self.LOADED_SAME_PROGRAM, self.LOADED_REFERENCE), 0.0)

    def test_work_moved_into_loading_is_charged_even_amid_noise(self):
        self.assertGreater(self.charge_ms([x + 250 for x in self.LOADED_SAME_PROGRAM], self.LOADED_REFERENCE), 200)
        # On a quiet machine all but the reference's own spread (2.5 ms here) is charged.
        self.assertAlmostEqual(self.charge_ms([x + 10 for x in self.QUIET], self.QUIET), 10 - 2.5, places=3)

    def test_precomputing_in_most_rounds_only_is_charged(self):
        # Skipping the work in a few rounds (they are slow, the median is not) hides nothing.
        sometimes = [x + (250 if i in (0, 2, 4) else 0) for i, x in enumerate(self.QUIET)]
        self.assertGreater(self.charge_ms(sometimes, self.QUIET), 240)

    def test_a_candidate_cannot_widen_the_allowance_by_erratic_loading(self):
        erratic = [x + 20 + jitter for x, jitter in zip(self.QUIET, [0, 60, 5, 90, 30])]
        self.assertGreater(self.charge_ms(erratic, self.QUIET), 15)


class VerdictTest(unittest.TestCase):
    def test_objective_is_zero_when_incorrect(self):
        self.assertIn('"objective": 0.0', verdict_line(False, 12.0, "maximize", {}, "wrong"))


class NodeReportersTest(unittest.TestCase):
    """A project whose own script names a node --test reporter (`node --test --test-reporter spec`):
    Node refuses a run whose reporters and destinations differ in number, so ours must fit in."""

    SCRIPTS = {"test": "npm run lint && npm run unit", "unit": "node --test --test-reporter spec", "lint": "true",
               "watch": "node --test --watch --test-reporter dot --test-reporter tap"}

    def project(self, here):
        with open(os.path.join(here, "package.json"), "w") as fh:
            json.dump({"scripts": self.SCRIPTS}, fh)
        with open(os.path.join(here, "a.test.js"), "w") as fh:
            fh.write("const { test } = require('node:test');\ntest('adds', () => {});\ntest('fails', () => { throw new Error('no'); });\n")

    def test_the_reporters_the_commands_scripts_name_are_counted(self):
        from peagen_harness.project_tests import own_node_reporters
        with tempfile.TemporaryDirectory() as here:
            self.project(here)
            self.assertEqual(own_node_reporters("npm test", here), 1, "test runs unit, not watch")
            self.assertIsNone(own_node_reporters("npm run lint", here))
            self.assertIsNone(own_node_reporters("node --test", here))
            self.assertEqual(own_node_reporters("node --test --test-reporter=tap --test-reporter-destination=out.tap", here), 0)
            self.assertEqual(own_node_reporters("npm run watch", here), 2)

    @unittest.skipUnless(shutil.which("node") and shutil.which("npm"), "needs node and npm")
    def test_each_test_is_reported_beside_the_projects_own_reporter(self):
        from peagen_harness.project_tests import run_tests
        with tempfile.TemporaryDirectory() as here:
            self.project(here)
            run = run_tests("npm test", here, os.path.join(here, "report"), timeout=120)
            self.assertEqual(sorted(run.tests.values()), ["failed", "passed"], run.output[-2000:])
            self.assertIn("adds", run.output, "the project's own spec reporter still prints")


class FailureTextTest(unittest.TestCase):
    def test_a_long_output_keeps_the_first_error_and_the_scripts_npm_ran(self):
        from peagen_harness.project_tests import TestRun
        output = ("> lib@1.0.0 test\n> npm run build && mocha\n\n> lib@1.0.0 build\n> node build.js\n\n"
                  "SyntaxError: Cannot use import statement outside a module\n"
                  + "    at Module._compile (node:internal/modules/cjs/loader:1903:20)\n" * 80)
        text = TestRun(0, 1, ["the test command (exit status 1)"], output).failure_text()
        self.assertIn("npm ran: test, build\nSyntaxError: Cannot use import statement outside a module\n    at Module", text)
        self.assertNotIn("\n20)\n", text)  # the tail starts at a whole line
        short = TestRun(0, 1, ["x"], "SyntaxError: y\n").failure_text()
        self.assertTrue(short.endswith("x\nSyntaxError: y\n"), short)


class EveryTestRunsTest(unittest.TestCase):
    """A project's fail-fast option never stops the tests Peagen runs (a test left out, or one
    never reached, would otherwise go unjudged), and an expected-failure marker never turns a
    regression into a pass: outcomes say what the code did."""

    UNITTEST = textwrap.dedent("""\
        import unittest


        class T(unittest.TestCase):
            def test_a(self):
                pass

            def test_b(self):
                self.fail("b")

            def test_c(self):
                pass

            @unittest.expectedFailure
            def test_stale(self):
                pass

            @unittest.expectedFailure
            def test_known(self):
                self.fail("known")
        """)
    PYTEST = textwrap.dedent("""\
        import pytest


        def test_a():
            pass


        def test_b():
            assert False


        def test_c():
            pass


        @pytest.mark.xfail
        def test_stale():
            pass


        @pytest.mark.xfail
        def test_known():
            assert False


        @pytest.mark.xfail(strict=True)
        def test_strict():
            pass
        """)

    def outcomes(self, command, name, text):
        from peagen_harness.project_tests import run_tests
        with tempfile.TemporaryDirectory() as here:
            with open(os.path.join(here, name), "w") as fh:
                fh.write(text)
            run = run_tests(command, here, os.path.join(here, "report"), timeout=120)
            return {test.rsplit(".", 1)[-1].rsplit("::", 1)[-1]: outcome for test, outcome in run.tests.items()}, run.output

    def test_unittest_failfast_still_runs_every_test(self):
        tests, output = self.outcomes("python3 -m unittest -f", "test_t.py", self.UNITTEST)
        self.assertEqual(tests, {"test_a": "passed", "test_b": "failed", "test_c": "passed", "test_stale": "xpassed",
                                 "test_known": "xfailed"}, output[-2000:])

    @unittest.skipUnless(importlib.util.find_spec("pytest"), "needs pytest")
    def test_pytest_exitfirst_still_runs_every_test(self):
        tests, output = self.outcomes("python3 -m pytest -x -q", "test_t.py", self.PYTEST)
        self.assertEqual(tests, {"test_a": "passed", "test_b": "failed", "test_c": "passed", "test_stale": "xpassed",
                                 "test_known": "xfailed", "test_strict": "xpassed"}, output[-2000:])

    MOCHA = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))), "node_modules", "mocha",
                         "bin", "mocha.js")

    @unittest.skipUnless(shutil.which("node") and os.path.exists(MOCHA), "needs node and the repository's mocha")
    def test_mocha_bail_still_runs_every_test(self):
        text = ("const assert = require('assert');\ndescribe('t', () => {\n  it('test_a', () => {});\n"
                "  it('test_b', () => assert.fail('b'));\n  it('test_c', () => {});\n});\n")
        tests, output = self.outcomes("node %s --bail t.test.js" % self.MOCHA, "t.test.js", text)
        self.assertEqual(tests, {"t test_a": "passed", "t test_b": "failed", "t test_c": "passed"}, output[-2000:])

    def test_what_the_tests_print_is_kept_to_its_head_and_tail(self):
        # A candidate's output now reaches the tests' process (boundary._print_here): however much
        # it prints, the evaluator keeps a bounded part of it, the last lines included.
        from peagen_harness.project_tests import run_tests
        with tempfile.TemporaryDirectory() as here:
            command = "python3 -c \"import sys\nfor i in range(3000): sys.stdout.write('x' * 1000 + '\\n')\nprint('END')\""
            run = run_tests(command, here, os.path.join(here, "report"), timeout=60)
        self.assertLess(len(run.output), 600_000)
        self.assertTrue(run.output.startswith("x" * 1000), run.output[:100])
        self.assertTrue(run.output.endswith("END\n"), run.output[-100:])
        self.assertIn("bytes of output left out", run.output)

    def test_a_test_marked_as_an_expected_failure_counts_neither_way(self):
        # Its marker and its assertion disagree on what is right: making it fail (a stale
        # marker) or pass (special-casing a known bug's input) gains nothing either way.
        from peagen_harness.project_tests import Outcomes, count
        for outcome in ("xfailed", "xpassed"):
            run = count(Outcomes({"unittest:t.T.test_marked": outcome, "unittest:t.T.test_a": "passed"}, 1, False, "", 0.0))
            self.assertEqual((run.passed, run.total), (1, 1), outcome)

    def test_a_failure_under_an_id_the_original_never_reported_fails_the_run(self):
        # tearDownClass, an `after` hook: the original's run had no such id, the candidate's says no.
        from peagen_harness.project_tests import Outcomes, count
        run = count(Outcomes({"unittest:t.T.test_a": "passed", "unittest:tearDownClass (t.T)": "error",
                              "unittest:t.T.test_c": "failed"}, 1, False, "", 0.0),
                    expected=["unittest:t.T.test_a"], left_out=["unittest:t.T.test_c"])
        self.assertEqual((run.passed, run.total, run.failed_ids), (0, 1, ["unittest:tearDownClass (t.T)"]))
        # It takes a pass away, never adds to the total (helper-27's B3): fixing the one failing
        # test of three and breaking a module's cleanup is 2/3, the original's score, not 3/4.
        expected = ["unittest:t.T.test_a", "unittest:t.T.test_b", "unittest:t.T.test_bug"]
        original = count(Outcomes({"unittest:t.T.test_a": "passed", "unittest:t.T.test_b": "passed",
                                   "unittest:t.T.test_bug": "failed"}, 1, False, "", 0.0), expected=expected)
        trade = count(Outcomes({"unittest:t.T.test_a": "passed", "unittest:t.T.test_b": "passed", "unittest:t.T.test_bug": "passed",
                                "unittest:tearDownModule (t)": "error"}, 1, False, "", 0.0), expected=expected)
        self.assertEqual([(original.passed, original.total), (trade.passed, trade.total)], [(2, 3), (2, 3)])


class TypeScriptStandInTest(unittest.TestCase):
    def test_the_originals_exported_types_are_exported_by_the_stand_in_too(self):
        # card-validator's tests import { parseDate, MonthAndYear }: without the type, ts-jest
        # refused the whole test file behind the boundary.
        from peagen_harness.project_tests import _static_type_exports
        source = ("export interface A {}\nexport type B = number;\nexport { type C, d };\nexport type { E, F as G };\n"
                  "export declare type H = 1;\nexport function parse(s: string): A { return {}; }\n")
        self.assertEqual(_static_type_exports(source), ["A", "B", "H", "C", "E", "G"])


class StaticCheckTest(unittest.TestCase):
    def test_a_program_may_not_patch_a_module_it_imports(self):
        # In the tests' own process (the weaker mode), `math.isclose = ...` changed what the tests
        # compared with (helper-22's J: a constant answer passed every test).
        policy = Policy(allowed_imports=frozenset({"math", "os", "os.path"}))
        self.assertEqual(policy.check_source("import math\nmath.isclose = lambda a, b, **k: True\n"),
                         ["line 2: changes .isclose of the module math: a program may not patch what others import"])
        self.assertEqual(len(policy.check_source("import math as m\ndel m.pi\nm.a.b = 2\nfrom os import path\npath.sep = 1\n")), 3)
        self.assertEqual(policy.check_source("import math\nclass A:\n    pass\na = A()\na.x = math.pi\n"), [])


class LateFailureTest(unittest.TestCase):
    @unittest.skipUnless(shutil.which("node"), "needs node")
    def test_a_node_test_whose_promise_fails_after_it_ended_fails(self):
        # A forgotten `await`: Node fails no test for it, only the run's exit status (helper-24).
        from peagen_harness.project_tests import run_tests
        with tempfile.TemporaryDirectory() as here:
            with open(os.path.join(here, "a.test.js"), "w") as fh:
                fh.write("const { test } = require('node:test');\nconst assert = require('node:assert');\n"
                         "test('late', () => { Promise.resolve(1).then((x) => assert.strictEqual(x, 2)); });\n"
                         "test('fine', () => {});\ntest('known', { todo: 'x' }, () => { throw new Error('todo'); });\n")
            run = run_tests("node --test", here, os.path.join(here, "report"), timeout=120)
        self.assertEqual(run.tests.get("node:a.test.js::3:1::late"), "failed", run.tests)
        self.assertEqual(run.tests.get("node:a.test.js::4:1::fine"), "passed", run.tests)


class StableIdsTest(unittest.TestCase):
    def test_a_test_named_after_the_copys_folder_has_the_same_id_on_every_run(self):
        from peagen_harness.project_tests import run_tests
        ids = []
        for _ in range(2):
            with tempfile.TemporaryDirectory() as here:
                with open(os.path.join(here, "test_t.py"), "w") as fh:
                    fh.write("import os\nimport unittest\n\n\nclass T(unittest.TestCase):\n    def test_where(self):\n"
                             "        with self.subTest(where=os.getcwd()):\n            pass\n")
                ids.append(sorted(run_tests("python3 -m unittest", here, os.path.join(here, "report"), timeout=60).tests))
        self.assertEqual(ids[0], ids[1])
        self.assertIn("unittest:test_t.T.test_where (where='<project>')", ids[0])


class LeftOutTestsTest(unittest.TestCase):
    """init's peagen_tests.json: its left-out tests count neither way, its expected ones must pass."""

    def outcomes(self, **tests):
        from peagen_harness.project_tests import Outcomes
        return Outcomes({"unittest:t." + name: outcome for name, outcome in tests.items()}, 1, False, "", 0.0)

    def test_left_out_tests_count_neither_way(self):
        from peagen_harness.project_tests import count
        run = count(self.outcomes(a="passed", b="failed", c="failed"), left_out=["unittest:t.c"])
        self.assertEqual((run.passed, run.total, run.failed_ids), (1, 2, ["unittest:t.b"]))
        self.assertEqual(count(self.outcomes(a="passed", c="failed"), left_out=["unittest:t.c"]).passed, 1)

    def test_leaving_out_every_test_fails(self):
        from peagen_harness.project_tests import count
        run = count(self.outcomes(a="failed"), left_out=["unittest:t.a"])
        self.assertEqual((run.passed, run.total), (0, 1))

    def test_the_file_is_read_or_refused(self):
        from peagen_harness.project_tests import TESTS_FILE, listed_tests
        from peagen_harness.timing import EvaluatorError
        with tempfile.TemporaryDirectory() as here:
            self.assertEqual(listed_tests(here), (None, []))
            for written, read in (('{"why": "w", "left_out": ["unittest:t.c"], "expected": ["unittest:t.a"]}',
                                   (["unittest:t.a"], ["unittest:t.c"])),
                                  ('{"left_out": [], "expected": ["unittest:t.a"]}', (["unittest:t.a"], []))):
                with open(os.path.join(here, TESTS_FILE), "w") as fh:
                    fh.write(written)
                self.assertEqual(listed_tests(here), read)
            for broken in ('{"left_out": "unittest:t.c", "expected": ["unittest:t.a"]}', '{"left_out": ["unittest:t.c"]}',
                           '{"left_out": ["unittest:t.c"], "expected": []}', '{"left_out": [1], "expected": ["unittest:t.a"]}'):
                with open(os.path.join(here, TESTS_FILE), "w") as fh:
                    fh.write(broken)
                self.assertRaises(EvaluatorError, listed_tests, here)

    def test_an_expected_test_that_does_not_run_or_is_skipped_fails(self):
        # A fail-fast runner stopped, or the candidate made a test skip itself: not a pass.
        from peagen_harness.project_tests import count
        run = count(self.outcomes(a="passed", c="failed", d="skipped"), expected=["unittest:t.a", "unittest:t.b", "unittest:t.d"],
                    left_out=["unittest:t.c"])
        self.assertEqual((run.passed, run.total, run.failed_ids), (1, 3, ["unittest:t.b", "unittest:t.d"]))

    def test_the_seeds_markers_do_not_make_it_another_program(self):
        from peagen_harness.project_tests import is_original_text
        original = "def f(x):\n    return x\n"
        self.assertTrue(is_original_text("# EVOLVE-BLOCK-START\ndef f(x):\n    return x\n# EVOLVE-BLOCK-END\n", original))
        self.assertFalse(is_original_text("# EVOLVE-BLOCK-START\ndef f(x):\n    return x + 0\n# EVOLVE-BLOCK-END\n", original))

    def test_the_verdict_names_the_failing_tests(self):
        import json
        line = json.loads(verdict_line(False, 0, "maximize", {}, "failed", ["unittest:t.b"]))
        self.assertEqual(line["failed_tests"], ["unittest:t.b"])


if __name__ == "__main__":
    unittest.main()
