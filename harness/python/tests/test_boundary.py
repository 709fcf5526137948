"""Tests of peagen_harness.boundary, the stand-in a judge imports instead of the candidate:
python3 harness/python/tests/test_boundary.py"""
import datetime
import pathlib
from decimal import Decimal
import importlib.util
import math
import os
import sys
import tempfile
import textwrap
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from peagen_harness import CandidateFailure  # noqa: E402
from peagen_harness._child import PROGRAM_MODULE, WireError, from_wire, to_wire  # noqa: E402
from peagen_harness.boundary import CandidateRaised, _own_instance, write_standin  # noqa: E402


class StandIn:
    """A candidate (and optionally a reference) written to files, and the stand-in imported."""

    def __init__(self, source, reference=None, **options):
        self.dir = tempfile.TemporaryDirectory()
        candidate = os.path.join(self.dir.name, "candidate.py")
        with open(candidate, "w") as fh:
            fh.write(textwrap.dedent(source))
        ref = None
        if reference is not None:
            ref = os.path.join(self.dir.name, "reference.py")
            with open(ref, "w") as fh:
                fh.write(textwrap.dedent(reference))
        path = os.path.join(self.dir.name, "standin.py")
        self.plan = write_standin(path, candidate, reference_path=ref, **options)
        spec = importlib.util.spec_from_file_location("standin_%d" % id(self), path)
        self.module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(self.module)

    def __enter__(self):
        return self.module

    def __exit__(self, *exc):
        self.dir.cleanup()


class WireTest(unittest.TestCase):
    def test_plain_data_round_trips_with_its_exact_types(self):
        value = [1, 2.5, "x", None, True, (1, (2,)), {3, 4}, frozenset({5}), {"a": 1, 2: [3]},
                 b"\x00\xff", bytearray(b"ab"), 1 + 2j, float("inf"), 10 ** 40]
        back = from_wire(to_wire(value))
        self.assertEqual(back, value)
        self.assertEqual([type(v) for v in back], [type(v) for v in value])
        self.assertTrue(math.isnan(from_wire(to_wire(float("nan")))))

    def test_dates_times_and_decimals_round_trip_as_themselves(self):
        import datetime
        import decimal
        zone = datetime.timezone(datetime.timedelta(hours=-7))
        value = [datetime.date(1979, 5, 27), datetime.datetime(1979, 5, 27, 0, 32, 0, 999999, tzinfo=zone),
                 datetime.datetime(2020, 1, 1, 1, 2, 3), datetime.time(7, 32, 0, 5), datetime.time(1, tzinfo=datetime.timezone.utc),
                 datetime.timedelta(days=-1, seconds=5, microseconds=7), zone, decimal.Decimal("0.1"), decimal.Decimal("-inf")]
        back = from_wire(to_wire(value))
        self.assertEqual(back, value)
        self.assertEqual([type(v) for v in back], [type(v) for v in value])
        self.assertTrue(from_wire(to_wire(decimal.Decimal("nan"))).is_nan())
        # A zone with rules of its own is behaviour; a date subclass is refused like any subclass.
        class Later(datetime.date):
            pass
        for value in (Later(2020, 1, 1), datetime.datetime(2020, 1, 1, tzinfo=type("Zone", (datetime.tzinfo,), {"utcoffset": lambda self, dt: None})())):
            with self.assertRaises(WireError):
                to_wire(value)
        for wire in ({"$": "date", "v": [2020, 13, 1]}, {"$": "decimal", "v": "zz"}, {"$": "datetime", "v": [1, 2]}, {"$": "time", "v": [1, 2, 3, 4, 0, {"$": "date", "v": [1, 1, 1]}]}):
            with self.assertRaises(WireError):
                from_wire(wire)

    def test_a_subclass_or_an_object_never_crosses(self):
        class Sneaky(float):
            def __eq__(self, other):
                return True
        for value in (Sneaky(1), [1, Sneaky(2)], {"k": object()}, str.__new__(type("S", (str,), {}), "x")):
            with self.assertRaises(WireError):
                to_wire(value)

    def test_malformed_wire_is_refused(self):
        for wire in ({"$": "dict", "v": [[[1], 2]]}, {"$": "nope", "v": 1}, {"a": 1}, {"$": "bytes", "v": "zz"}):
            with self.assertRaises(WireError):
                from_wire(wire)


class StandInTest(unittest.TestCase):
    def test_functions_forward_values_copy_and_arguments_change_in_place(self):
        with StandIn("""
            LIMIT = (1, 2)

            def total(values, scale=1):
                return sum(values) * scale

            def sort_in_place(values):
                values.sort()
        """) as mod:
            self.assertEqual(mod.total([1, 2, 3], scale=2), 12)
            self.assertEqual(mod.LIMIT, (1, 2))
            values = [3, 1, 2]
            self.assertIsNone(mod.sort_in_place(values))
            self.assertEqual(values, [1, 2, 3])

    def test_exceptions_arrive_as_the_builtin_of_that_name_and_never_as_an_exit(self):
        with StandIn("""
            def bad(x):
                raise ValueError("no %s" % x)

            def leave():
                raise SystemExit(0)

            class Custom(Exception):
                pass

            def custom():
                raise Custom("mine")
        """) as mod:
            with self.assertRaisesRegex(ValueError, "no 3"):
                mod.bad(3)
            with self.assertRaises(CandidateRaised):
                mod.leave()
            with self.assertRaisesRegex(CandidateRaised, "Custom: mine"):
                mod.custom()

    def test_a_lying_result_or_a_dead_process_is_a_failure_in_the_judge(self):
        with StandIn("""
            import os

            class Yes(list):
                def __eq__(self, other):
                    return True

            def lie():
                return Yes()

            def die():
                os.execv("/bin/true", ["true"])
        """) as mod:
            with self.assertRaises(TypeError):
                mod.lie()
            with self.assertRaises(CandidateFailure):
                mod.die()

    def test_an_instance_of_the_originals_class_crosses_as_one_built_from_its_state(self):
        # isodate's parse_duration returns its Duration: the tests compare it with their own.
        reference = """
            class Span:
                def __init__(self, days):
                    self.days = days

                def __eq__(self, other):
                    return type(other) is Span and other.days == self.days

                def same(self, other):
                    return self == other

            # EVOLVE-BLOCK-START
            def span(text):
                return Span(int(text))
            # EVOLVE-BLOCK-END
        """
        candidate = textwrap.dedent(reference).replace(
            "return Span(int(text))", "return Fake() if text == '9' else shadow(Span(int(text))) if text == '5' "
                                      "else Span(int(text) + (text == '7'))")
        candidate += "\n\ndef shadow(span):\n    span.same = bool\n    return span\n"
        candidate += "\n\nclass Fake:\n    def __eq__(self, other):\n        return True\n"
        with StandIn(candidate, reference=reference) as mod:
            got = mod.span("3")
            self.assertIs(type(got), mod.Span, "the original's class, its methods the original's")
            self.assertEqual(got, mod.Span(3))
            self.assertNotEqual(mod.span("7"), mod.Span(7))
            # A class of the candidate's own is not the original's: it cannot cross.
            with self.assertRaisesRegex(TypeError, "an instance of Fake, which is not a class of the original's"):
                mod.span("9")
            # Attacks (helper-19): a built-in in the state under a method's name; an interning __new__.
            with self.assertRaisesRegex(TypeError, "holds a function or names a method"):
                mod.span("5")
            cached = mod.Span(0)
            mod.Span.__new__ = lambda cls, *args: cached
            self.assertIsNot(mod.span("4"), cached, "object.__new__: never an object the tests hold")
            self.assertEqual(cached.days, 0)

    def test_an_instance_on_a_value_base_crosses_with_its_value_and_slots_do_not(self):
        # helper-29's B5: a Money(Decimal) crossed as its empty __dict__, so every amount was
        # Decimal(0) in the judge and a candidate returning the first price passed as the sum.
        # Now the value of a built-in value base crosses (read by the base, made by its __new__):
        # gitignore_parser's rules are a namedtuple subclass. Slots of the user's never cross.
        reference = """
            import collections
            import pathlib
            from decimal import Decimal

            class Money(Decimal):
                pass

            class Rule(collections.namedtuple("Rule_", "pattern base")):
                def match(self, path):
                    return path == self.pattern

            class Pair:
                __slots__ = ("a", "b")

            class Tagged(Pair):
                pass

            # EVOLVE-BLOCK-START
            def total(prices):
                return Money(sum(Decimal(p) for p in prices))

            def rule(pattern, base=None):
                return Rule(pattern.strip(), base)

            def pair():
                made = Tagged()
                made.a, made.b = 1, 2
                return made
            # EVOLVE-BLOCK-END
        """
        with StandIn(reference, reference=reference) as mod:
            money = mod.total(["1.5", "2"])
            self.assertIs(type(money), mod.Money, "the original's class")
            self.assertEqual(money, Decimal("3.5"))
            got = mod.rule(" *.py ", base=pathlib.PurePosixPath("/src"))
            self.assertIs(type(got), mod.Rule)
            self.assertEqual(got, mod.Rule("*.py", pathlib.PurePosixPath("/src")), "the tuple's items, a path among them")
            self.assertTrue(got.match("*.py"), "the original's method")
            with self.assertRaisesRegex(TypeError, "a value of type Tagged cannot cross"):
                mod.pair()
            # An answer that claims another base's value (a hostile child's: a str for the
            # tuple, a value for a class on object) is refused.
            for name, value in (("Rule", "x"), ("Money", 3), ("Tagged", 1)):
                with self.assertRaisesRegex(TypeError, "whose value is not its base's"):
                    _own_instance(vars(mod), PROGRAM_MODULE, name, {}, value)

    def test_a_member_of_the_originals_enum_crosses_by_name(self):
        # docstring_parser's parse returns a Docstring whose style is a DocstringStyle member.
        reference = """
            import enum

            class Style(enum.Enum):
                REST = 1
                GOOGLE = 2

            class Doc:
                def __init__(self, style):
                    self.style = style

            # EVOLVE-BLOCK-START
            def parse(text):
                return Doc(Style.REST if text.startswith(":") else Style.GOOGLE)
            # EVOLVE-BLOCK-END
        """
        candidate = textwrap.dedent(reference).replace("return Doc(", "return Other.X if text == 'x' else Doc(")
        candidate += "\n\nclass Other(enum.Enum):\n    X = 1\n"
        with StandIn(candidate, reference=reference) as mod:
            got = mod.parse(":param")
            self.assertIs(type(got), mod.Doc)
            self.assertIs(got.style, mod.Style.REST, "the original's member itself")
            self.assertIs(mod.parse("Args:").style, mod.Style.GOOGLE)
            with self.assertRaisesRegex(TypeError, "Other, which is not a class of the original's"):
                mod.parse("x")

    def test_a_datetime_in_a_zone_class_of_the_originals_crosses_with_that_zone(self):
        # toml's loads: datetimes whose tzinfo is its own TomlTz.
        source = """
            import datetime

            class Zone(datetime.tzinfo):
                def __init__(self, minutes):
                    self.minutes = minutes

                def utcoffset(self, dt):
                    return datetime.timedelta(minutes=self.minutes)

            # EVOLVE-BLOCK-START
            def stamp(minutes):
                return datetime.datetime(2020, 1, 2, 3, 4, tzinfo=Zone(minutes))
            # EVOLVE-BLOCK-END
        """
        with StandIn(source, reference=source) as mod:
            got = mod.stamp(90)
            self.assertIs(type(got.tzinfo), mod.Zone, "the original's zone class")
            self.assertEqual(got.utcoffset(), datetime.timedelta(minutes=90))

    def test_a_generator_is_read_in_the_candidates_process_and_arrives_as_a_generator(self):
        # braceexpand returns a generator expression; its errors are raised as it is read.
        with StandIn("""
            def expand(text):
                if "{" in text:
                    raise ValueError("unbalanced")
                return (c * 2 for c in text)

            def late(text):
                def items():
                    yield text
                    raise KeyError(text)
                return items()
        """) as mod:
            got = mod.expand("ab")
            self.assertIs(type(got), type((lambda: (yield))()))
            self.assertEqual(list(got), ["aa", "bb"])
            with self.assertRaisesRegex(ValueError, "unbalanced"):
                mod.expand("{")
            with self.assertRaises(KeyError):  # read inside the call: raised by the call
                mod.late("x")

    def test_an_evolved_class_cannot_be_carried_and_is_named(self):
        reference = "# EVOLVE-BLOCK-START\nclass Box:\n    pass\n\n\ndef f():\n    return 0\n# EVOLVE-BLOCK-END\n"
        with StandIn("def f():\n    return 1\n", reference=reference) as mod:
            self.assertEqual(mod.f(), 1)
            with self.assertRaisesRegex(AttributeError, "class Box is evolved .*: Peagen runs the candidate in a process of its own"):
                mod.Box  # noqa: B018

    def test_an_exception_whose_constructor_makes_its_message_arrives_with_its_attributes(self):
        # sexpdata: ExpectClosingBracket(got, expect, position) keeps only its message in args,
        # and the tests read exc_info.value.position.line.
        reference = """
            class Position:
                def __init__(self, line=1, column=1):
                    self.line = line
                    self.column = column

            class SExpError(Exception):
                def __init__(self, message, position=None):
                    self.position = position
                    super().__init__("%s at %s" % (message, position.line) if position else message)

            class ExpectClosingBracket(SExpError):
                def __init__(self, got, expect, position=None):
                    super().__init__("expected %r, got %r" % (expect, got), position)

            # EVOLVE-BLOCK-START
            def parse(text):
                if text.count("(") > text.count(")"):
                    raise ExpectClosingBracket(text[-1], ")", Position(text.count("\\n") + 1, len(text)))
                return text
            # EVOLVE-BLOCK-END
        """
        with StandIn(reference, reference=reference) as mod:
            with self.assertRaises(mod.ExpectClosingBracket) as raised:
                mod.parse("(a\n(b")
            self.assertEqual((raised.exception.position.line, raised.exception.position.column), (2, 5))
            self.assertIsInstance(raised.exception.position, mod.Position)
            self.assertEqual(str(raised.exception), "expected ')', got 'b' at 2")
        # Attributes that name the class's methods, or that are functions, do not cross.
        liar = textwrap.dedent(reference).replace("self.position = position", "self.position = position\n        self.__str__ = 1")
        with StandIn(liar, reference=reference) as mod:
            with self.assertRaises(mod.ExpectClosingBracket) as raised:
                mod.parse("(a")
            self.assertFalse(hasattr(raised.exception, "position"))

    def test_the_stand_in_is_the_original_module_with_only_the_evolved_function_forwarded(self):
        reference = """
            import re

            class OutOfRangeError(ValueError):
                pass

            ROMAN = (("X", 10), ("IX", 9), ("V", 5), ("IV", 4), ("I", 1))

            # EVOLVE-BLOCK-START
            def to_roman(n):
                if not 0 < n < 40:
                    raise OutOfRangeError("number out of range (must be 1..39)", n)
                out = ""
                for numeral, value in ROMAN:
                    while n >= value:
                        out += numeral
                        n -= value
                return out
            # EVOLVE-BLOCK-END

            def shout(n):
                return to_roman(n).lower()
        """
        candidate = textwrap.dedent(reference).replace('out = ""', 'out = "" if n else "?"') + "\nHELPER = 1\n"
        with StandIn(candidate, reference=reference) as mod:
            self.assertIn("Forwards", mod.to_roman.__doc__)
            self.assertEqual(mod.to_roman(14), "XIV")
            self.assertEqual(mod.shout(9), "ix")  # the original's helper calls the forwarder
            self.assertEqual(mod.ROMAN[0], ("X", 10))
            with self.assertRaises(mod.OutOfRangeError) as raised:
                mod.to_roman(99)
            self.assertEqual(raised.exception.args, ("number out of range (must be 1..39)", 99))
            self.assertIsInstance(raised.exception, ValueError)
            self.assertFalse(hasattr(mod, "HELPER"))  # nothing of the candidate's module but the forwarded calls

    def test_a_candidate_that_empties_its_block_still_has_its_functions_judged(self):
        # The reference has no markers (the user's file): every function is forwarded, whatever the candidate's markers say.
        reference = "def f(x):\n    return x + 1\n"
        candidate = "# EVOLVE-BLOCK-START\n# EVOLVE-BLOCK-END\ndef f(x):\n    return 0\n"
        with StandIn(candidate, reference=reference) as mod:
            self.assertIn("Forwards", mod.f.__doc__)
            self.assertEqual(mod.f(41), 0)  # the candidate's answer, judged as such

    def test_a_builtin_function_crosses_by_name_a_function_of_the_judge_is_called_back_in_the_judge(self):
        source = ("def order(values, key=None):\n    return sorted(values, key=key)\n\n"
                  "def each(values, hook):\n    return [hook(v, twice=True) for v in values]\n")
        with StandIn(source, reference=source) as mod:
            self.assertEqual(mod.order(["10", "9", "1"], key=int), ["1", "9", "10"])
            self.assertEqual(mod.order(["bb", "a"], key=len), ["a", "bb"])
            seen = []  # the judge's own state: the lambda runs here, not in the candidate's process
            self.assertEqual(mod.order([1, 3, 2], key=lambda x: seen.append(x) or -x), [3, 2, 1])
            self.assertEqual(sorted(seen), [1, 2, 3])
            self.assertEqual(mod.each([1, 2], lambda v, twice: [v] * (2 if twice else 1)), [[1, 1], [2, 2]])

            def fails(v, twice):
                raise KeyError(v)
            with self.assertRaisesRegex(KeyError, "KeyError: 1"):
                mod.each([1], fails)  # its exception reaches the candidate, and back, as a KeyError
            with self.assertRaisesRegex(TypeError, "cannot cross"):
                mod.each([1], lambda v, twice: object())

    def test_a_class_of_the_judges_is_called_back_and_its_decimals_and_dates_come_back(self):
        # tomli: loads(doc, parse_float=Decimal); its answers hold datetimes.
        source = ("import datetime\n\n"
                  "def parse(texts, parse_float=float):\n"
                  "    return [parse_float(t) for t in texts] + [datetime.date(2000, 1, 2)]\n")
        import datetime
        import decimal
        with StandIn(source, reference=source) as mod:
            self.assertEqual(mod.parse(["0.1", "inf"], parse_float=decimal.Decimal), [decimal.Decimal("0.1"), decimal.Decimal("inf"), datetime.date(2000, 1, 2)])
            self.assertEqual(mod.parse(["0.5"]), [0.5, datetime.date(2000, 1, 2)])

    def test_deep_data_crosses_and_the_tests_recursion_limit_holds_in_the_candidates_process(self):
        # tomli: a 470-level nested array parses, one deeper than the tests' recursion limit raises.
        source = ("import sys\n\ndef limit():\n    return sys.getrecursionlimit()\n\n"
                  "def nest(n):\n    out = []\n    for _ in range(n):\n        out = [out]\n    return out\n\n"
                  "def depth(n):\n    return 0 if n == 0 else 1 + depth(n - 1)\n")
        with StandIn(source, reference=source) as mod:
            value, levels = mod.nest(470), 0
            while value:
                value, levels = value[0], levels + 1
            self.assertEqual(levels, 470)
            self.assertEqual(mod.limit(), sys.getrecursionlimit())
            with self.assertRaises(RecursionError):
                mod.depth(sys.getrecursionlimit() + 2)

    def test_objects_of_the_judges_classes_stay_in_the_judge_and_come_back_as_themselves(self):
        source = ("def is_sorted(values, key=None):\n    k = key or (lambda v: v)\n"
                  "    return all(not k(b) < k(a) for a, b in zip(values, values[1:]))\n\n"
                  "def order(values):\n    return sorted(values)\n\n"
                  "def first_item(box):\n    return box[0], len(box), 3 in box, hash(box) == hash(box)\n")

        class BarelySortable:  # only <, as more-itertools' tests define it
            def __init__(self, value):
                self.value = value

            def __lt__(self, other):
                return self.value < other.value

        class Box:
            def __getitem__(self, i):
                return [7, 8][i]

            def __len__(self):
                return 2

            def __contains__(self, x):
                return x == 3

        with StandIn(source, reference=source) as mod:
            items = [BarelySortable(v) for v in (3, 1, 2)]
            self.assertFalse(mod.is_sorted(items))
            back = mod.order(items)
            self.assertEqual([item.value for item in back], [1, 2, 3])
            self.assertTrue(all(any(item is mine for mine in items) for item in back), "the judge's own objects")
            self.assertEqual(mod.first_item(Box()), (7, 2, True, True))

    def test_a_builtin_iterator_argument_crosses_as_the_list_of_its_items(self):
        with StandIn("def total(values):\n    return sum(values)\n", reference="def total(values):\n    return sum(values)\n") as mod:
            self.assertEqual(mod.total(map(int, ["1", "2"])), 3)
            self.assertEqual(mod.total(x * x for x in range(4)), 14)
            self.assertEqual(mod.total(range(5)), 10)
            self.assertEqual(mod.total(iter([1, 2])), 3)

    def test_what_the_function_prints_is_printed_where_the_judge_reads_it(self):
        # A test that reads the output (capsys, redirect_stdout) judges the candidate's, which
        # otherwise went nowhere: a candidate that prints nothing, or noise, failed no such test.
        import contextlib
        import io
        source = "import sys\n\n\ndef f(x):\n    print('f of', x)\n    sys.stderr.write('warned\\n')\n    return x\n"
        with StandIn(source, reference=source) as mod:
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                self.assertEqual(mod.f(2), 2)
            self.assertEqual((out.getvalue(), err.getvalue()), ("f of 2\n", "warned\n"))
            # A test that patches print sees the call the function made, with its arguments.
            from unittest import mock
            with mock.patch("builtins.print") as patched, contextlib.redirect_stderr(io.StringIO()):
                mod.f(3)
            patched.assert_called_once_with("f of", 3)
        loud = "def f(x):\n    print('x' * 3000000)\n    return x\n"
        with StandIn(loud, reference=loud) as mod:
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                mod.f(1)
            self.assertLessEqual(len(out.getvalue()), 1 << 20, "as much as the child sends at most")

    def test_stop_iteration_from_the_candidate_never_ends_the_judges_loops(self):
        with StandIn("def f(x):\n    raise StopIteration\n", reference="def f(x):\n    return x\n") as mod:
            with self.assertRaises(CandidateRaised):
                mod.f(1)
            with self.assertRaises(CandidateRaised):
                all(map(mod.f, [1, 2, 3]))  # a StopIteration here would have ended all() as True

    def test_an_exception_named_like_a_module_value_that_is_not_an_exception_is_not_raised_as_it(self):
        reference = "ROMAN = 1\n\n\ndef f():\n    return 0\n"
        with StandIn("class ROMAN(Exception):\n    pass\n\n\ndef f():\n    raise ROMAN('x')\n", reference=reference) as mod:
            with self.assertRaisesRegex(CandidateRaised, "ROMAN: x"):
                mod.f()

    def test_relative_imports_of_the_users_package_resolve_in_both_processes(self):
        with tempfile.TemporaryDirectory() as root:
            pkg = os.path.join(root, "original", "mypkg")
            os.makedirs(pkg)
            for name, text in (("__init__.py", "from .core import double\n"), ("util.py", "FACTOR = 2\n\n\ndef times(x, k):\n    return x * k\n"),
                               ("core.py", "from .util import FACTOR, times\n\n\ndef double(x):\n    return times(x, FACTOR)\n")):
                with open(os.path.join(pkg, name), "w") as fh:
                    fh.write(text)
            candidate = os.path.join(root, "candidate.py")
            with open(candidate, "w") as fh:
                fh.write("from .util import FACTOR\n\n\ndef double(x):\n    return x + x + 0 * FACTOR\n")
            judge_pkg = os.path.join(root, "judge", "mypkg")
            os.makedirs(judge_pkg)
            with open(os.path.join(judge_pkg, "__init__.py"), "w") as fh:
                fh.write("")
            with open(os.path.join(judge_pkg, "util.py"), "w") as fh:
                fh.write("FACTOR = 2\n\n\ndef times(x, k):\n    return x * k\n")
            write_standin(os.path.join(judge_pkg, "core.py"), candidate, reference_path=os.path.join(pkg, "core.py"),
                          package="mypkg", import_paths=[os.path.join(root, "original")])
            sys.path.insert(0, os.path.join(root, "judge"))
            try:
                import mypkg.core as core  # noqa: PLC0415
                self.assertEqual(core.double(21), 42)
                self.assertIn("Forwards", core.double.__doc__)
            finally:
                sys.path.remove(os.path.join(root, "judge"))
                for name in [m for m in sys.modules if m == "mypkg" or m.startswith("mypkg.")]:
                    del sys.modules[name]

    def test_the_seed_makes_a_program_that_draws_numbers_reproducible(self):
        program = "import random\n\n\ndef draw():\n    return random.random()\n"
        with StandIn(program, seed=7) as first, StandIn(program, seed=7) as second, StandIn(program, seed=8) as other:
            self.assertEqual(first.draw(), second.draw())
            self.assertNotEqual(first.draw(), other.draw())


class ProjectCommandTest(unittest.TestCase):
    def test_a_pythonpath_the_command_assigns_keeps_the_one_the_reports_need(self):
        from peagen_harness.project_tests import keeps_our_pythonpath
        self.assertEqual(keeps_our_pythonpath("PYTHONPATH=src python3 -m pytest"), 'PYTHONPATH=src:"$PYTHONPATH" python3 -m pytest')
        self.assertEqual(keeps_our_pythonpath('cd x && PYTHONPATH="a b" pytest'), 'cd x && PYTHONPATH="a b":"$PYTHONPATH" pytest')
        self.assertEqual(keeps_our_pythonpath("PYTHONPATH=$PYTHONPATH:src pytest"), "PYTHONPATH=$PYTHONPATH:src pytest")
        self.assertEqual(keeps_our_pythonpath("python3 -m unittest"), "python3 -m unittest")



class TypesOnlyCopyTest(unittest.TestCase):
    """The TypeScript candidate's text beside the stand-in, for the project's type check only."""

    def test_it_throws_before_its_first_statement_and_imports_nothing_from_outside(self):
        from peagen_harness.project_tests import _types_only_copy
        root = "/tmp/peagen-tests-x/project"
        kept = _types_only_copy('import { a } from "./util";\nimport fs from "node:fs";\nif (import.meta.vitest) {}\n', root + "/src", root)
        self.assertTrue(kept.splitlines()[1].startswith("(() => { throw new Error("), kept)
        self.assertIn('from "./util"', kept)
        self.assertIn('from "node:fs"', kept)
        # helper-29's B3 went through vitest; a module's imports run before its first statement.
        # The text stays (the type check still sees it), its import names a file that is not there.
        for spec in ("data:text/javascript,1", "file:///tmp/x.js", "/etc/x.js", "../../candidate.ts",
                     "./peagen-original-tally", "lodash/../../../candidate.ts"):
            copy = _types_only_copy('import "%s";\nexport const f: number = 1;\n' % spec, root + "/src", root)
            self.assertNotIn(spec, copy)
            self.assertIn('import "./.peagen-refused-import";\nexport const f: number = 1;', copy)
        # helper-33's break 2: a comment naming an outside path emptied the copy, so a mistyped
        # candidate was never type-checked. Its code stays; only the comment's text changes.
        copy = _types_only_copy('// adapted from "/usr/share/doc"\nexport const f: number = "x";\n', root + "/src", root)
        self.assertIn('export const f: number = "x";', copy)

    def test_no_text_is_left_for_vitest_or_vite_to_act_on_and_the_types_are_the_same(self):
        # helper-33's break 1: `import.meta.vitestX` made vitest run the copy as an in-source test,
        # and a dead `import.meta.glob("../../candidate.ts", {eager: true})` became a static import;
        # helper-34's: `_import.meta.vitest` in a comment did the same. Vitest and Vite look for the
        # raw text; a unicode escape names the same property and makes the same string, so that
        # tsc judges `import.meta` as written (helper-34: a stand-in constant hid TS1343 and TS2322).
        from peagen_harness.project_tests import _types_only_copy
        root = "/tmp/peagen-tests-x/project"
        text = ('// _import.meta.vitest\nif (import.meta.vitestX) {}\nif (false) import.meta.glob("../../candidate.ts", { eager: true });\n'
                'const u = import.meta.url;\nconst s: "import.meta.vitest" = "import.meta.vitest";\n')
        copy = _types_only_copy(text, root + "/src", root)
        self.assertNotIn("import.meta.vitest", copy)
        self.assertNotIn("import.meta.glob", copy)
        self.assertIn("const u = import.meta.url;", copy)
        self.assertIn('const s: "import.meta.vi\\u0074est" = "import.meta.vi\\u0074est";', copy)


if __name__ == "__main__":
    unittest.main()
