"""The process boundary between a judge (a project's tests, an OpenEvolve evaluator.py) and the
candidate it judges: the judge imports a stand-in module in place of the program, in which
only the EVOLVED functions forward each call to the candidate, which runs in a locked-down
process of its own (the speed harness's child: restricted built-ins, the reference's imports
only, an audit hook, no files, no stdout).

    plan = write_standin("project/stats.py", "candidate.py", reference_path="original/stats.py")
    # the judge's `from stats import mean, StatsError` gets a forwarder and the original's class

With a reference (the trusted original), the stand-in IS the user's module: the original's
source runs in it, so its classes, exceptions, constants, helpers and relative imports are the
original's, and then the evolved functions (the definitions the original's EVOLVE-BLOCK markers
overlap, or those named) are replaced by forwarders. With neither markers nor names the whole
file is evolved: every function is forwarded, and a class it defines cannot be carried. Without one, only module-level
functions are forwarded and plain-data values copied from the candidate.

Only plain data of exact built-in types crosses back (_child.to_wire): no subclass, nothing
with behaviour, so the candidate's code never runs in the judge. Its exit, exec, signals,
threads and printing stay in its own process; an exception it raises arrives as the module's
exception class of that name (the original's), else the built-in one (so `assertRaises(ValueError)`
still works), with its arguments when they are plain data; anything else is CandidateRaised.
Containers a call changes in place (a list sorted in place) are changed in the caller too.

A function or object of the judge's passed as an argument (a test's lambda, `key=str.lower`, a hook,
an instance of a test's class) stays in the judge: the candidate gets a stand-in whose calls,
comparisons, hashing, length, items and conversions are asked of the judge with plain data, the
answers returned the same way, and the judge's objects come back as themselves.

What a stand-in cannot carry (the plan's `unsupported`): an evolved class, generator or
coroutine, attributes or other methods of the judge's objects, and module state the judge reads
after a call changed it in the candidate's process.
"""
from __future__ import annotations

import ast
import atexit
import builtins
import enum
import itertools
import json
import operator
import os
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, List, Optional, Union

from ._child import PROGRAM_MODULE, WireError, from_wire, to_wire, value_base
from .candidate import Candidate, CandidateFailure
from .boundary_names import evolved_names
from .policy import Policy, imports_of, optional_imports_of

HARNESS_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
#: The exceptions a candidate's exception is re-raised as in the judge, by name. Only
#: Exception subclasses: a candidate cannot raise SystemExit or KeyboardInterrupt in the judge.
BUILTIN_EXCEPTIONS = {name: value for name, value in vars(builtins).items()
                      if isinstance(value, type) and issubclass(value, Exception)}


#: Exceptions that end the judge's own iteration when raised inside it: never rebuilt there.
LOOP_ENDERS = (StopIteration, StopAsyncIteration)


class CandidateRaised(Exception):
    """The candidate's function raised an exception that is not a built-in one (its type
    name and message are in the text)."""


@dataclass
class StandinPlan:
    """What a stand-in for a module offers: `functions` are forwarded, `values` copied (plain
    data, read from the candidate when the stand-in is imported); `unsupported` names what the
    module has that a stand-in cannot carry, each with the reason."""

    functions: List[str] = field(default_factory=list)
    values: List[str] = field(default_factory=list)
    unsupported_names: Dict[str, str] = field(default_factory=dict)

    @property
    def forwardable(self) -> List[str]:
        return list(self.functions)

    @property
    def unsupported(self) -> List[str]:
        return list(self.unsupported_names.values())

    @property
    def names(self) -> List[str]:
        return self.functions + self.values


def _is_generator(function: ast.FunctionDef) -> bool:
    """Whether the function itself yields (a generator inside it, or a lambda, does not make it one)."""
    stack: List[ast.AST] = list(function.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Yield, ast.YieldFrom)):
            return True
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            stack.extend(ast.iter_child_nodes(node))
    return False


def plan_original(reference: str, evolved: Optional[Iterable[str]]) -> StandinPlan:
    """The plan of a stand-in that is the original module with its evolved functions forwarded
    (`evolved` None: every top-level function)."""
    plan = StandinPlan()
    wanted = None if evolved is None else set(evolved)
    for node in ast.parse(reference).body:
        name = getattr(node, "name", None)
        if name is None or (wanted is not None and name not in wanted):
            continue
        if isinstance(node, ast.FunctionDef):
            if _is_generator(node):
                plan.unsupported_names[name] = "%s() is an evolved generator (its values cannot be forwarded one by one)" % name
            else:
                plan.functions.append(name)
        elif isinstance(node, ast.AsyncFunctionDef):
            plan.unsupported_names[name] = "%s() is an evolved coroutine function" % name
        elif isinstance(node, ast.ClassDef):
            # Evolved by name, or the whole file is (no markers, no names): the candidate's class
            # would differ from the original's, and a class cannot be forwarded.
            plan.unsupported_names[name] = "class %s is evolved (a class cannot be forwarded)" % name
    return plan


def plan_module(source: str) -> StandinPlan:
    """The stand-in plan for a module with this source when there is no trusted original to
    run in the judge: its functions forwarded, its values copied."""
    plan = StandinPlan()
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef):
            if _is_generator(node):
                plan.unsupported_names[node.name] = "%s() is a generator (its values cannot be forwarded one by one)" % node.name
            else:
                plan.functions.append(node.name)
        elif isinstance(node, ast.AsyncFunctionDef):
            plan.unsupported_names[node.name] = "%s() is a coroutine function" % node.name
        elif isinstance(node, ast.ClassDef):
            plan.unsupported_names[node.name] = "class %s" % node.name
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for name in ast.walk(target):
                    if isinstance(name, ast.Name) and name.id not in plan.values and not name.id.startswith("__"):
                        plan.values.append(name.id)
    return plan


STANDIN_TEMPLATE = '''\
# Written by Peagen (peagen_harness.boundary): a stand-in for the program under evaluation.
# The program runs in a process of its own; each function here forwards its calls there.
import sys as _peagen_sys
if {harness!r} not in _peagen_sys.path:
    _peagen_sys.path.append({harness!r})
from peagen_harness.boundary import install_standin as _peagen_install_standin
_peagen_install_standin(globals(), {config!r})
del _peagen_sys, _peagen_install_standin
'''


def write_standin(dest_path: str, candidate_path: str, *, reference_path: Optional[str] = None,
                  allowed_imports: Optional[Iterable[str]] = None, module_name: str = "program",
                  call_timeout: float = 60.0, load_timeout: float = 30.0, seed: Optional[int] = None,
                  evolved: Optional[Iterable[str]] = None, package: Optional[str] = None,
                  import_paths: Iterable[str] = ()) -> StandinPlan:
    """Writes at `dest_path` a module that stands in for `candidate_path`. With a reference
    (the trusted original the judge was written for) the stand-in runs the original and
    forwards its evolved functions: `evolved` names them, else the EVOLVE-BLOCK markers of the
    reference do, else every top-level function is (never the candidate's markers: it could
    empty its block to have the original judged instead). The import allow-list
    is the reference's; `package` and `import_paths` let the candidate's process resolve the
    relative imports the original makes (the user's package, read from the original project).
    `seed` seeds the candidate's `random` in its process, so that an evaluation is reproducible."""
    with open(reference_path or candidate_path, encoding="utf-8") as fh:
        source = fh.read()
    if reference_path is not None:
        # Never from the candidate's own markers: a candidate that empties its block would have
        # the original judged in its place. None (no markers in the reference): every function.
        if evolved is None:
            evolved = evolved_names(source)
        plan = plan_original(source, evolved)
    else:
        plan = plan_module(source)
    import_paths = list(import_paths)
    config = {
        "candidate": os.path.abspath(candidate_path),
        "original": os.path.abspath(reference_path) if reference_path is not None else None,
        "module": module_name,
        "functions": plan.functions,
        "values": plan.values,
        "unsupported": plan.unsupported_names,
        "allowed_imports": sorted(imports_of(source, package, import_paths[0] if import_paths else None) if allowed_imports is None else allowed_imports),
        "package": package,
        "optional_imports": sorted(optional_imports_of(source)),
        "import_paths": [os.path.abspath(p) for p in import_paths],
        "call_timeout": call_timeout,
        "load_timeout": load_timeout,
        "seed": seed,
    }
    with open(dest_path, "w", encoding="utf-8") as fh:
        fh.write(STANDIN_TEMPLATE.format(harness=HARNESS_DIR, config=json.dumps(config)))
    return plan


def install_standin(namespace: Dict[str, Any], config_text: str) -> None:
    """Fills the stand-in module's namespace (called by the file write_standin wrote): starts
    the candidate's process, forwards its functions, copies its plain-data values."""
    config = json.loads(config_text)
    original = config.get("original")
    if original:
        # The user's module as it is (trusted): its classes, exceptions, constants and helpers.
        with open(original, encoding="utf-8") as fh:
            code = compile(fh.read(), original, "exec", dont_inherit=True)
        exec(code, namespace)  # noqa: S102 - the trusted original, never the candidate
    # The tests' own recursion limit: a module that reads it (tomli nests at most that deep) and
    # a test that expects RecursionError see the same in the candidate's process.
    policy = Policy(allowed_imports=frozenset(config["allowed_imports"]), package=config.get("package"),
                    optional_imports=frozenset(config.get("optional_imports", ())),
                    recursion_limit=max(sys.getrecursionlimit(), 200))
    try:
        program = Candidate(config["candidate"], None, policy, load_timeout=config["load_timeout"], name="candidate",
                            own_session=False, seed=config.get("seed"), import_paths=config.get("import_paths") or ())
    except CandidateFailure as exc:
        raise ImportError("%s (run in a process of its own by Peagen)" % exc) from None
    atexit.register(program.close)
    timeout = float(config["call_timeout"])
    unsupported = dict(config["unsupported"])
    module = namespace.get("__name__", config["module"])
    if original:
        if not config["functions"] and not config["unsupported"]:
            # Nothing to forward: the tests would judge the original in the candidate's place.
            raise ImportError("Peagen cannot judge the evolved functions behind the process boundary: the original "
                              "defines none of them at its top level (run in a process of its own by Peagen)")
        for name in config["functions"]:
            namespace[name] = _forwarder(program, name, module, timeout, namespace)
        for name in unsupported:
            namespace.pop(name, None)  # the candidate's version cannot be carried: never the original's instead
        described = {}
    else:
        described = program.request(b"D", config["functions"] + config["values"], timeout, "describing the module")
    for name, what in (described.get("names") or {}).items():
        kind = what.get("kind") if isinstance(what, dict) else None
        if kind == "function":
            namespace[name] = _forwarder(program, name, module, timeout, namespace)
        elif kind == "value":
            try:
                namespace[name] = from_wire(what.get("value"))
            except WireError:
                unsupported[name] = "%s: not plain data" % name
        elif kind == "unsupported":
            unsupported[name] = "%s is a %s in the candidate" % (name, what.get("what"))

    previous = namespace.get("__getattr__") if original else None  # the original's own (PEP 562)

    def __getattr__(name: str) -> Any:
        if name not in unsupported and callable(previous):
            return previous(name)
        if name in unsupported:
            raise AttributeError("%s: Peagen runs the candidate in a process of its own and this stand-in "
                                 "forwards only functions and plain data; see docs/trust.md "
                                 "for the in-process mode" % unsupported[name])
        raise AttributeError("module %r has no attribute %r" % (namespace.get("__name__"), name))

    namespace["__getattr__"] = __getattr__
    namespace["__peagen_standin__"] = {"unsupported": sorted(unsupported.values())}


def _forwarder(program: Candidate, name: str, module: str, timeout: float, namespace: Dict[str, Any]) -> Any:
    def forward(*args: Any, **kwargs: Any) -> Any:
        return call(program, name, args, kwargs, timeout, namespace)

    forward.__name__ = forward.__qualname__ = name
    forward.__module__ = module
    forward.__doc__ = "Forwards to %s() of the candidate, in a process of its own (Peagen)." % name
    return forward


#: Built-in one-shot iterables a test passes where the function takes any iterable
#: (`is_sorted(map(f, xs))`): they cross as the list of their items.
_ITERATOR_TYPES = (map, filter, zip, enumerate, reversed, range, type(x for x in ()))
_MAX_ITEMS = 1_000_000


def _crossing(value: Any) -> Any:
    """An argument as it can cross: a built-in iterator or range becomes the list of its items
    (consumed here, as the function would have consumed it); anything else as it is."""
    kind = type(value)
    if kind in _ITERATOR_TYPES or (kind.__module__ == "builtins" and kind.__name__.endswith("iterator")):
        items = []
        for item in value:
            if len(items) >= _MAX_ITEMS:
                raise TypeError("an iterator of more than %d items cannot cross the process boundary" % _MAX_ITEMS)
            items.append(item)
        return items
    return value


def call(program: Candidate, name: str, args: tuple, kwargs: Dict[str, Any], timeout: float,
         namespace: Optional[Dict[str, Any]] = None) -> Any:
    """Calls `name` in the candidate's process; returns plain data, updates the container
    arguments it changed in place, raises what it raised (see the module's docstring)."""
    args = tuple(_crossing(arg) for arg in args)
    kwargs = {key: _crossing(value) for key, value in kwargs.items()}
    callbacks: List[Any] = []  # the judge's functions and objects among the arguments (a key, a hook, a test's class)
    try:
        payload = {"fn": name, "args": to_wire(list(args), 0, callbacks), "kwargs": to_wire(dict(kwargs), 0, callbacks)}
    except WireError as exc:
        raise TypeError("%s() runs in a process of its own and its arguments must be plain data: %s"
                        % (name, exc)) from None
    deadline = time.monotonic() + timeout
    reply = program.request(b"F", payload, timeout, "calling %s()" % name)
    while isinstance(reply, dict) and "callback" in reply and "output" not in reply and "error" not in reply:
        # The candidate calls one of them: it runs here, in the judge, on plain data only.
        answer = _run_callback(callbacks, reply)
        left = deadline - time.monotonic()
        if left <= 0:
            program.kill()
            raise CandidateFailure("timeout: %s() did not finish within %.1f s" % (name, timeout))
        reply = program.request(b"R", answer, left, "calling %s()" % name)
    resolve = lambda ref, is_function: _known(callbacks, ref)  # noqa: E731 - the judge's own objects, handed back
    instance = lambda module, qualname, state, base=None: _own_instance(namespace or {}, module, qualname, state, base)  # noqa: E731
    try:
        changed = {key: from_wire(wire, 0, resolve, instance) for key, wire in (reply.get("changed") or {}).items()}
        output = from_wire(reply.get("output"), 0, resolve, instance) if "output" in reply else None
    except (WireError, AttributeError, RecursionError) as exc:
        # RecursionError: nested deeper than the tests' stack, never the candidate's exception.
        program.kill()
        raise CandidateFailure("the candidate's process answered garbage: %s" % exc) from None
    for key, value in changed.items():
        target = args[int(key)] if key.isdigit() and int(key) < len(args) else kwargs.get(key)
        _update_in_place(target, value)
    _print_here(reply.get("printed"), resolve, instance)
    if "error" in reply:
        text = str(reply.get("error"))[:2000]
        try:
            error_args = from_wire(reply["error_args"], 0, resolve, instance) if reply.get("error_args") is not None else None
        except (WireError, TypeError, AttributeError, RecursionError):
            error_args = None
        try:
            error_state = from_wire(reply["error_state"], 0, resolve, instance) if reply.get("error_state") is not None else None
        except (WireError, TypeError, AttributeError, RecursionError):
            error_state = None
        raise _exception(str(reply.get("error_type")), text, error_args, namespace or {}, error_state)
    if "output" not in reply:
        program.kill()
        raise CandidateFailure("the candidate's process answered garbage")
    return output


def _print_here(printed: Any, resolve: Any, instance: Any) -> None:
    """What the call printed in the candidate's process (_child._PrintLog), printed again here,
    in order, where the judge's sys.stdout and sys.stderr are now (pytest's capsys, a
    redirect_stdout) and through the judge's print() for a print() of plain data (a test that
    patches builtins.print sees the arguments the function gave it). Text and plain data only;
    an event that is neither is dropped."""
    if not isinstance(printed, list):
        return
    for event in printed[:100_000]:
        if not isinstance(event, list) or len(event) != 3:
            continue
        kind, body, where = event
        if kind == "write" and isinstance(body, str) and where in (0, 1):
            stream = sys.stderr if where else sys.stdout
            if stream is not None:
                stream.write(body)
        elif kind == "print" and where in (None, "stdout", "stderr"):
            try:
                args, given = from_wire(body, 0, resolve, instance)
            except (WireError, ValueError, TypeError, AttributeError, RecursionError):
                continue
            if not isinstance(args, list) or not isinstance(given, dict) or not all(
                    key in ("sep", "end", "flush") and (value is None or isinstance(value, (str, bool)))
                    for key, value in given.items()):
                continue
            if where is not None:
                given["file"] = sys.stderr if where == "stderr" else sys.stdout
            builtins.print(*args, **given)


def _iterated(value: Any) -> list:
    items = list(itertools.islice(iter(value), _MAX_ITEMS + 1))
    if len(items) > _MAX_ITEMS:
        raise TypeError("an iteration of more than %d items cannot cross the process boundary" % _MAX_ITEMS)
    return items


#: What the candidate may ask of an object of the judge's it was given (_child.REMOTE_OPERATIONS):
#: done here, by the operators Python itself uses (a reflected comparison included).
_REMOTE_OPERATIONS = {
    "__call__": lambda obj, *args, **kwargs: obj(*args, **kwargs),
    "__lt__": operator.lt, "__le__": operator.le, "__gt__": operator.gt, "__ge__": operator.ge,
    "__eq__": operator.eq, "__ne__": operator.ne, "__hash__": hash, "__len__": len,
    "__getitem__": operator.getitem, "__contains__": operator.contains, "__iter__": _iterated,
    "__str__": str, "__repr__": repr, "__int__": int, "__float__": float, "__index__": operator.index,
    "__bool__": bool,
}


def _run_callback(callbacks: List[Any], request: dict) -> dict:
    """One operation the candidate asks of a function or object of the judge's it was given (a
    call, a comparison, a hash): its answer, or the exception it raised, as plain data (objects
    of the judge's as handles again). Garbage from the candidate is a failure of it."""
    index, method = request.get("callback"), request.get("method", "__call__")
    resolve = lambda ref, is_function: _known(callbacks, ref)  # noqa: E731
    try:
        if type(index) is not int or not 0 <= index < len(callbacks) or method not in _REMOTE_OPERATIONS:
            raise WireError("no such object or operation")
        call_args, call_kwargs = from_wire(request.get("args"), 0, resolve), from_wire(request.get("kwargs"), 0, resolve)
        if type(call_args) is not list or type(call_kwargs) is not dict or not all(type(k) is str for k in call_kwargs):
            raise WireError("expected a list of arguments and a dict of keyword arguments")
        if call_kwargs and method != "__call__":
            raise WireError("keyword arguments to %s" % method)
    except WireError as exc:
        raise CandidateFailure("the candidate's process called back with garbage: %s" % exc) from None
    try:
        result = _REMOTE_OPERATIONS[method](callbacks[index], *call_args, **call_kwargs)
    except Exception as exc:  # noqa: BLE001 - the judge's function failed: the candidate sees it fail
        return {"error": "%s: %s" % (type(exc).__name__, exc), "error_type": type(exc).__name__}
    try:
        return {"output": to_wire(result, 0, callbacks)}
    except WireError as exc:
        return {"error": "the answer of a function of the tests cannot cross the process boundary: %s" % exc,
                "error_type": "TypeError"}


def _known(callbacks: List[Any], ref: int) -> Any:
    """The judge's object behind a handle the candidate's process sent back."""
    if type(ref) is not int or not 0 <= ref < len(callbacks):
        raise WireError("no such object")
    return callbacks[ref]


def _update_in_place(target: Any, value: Any) -> None:
    kind = type(target)
    if kind is not type(value):
        return
    if kind in (list, bytearray):
        target[:] = value
    elif kind in (dict, set):
        target.clear()
        target.update(value)


def _user_roots(namespace: Dict[str, Any]) -> set:
    """The top-level packages of the user's module (its own, and its package's)."""
    return {str(namespace.get(key) or "").split(".")[0] for key in ("__name__", "__package__")} - {""}


def _own_instance(namespace: Dict[str, Any], module: str, qualname: str, state: Union[Dict[str, Any], str],
                  base_value: Any = None) -> Any:
    """The candidate's answer that is an instance of one of the user's classes (its state, as
    the child sent it): an instance of the original's class of that module and name, made
    without running its constructor (`__new__`, then the state), so that the tests compare it
    with their own (`assertEqual(parse_duration(...), Duration(...))`) through the original's
    methods. Only a class the user's module defines or imports from its own package. A class
    on a value base (a namedtuple, `Cents(int)`: _child.value_base) is made by that base's
    __new__ from `base_value`, which must be of that exact type."""
    holder = namespace if module == PROGRAM_MODULE else getattr(sys.modules.get(module), "__dict__", None)
    if module != PROGRAM_MODULE and module.split(".")[0] not in _user_roots(namespace):
        holder = None
    cls: Any = holder
    for part in qualname.split("."):
        cls = cls.get(part) if isinstance(cls, dict) else getattr(cls, part, None) if isinstance(cls, type) else None
    expected = namespace.get("__name__") if module == PROGRAM_MODULE else module
    if not isinstance(cls, type) or cls.__module__ != expected or issubclass(cls, BaseException):
        # As any other value that cannot cross: the call fails in the judge (the test fails).
        raise TypeError("the result cannot cross the process boundary: an instance of %s, which is not a class of "
                        "the original's" % qualname)
    if isinstance(state, str):  # a member of the original's Enum, by name (_child._own_enum_member)
        member = cls.__members__.get(state) if issubclass(cls, enum.Enum) else None
        if member is None:
            raise TypeError("the result cannot cross the process boundary: %s has no member %s" % (qualname, state[:100]))
        return member
    # No method of the class's may be stood in for (`same_as = bool` in the state, which its own
    # __eq__ would call), and no value of the state may be a function.
    if any(callable(getattr(cls, key, None)) or callable(value) for key, value in state.items()):
        raise TypeError("the result cannot cross the process boundary: an instance of %s whose state holds a "
                        "function or names a method" % qualname)
    value_kind = value_base(cls)
    if (base_value is None) != (value_kind is None) or (base_value is not None and type(base_value) is not value_kind):
        raise TypeError("the result cannot cross the process boundary: an instance of %s whose value is not "
                        "its base's" % qualname)
    try:
        # The __new__ of the first base that is not the user's (object's, or datetime.tzinfo's for
        # toml's TomlTz), never the class's own: an interning __new__ would hand back an object
        # the tests hold (their expected answer), and the state would overwrite it.
        roots = _user_roots(namespace)
        base = next(b for b in cls.__mro__ if b.__module__ != namespace.get("__name__") and b.__module__.split(".")[0] not in roots)
        made = value_kind.__new__(cls, base_value) if value_kind is not None else base.__new__(cls)
        if value_kind is None or state:
            vars(made).update(state)
    except Exception:  # noqa: BLE001 - a subclass of a built-in type, no __dict__ to hold the state
        raise TypeError("the result cannot cross the process boundary: an instance of %s, whose state cannot be "
                        "set" % qualname) from None
    return made


def _exception(type_name: str, text: str, args: Optional[list], namespace: Dict[str, Any], state: Any = None) -> Exception:
    """The exception the judge sees for one the candidate raised: the module's class of that
    name (the original's: the tests' `assertRaises(roman.OutOfRangeError)`), else the built-in
    one, built with the candidate's arguments when they are plain data, else with its text;
    with the attributes it had (`exc_info.value.position.line`: sexpdata), when they are data."""
    made = _exception_of(type_name, text, args, namespace)
    if type(state) is dict and type(made) is not CandidateRaised and all(
            type(key) is str and not key.startswith("__") and not callable(value) and not callable(getattr(type(made), key, None))
            for key, value in state.items()):
        try:
            vars(made).update(state)
        except (TypeError, AttributeError):  # no __dict__: it crosses without them
            pass
    return made


def _exception_of(type_name: str, text: str, args: Optional[list], namespace: Dict[str, Any]) -> Exception:
    """The class and arguments of _exception's exception."""
    own = namespace.get(type_name)
    # The user's own exception classes only: the module's, or one it imports from its own
    # package (`from .errors import InvalidInputError`); not a library's.
    roots = _user_roots(namespace)
    mine = isinstance(own, type) and issubclass(own, Exception) and (
        own.__module__ == namespace.get("__name__") or own.__module__.split(".")[0] in roots)
    cls = own if mine else BUILTIN_EXCEPTIONS.get(type_name)
    if cls is not None and issubclass(cls, LOOP_ENDERS):
        return CandidateRaised(text)  # raised in the judge, it would end its `for`, map() or all() early
    if cls is not None:
        for attempt in ((tuple(args),) if type(args) is list else ()) + ((text,),):
            try:
                made = cls(*attempt)
            except Exception:  # noqa: BLE001 - e.g. UnicodeDecodeError takes five arguments
                continue
            if made.args == attempt or type(args) is not list:
                return made
            # A constructor that makes its message from other arguments (`InvalidInputError(value)`
            # builds 'Expected "str", received ...'): the exception as the candidate had it.
            bare = cls.__new__(cls)
            bare.args = attempt
            return bare
        if mine:
            # A constructor that takes other arguments than the exception keeps (sexpdata's
            # ExpectClosingBracket(got, expect, position) keeps its message): the exception
            # as the candidate had it, made without its __init__, as an instance of the
            # user's class crosses (its attributes are set by _exception).
            try:
                bare = cls.__new__(cls)
                bare.args = tuple(args) if type(args) is list else (text,)
                return bare
            except Exception:  # noqa: BLE001 - a __new__ of its own that wants arguments
                pass
    return CandidateRaised(text)
