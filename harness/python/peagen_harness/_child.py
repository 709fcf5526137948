"""The process that hosts ONE untrusted program. Started by peagen_harness.Candidate; never
run by hand, never imported.

It is deliberately standalone (stdlib only, started with `python3 -I -S -B`), and it is NOT
trusted once the program has loaded: the parent checks every answer against its own reference
and measures this process's time from outside, so even a program that took this process over
could only send wrong answers. What happens here makes such a takeover hard:

  * the program is compiled from source and executed in a namespace whose `__builtins__` is a
    restricted dict (no eval/exec/compile/open/getattr/..., an `__import__` that enforces the
    evaluator's allow-list);
  * an audit hook, installed before the program's code runs, refuses every audited operation
    (compile, exec, import of anything outside the allow-list, open, os.*, subprocess, ctypes,
    frame/code attribute reads reported as object.__getattr__, ...) except a short list of
    harmless ones. A refusal is recorded, so a program that catches the exception is still
    reported to the parent.
  * fds 0 and 1 point at /dev/null: the protocol uses private duplicates, so whatever the
    program prints or reads never touches it.

Protocol, one line each way, first byte = operation:
  parent: b"L" + json {"path", "entry", "allowed_imports", "removed_builtins",
                        "recursion_limit", "allowed_audit_events", "import_paths", "seed",
                        "package", "memory_mb"}  (package: what the program's relative imports resolve in; memory_mb: a cap on its data)
  child : {"ready": true} | {"load_error": str, "violations": [...]}
  parent: b"G"  (collect garbage; untimed)          child: {"ok": true}
  parent: b"C" + json [args]  (call the entry)      child: reply
          (args that JSON cannot say, bytes or sets: {"$wire": [args, as wire]})
  parent: b"E" + json [args]  (echo: the same path with the identity instead of the entry)
  parent: b"N" + json [args]  (echo that returns None: for programs with small results)
  parent: b"F" + json {"fn", "args": wire, "kwargs": wire}  (call a module-level function by
          name, for the process boundary of peagen_harness.boundary)
  child : {"output": wire, "changed": {"<index or name>": wire}} |
          {"error": str, "error_type": str, "error_args": wire, "error_state": wire, "changed": {...}}  ("changed": the container
          arguments the call changed in place, so the caller's copies can be updated)
          While an F call runs, the candidate may use a function or object of the judge's it got
          as an argument ({"$": "ref", "v": [index, "function" | "object"]} on the wire):
  child : {"callback": index, "method": "__call__" | one of REMOTE_OPERATIONS, "args": wire, "kwargs": wire}
  parent: b"R" + json {"output": wire} | {"error": str, "error_type": str}
  parent: b"D" + json [names]  (describe module-level names)
  child : {"names": {name: {"kind": "function"} | {"kind": "value", "value": wire} |
                           {"kind": "unsupported", "what": str} | {"kind": "missing"}}}
  parent: b"X"  (exit)
  reply : {"output": value, "mutated": bool} | {"error": str, "mutated": bool},
          plus "violations": [...] when the sandbox refused something since the last reply.
The config's "entry" may be null: then no single entry is required (the boundary's mode,
which calls functions by name with "F").

"wire" is plain data of exact built-in types, as JSON (see to_wire): the same functions
encode on both sides, so only None, bool, int, float, str, bytes, bytearray, complex, list,
tuple, dict, set and frozenset cross, and the standard library's dates, times, timedeltas,
fixed-offset timezones and Decimals, never a subclass or anything with behaviour; a few
built-in functions and types (WIRE_BUILTINS: `key=int`) cross by name, each side using its own.
"""
import builtins
import gc
import json
import opcode
import os
import sys

_loads = json.loads
_dumps = json.dumps
_type = type
_set = set
_map = map
_len = len
_any = any
_all = all
_str = str
_write = os.write
_SCALARS = frozenset((int, float, str, bool, type(None)))

# Built-ins a program may use. Everything that evaluates code, reaches attributes by name,
# touches files or the interpreter is absent; `__import__` is replaced by the guarded one.
# `locals` reads only the caller's own namespace (parse's extract_format returns its locals;
# at a module's level it is the program's namespace, which the program holds already); the
# static check still refuses it to a candidate whose original does not use it.
SAFE_BUILTINS = (
    "abs", "aiter", "all", "anext", "any", "ascii", "bin", "bool", "bytearray", "bytes",
    "callable", "chr", "classmethod", "complex", "dict", "divmod", "enumerate", "filter",
    "float", "format", "frozenset", "hasattr", "hash", "hex", "id", "int", "isinstance",
    "issubclass", "iter", "len", "list", "locals", "map", "max", "min", "next", "object", "oct", "ord",
    "pow", "print", "property", "range", "repr", "reversed", "round", "set", "slice", "sorted",
    "staticmethod", "str", "sum", "super", "tuple", "type", "zip",
    "__build_class__", "Ellipsis", "NotImplemented", "True", "False", "None",
)
HARMLESS_EVENTS = frozenset(("builtins.id",))


class SandboxViolation(RuntimeError):
    pass


def _type_test_only(real, why):
    """A built-in type the program may name in isinstance()/issubclass() but not call:
    `isinstance(value, (bytes, memoryview))` is common (xmltodict), while making one is
    refused (`why`). The real type stays in this closure, not in an attribute."""
    def instancecheck(cls, value):
        return isinstance(value, real)

    def subclasscheck(cls, kind):
        return issubclass(kind, real)

    def call(cls, *args, **kwargs):
        raise SandboxViolation("%s() is not allowed (%s); it may only be named in isinstance()" % (real.__name__, why))

    meta = _type("type_test_only", (_type,), {"__instancecheck__": instancecheck, "__subclasscheck__": subclasscheck,
                                                "__call__": call})
    return meta(real.__name__, (), {})


#: Built-in types a program may test for but not make (see _type_test_only).
TYPE_TEST_ONLY = {"memoryview": "it can reach memory an object has freed"}


class WireError(ValueError):
    """A value that cannot cross the process boundary as plain data."""


#: Built-in functions and types that cross by name (`is_sorted(xs, key=int)`): the other side
#: takes its own object of that name, so no behaviour of the sender's travels.
WIRE_BUILTINS = ("abs", "bool", "chr", "float", "int", "len", "list", "max", "min", "ord", "repr", "round",
                 "set", "sorted", "str", "sum", "tuple")
_WIRE_BUILTIN_NAMES = {id(getattr(builtins, name)): name for name in WIRE_BUILTINS}


# Deep enough for what a recursive parser of the tests returns (tomli nests 470 levels), within
# the recursion limits of both sides (one frame a level).
_WIRE_DEPTH = 2000

#: Value types of the standard library that cross as what they are (dates and times, Decimal:
#: tomli's answers, most records'): each side builds its own from their parts, so no behaviour
#: travels. The tag names the module, which the side that decodes one imports if it must.
_STDLIB_VALUE_TAGS = {"date": "datetime", "datetime": "datetime", "time": "datetime", "timedelta": "datetime",
                      "timezone": "datetime", "decimal": "decimal", "path": "pathlib"}
#: The pathlib classes a path crosses as (its text and its class's name): the pure ones and the
#: concrete one of this system (building a path reads no file).
_PATH_CLASSES = ("PurePosixPath", "PureWindowsPath", "PosixPath")
_harness_importing = [False]  # lets the hook allow the harness's own import of such a module
_real_import = builtins.__import__


def _harness_import(name):
    module = sys.modules.get(name)
    if module is not None:
        return module
    _harness_importing[0] = True  # no program code runs while this is set (a standard module loads)
    try:
        return _real_import(name)
    finally:
        _harness_importing[0] = False


def _stdlib_value_to_wire(value, t):
    """The wire form of a date, time, timedelta, timezone or Decimal (exact types), else None."""
    module = sys.modules.get(t.__module__)
    if module is None:
        return None
    if t.__module__.split(".")[0] == "pathlib":  # pathlib._local from Python 3.13 on
        kind = t.__name__ if t.__name__ in _PATH_CLASSES else None
        return {"$": "path", "v": [kind, t.__str__(value)]} if kind and t is getattr(module, kind, None) else None
    if t.__module__ == "decimal":
        return {"$": "decimal", "v": _str(value)} if t is getattr(module, "Decimal", None) else None
    if t is module.timedelta:
        return {"$": "timedelta", "v": [value.days, value.seconds, value.microseconds]}
    if t is module.timezone:
        return {"$": "timezone", "v": [_stdlib_value_to_wire(value.utcoffset(None), module.timedelta)]}
    if t is module.date:
        return {"$": "date", "v": [value.year, value.month, value.day]}
    if t is not module.datetime and t is not module.time:
        return None
    zone = value.tzinfo
    if zone is None or _type(zone) is module.timezone:
        zone = None if zone is None else _stdlib_value_to_wire(zone, module.timezone)
    elif _own_instance_state(zone, _type(zone)) is not None:
        # A zone class of the user's (toml's TomlTz): by its class and state, as their instances
        # cross; the judge's side makes the original's class's.
        zone = to_wire(zone, _WIRE_DEPTH - _ZONE_DEPTH)
    else:
        return None  # a zone with rules of its own (zoneinfo) is behaviour
    clock = [value.hour, value.minute, value.second, value.microsecond, value.fold, zone]
    return {"$": t.__name__, "v": ([value.year, value.month, value.day] if t is module.datetime else []) + clock}


_ZONE_DEPTH = 4  # how deep the state of a user's zone may be nested


def _stdlib_value_from_wire(tag, v, instance=None):
    module = _harness_import(_STDLIB_VALUE_TAGS[tag])
    if tag == "path":
        if _type(v) is list and _len(v) == 2 and v[0] in _PATH_CLASSES and _type(v[1]) is _str:
            return getattr(module, v[0])(v[1])
        raise WireError("a malformed path")
    if tag == "decimal":
        if _type(v) is str:
            return module.Decimal(v)
        raise WireError("a malformed decimal")
    if _type(v) is not list:
        raise WireError("a malformed %s" % tag)
    if tag == "timezone" and _len(v) == 1:
        offset = from_wire(v[0], _WIRE_DEPTH)
        if _type(offset) is module.timedelta:
            return module.timezone(offset)
    parts, zone = (v[:-1], v[-1]) if tag in ("datetime", "time") and v else (v, None)
    sizes = {"date": 3, "timedelta": 3, "time": 5, "datetime": 8}
    if tag in sizes and _len(parts) == sizes[tag] and _all(_type(x) is int for x in parts):
        if zone is not None:
            zone = from_wire(zone, _WIRE_DEPTH - _ZONE_DEPTH, None, instance)
            if not isinstance(zone, module.tzinfo):
                raise WireError("a malformed %s" % tag)
        if tag == "date":
            return module.date(*parts)
        if tag == "timedelta":
            return module.timedelta(*parts)
        if tag == "time":
            return module.time(*parts[:4], tzinfo=zone, fold=parts[4])
        return module.datetime(*parts[:7], tzinfo=zone, fold=parts[7])
    raise WireError("a malformed %s" % tag)


#: What the candidate's stand-ins of the judge's objects may ask of them, all answered by the
#: judge (boundary._REMOTE_OPERATIONS): comparisons, hashing, length, items, conversions.
REMOTE_OPERATIONS = ("__lt__", "__le__", "__gt__", "__ge__", "__eq__", "__ne__", "__hash__", "__len__",
                     "__getitem__", "__contains__", "__iter__", "__str__", "__repr__", "__int__", "__float__",
                     "__index__", "__bool__")
#: Set by main(): asks the judge one operation on one of its objects, (ref, operation, args, kwargs) -> value.
_remote_ask = [None]


class RemoteObject:
    """An object of the judge's (an instance of a test's class) passed to the candidate: each
    operation on it is asked of the judge, where the object and its methods stay."""
    __slots__ = ("_peagen_ref",)

    def __init__(self, ref):
        object.__setattr__(self, "_peagen_ref", ref)


class RemoteFunction(RemoteObject):
    """A function of the judge's (a test's lambda, a hook) passed to the candidate: calling it
    calls it in the judge."""
    __slots__ = ()

    def __call__(self, *args, **kwargs):
        return _remote_ask[0](self._peagen_ref, "__call__", args, kwargs)


def _remote_operation(name):
    def operation(self, *args):
        result = _remote_ask[0](self._peagen_ref, name, args, {})
        return iter(result) if name == "__iter__" else result
    operation.__name__ = name
    return operation


for _name in REMOTE_OPERATIONS:
    setattr(RemoteObject, _name, _remote_operation(_name))
_REMOTE_TYPES = (RemoteObject, RemoteFunction)


#: Set by main(): the roots of the packages whose classes are the user's (the program's own
#: package); with the program's module ("candidate_program"), an instance of a class they
#: define crosses as its class's module and name and its state (its __dict__), never its methods.
_own_roots = [frozenset()]
PROGRAM_MODULE = "candidate_program"


def _is_own_class(t):
    module = t.__module__ if _type(t.__module__) is _str else ""
    return module == PROGRAM_MODULE or module.split(".")[0] in _own_roots[0]


def _own_enum_member(value, t):
    """The name of a member of one of the user's Enum classes (docstring_parser's
    `DocstringStyle.REST`), else None: it crosses by its class and name, never its state
    (which holds the class)."""
    enum = sys.modules.get("enum")  # an Enum's class was made by it, so it is loaded
    if enum is None or not _is_own_class(t) or not isinstance(value, enum.Enum):
        return None
    name = value._name_
    return name if _type(name) is _str else None


_HEAP_TYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class made by a class statement, not in C


def _state_outside_dict(cls):
    """Whether instances of `cls` keep state that is not in their __dict__: a C type that adds
    fields to object's (a `Cents(int)`, a `Money(Decimal)`: helper-29's B5, whose value was
    lost), or a class statement's `__slots__` (empty ones, as abc.ABC's, add nothing)."""
    if cls is object:
        return False
    if not cls.__flags__ & _HEAP_TYPE:
        return cls.__basicsize__ > object.__basicsize__ or cls.__itemsize__ != 0
    slots = cls.__dict__.get("__slots__", ())
    slots = (slots,) if _type(slots) is _str else slots
    return _any(name not in ("__dict__", "__weakref__") for name in slots)


#: The built-in value types a class of the user's may derive from and still cross (a
#: namedtuple and its subclasses: gitignore_parser's IgnoreRule; a `Cents(int)`), each with the
#: base's own reading of the value: an exact copy, never through a method the class defines.
_VALUE_BASES = {tuple: lambda v: tuple.__getitem__(v, slice(None)), int: int.__int__,
                float: float.__float__, str: str.__str__, bytes: lambda v: bytes.__getitem__(v, slice(None))}


def value_base(cls):
    """The one base of `cls` that keeps state outside __dict__ when it is a built-in value type
    (tuple, int, float, str, bytes) or Decimal, and no other base keeps any; else None. An
    instance of `cls` is its base's value, plus its __dict__ if it has one."""
    kept = [base for base in cls.__mro__ if _state_outside_dict(base)]
    if _len(kept) != 1:
        return None
    base = kept[0]
    decimal = sys.modules.get("decimal")
    return base if base in _VALUE_BASES or (decimal is not None and base is decimal.Decimal) else None


def _own_instance_state(value, t):
    """The state of an instance of one of the user's classes, else None (and it cannot cross):
    a copy of its __dict__ ({} when it has none) and its value base's value, of that exact
    type (None when it has no value base). None also when a class it derives from keeps state
    elsewhere."""
    if not _is_own_class(t):
        return None
    base = value_base(t) if _any(_state_outside_dict(b) for b in t.__mro__) else object
    if base is None:
        return None
    try:
        state = object.__getattribute__(value, "__dict__")
    except AttributeError:  # __slots__ only: a namedtuple's `__slots__ = ()`
        state = {} if base is not object else None
    if _type(state) is not dict:
        return None
    if base is object:
        return dict(state), None
    return dict(state), _VALUE_BASES[base](value) if base in _VALUE_BASES else base(base.__str__(value))


def to_wire(value, depth=0, callbacks=None):
    """`value` as JSON-ready plain data: exact built-in types only (a subclass is refused,
    since its methods would run on the side that reads it). With `callbacks` (a list, the
    judge's side only), a function or an object of a class that is not built in crosses as a
    handle: it is appended there, and what the other side does with the handle (calling it,
    comparing, hashing, indexing it) is done here, with plain data (boundary.call)."""
    t = _type(value)
    if t is str or t is int or t is bool or value is None:
        return value
    if t is float:
        return value if value - value == 0 else {"$": "float", "v": _str(value)}
    if depth > _WIRE_DEPTH:
        raise WireError("the value is nested more than %d levels deep" % _WIRE_DEPTH)
    if t is list or t is tuple or t is set or t is frozenset:
        # A loop, not a comprehension: one frame a level (a comprehension is a frame of its
        # own before 3.12), so that data nested as deep as the tests' stack allows crosses.
        items = []
        for item in value:
            items.append(to_wire(item, depth + 1, callbacks))
        return items if t is list else {"$": t.__name__, "v": items}
    if t is dict:
        return {"$": "dict", "v": [[to_wire(k, depth + 1, callbacks), to_wire(v, depth + 1, callbacks)] for k, v in value.items()]}
    if t is bytes or t is bytearray:
        return {"$": t.__name__, "v": value.hex()}
    if t is complex:
        return {"$": "complex", "v": [to_wire(value.real), to_wire(value.imag)]}
    name = _WIRE_BUILTIN_NAMES.get(id(value))
    if name is not None and getattr(builtins, name) is value:
        return {"$": "builtin", "v": name}
    if t.__module__ in ("datetime", "decimal", "pathlib", "pathlib._local"):
        wire = _stdlib_value_to_wire(value, t)
        if wire is not None:
            return wire
    if _type(value) in _REMOTE_TYPES:  # the judge's object, handed back as it came
        return {"$": "ref", "v": [value._peagen_ref, "function" if _type(value) is RemoteFunction else "object"]}
    # A class crosses as a function of the judge's too (`loads(doc, parse_float=Decimal)`).
    if callbacks is not None and (callable(value) or _type(value).__module__ != "builtins"):
        # One handle per occurrence (no search of the earlier ones: a list of 100,000 of the
        # tests' objects stays linear); every handle still resolves to the judge's own object.
        callbacks.append(value)
        return {"$": "ref", "v": [_len(callbacks) - 1, "function" if callable(value) else "object"]}
    if t is _Generated:
        return {"$": "generator", "v": to_wire(value.items, depth + 1, callbacks)}
    member = _own_enum_member(value, t) if callbacks is None else None
    if member is not None:
        return {"$": "member", "v": [t.__module__, _str(t.__qualname__), member]}
    own = _own_instance_state(value, t) if callbacks is None else None
    if own is not None:
        state, base = own
        wire = [t.__module__, _str(t.__qualname__), to_wire(state, depth + 1)]
        return {"$": "instance", "v": wire if base is None else wire + [to_wire(base, depth + 1)]}
    raise WireError("a value of type %s cannot cross the process boundary (only None, bool, "
                    "int, float, str, bytes, complex, list, tuple, dict, set, dates, times, Decimal, paths and "
                    "instances of the program's own classes can)" % t.__name__)


_FLOATS = {"nan": float("nan"), "inf": float("inf"), "-inf": float("-inf")}
_GENERATOR = _type((lambda: (yield))())
#: The most items a generator the program returns is read for (a boundary call reads it whole).
GENERATOR_LIMIT = 1_000_000


class _Generated:
    """The items of a generator a boundary call returned, read in the program's process (its
    work is done as it is read): they cross as a generator of the judge's over them."""

    def __init__(self, items):
        self.items = items


def _drained(value):
    """`value`, or the items of a generator, read now (inside the call: its errors are the call's)."""
    if _type(value) is not _GENERATOR:
        return value
    items = []
    for item in value:
        items.append(item)
        if _len(items) > GENERATOR_LIMIT:
            raise WireError("the result is a generator of more than %d items" % GENERATOR_LIMIT)
    return _Generated(items)


def from_wire(wire, depth=0, callback=None, instance=None):
    """The value `wire` (as json.loads gave it) stands for, built from exact built-in types.
    `callback(index, is_function)` gives what stands for the judge's handle `index`: a
    RemoteFunction or RemoteObject on the candidate's side, the object itself on the judge's.
    `instance(module, name, state)` (the judge's side only) gives the original's instance of
    the user's class named, with that state (boundary._own_instance)."""
    t = _type(wire)
    if t is str or t is int or t is bool or t is float or wire is None:
        return wire
    if depth > _WIRE_DEPTH:
        raise WireError("the value is nested more than %d levels deep" % _WIRE_DEPTH)
    if t is list:
        items = []
        for item in wire:
            items.append(from_wire(item, depth + 1, callback, instance))
        return items
    if t is not dict or _set(wire) != {"$", "v"}:
        raise WireError("not a wire value")
    tag, v = wire["$"], wire["v"]
    if tag == "member" and instance is not None and _type(v) is list and _len(v) == 3 \
            and _type(v[0]) is _str and _type(v[1]) is _str and _type(v[2]) is _str:
        return instance(v[0], v[1], v[2])  # a member name for a state: the original's Enum member
    if tag == "instance" and instance is not None and _type(v) is list and _len(v) in (3, 4) \
            and _type(v[0]) is _str and _type(v[1]) is _str:
        state = from_wire(v[2], depth + 1, callback, instance)
        base = from_wire(v[3], depth + 1) if _len(v) == 4 else None
        if _type(state) is dict and _all(_type(k) is _str for k in state):
            return instance(v[0], v[1], state, base)  # a TypeError when it is not a class of the original's
    try:
        if tag == "float" and v in _FLOATS:
            return _FLOATS[v]
        if tag in ("tuple", "set", "frozenset") and _type(v) is list:
            items = from_wire(v, depth, callback, instance)
            return tuple(items) if tag == "tuple" else set(items) if tag == "set" else frozenset(items)
        if tag == "dict" and _type(v) is list:
            return {from_wire(k, depth + 1, callback, instance): from_wire(x, depth + 1, callback, instance) for k, x in v}
        if tag in ("bytes", "bytearray") and _type(v) is str:
            return bytes.fromhex(v) if tag == "bytes" else bytearray.fromhex(v)
        if tag == "generator" and _type(v) is list:
            return (item for item in from_wire(v, depth, callback, instance))
        if tag == "builtin" and _type(v) is _str and v in WIRE_BUILTINS:
            return getattr(builtins, v)
        if tag == "ref" and callback is not None and _type(v) is list and _len(v) == 2 and _type(v[0]) is int:
            return callback(v[0], v[1] == "function")
        if tag in _STDLIB_VALUE_TAGS:
            return _stdlib_value_from_wire(tag, v, instance)
        if tag == "complex" and _type(v) is list and _len(v) == 2:
            real, imag = from_wire(v[0], depth + 1), from_wire(v[1], depth + 1)
            if _type(real) is float and _type(imag) is float:
                return complex(real, imag)
    except (TypeError, ValueError, ArithmeticError) as exc:  # an unhashable key or member, a bad hex string or date
        raise WireError("a malformed %s: %s" % (tag, exc)) from None
    raise WireError("not a wire value")


def _call_args(text):
    """A timed call's arguments: a JSON list, or {"$wire": [...]} (candidate._call_json)."""
    decoded = _loads(text)
    if _type(decoded) is dict and _set(decoded) == {"$wire"}:
        decoded = from_wire(decoded["$wire"])
    if _type(decoded) is not list:
        raise WireError("a call's arguments are not a list")
    return decoded


def wire_json(value):
    return _dumps(to_wire(value), separators=(",", ":"), allow_nan=False)


def _no_constants(name):
    raise WireError("%s is not plain JSON" % name)


def wire_loads(text):
    """from_wire of a JSON text, which may not use NaN/Infinity literals (they are tagged)."""
    return from_wire(_loads(text, parse_constant=_no_constants))


_reading_traceback = [False]  # lets the hook allow the harness's own traceback walk

# Standard-library code that real modules run at import, and the audit events each function
# named may raise there (for itself, or through the standard library it calls). The class
# factories build their classes' methods from source they write themselves (namedtuple evals
# `lambda _cls, a, b: ...`, dataclasses' _create_fn execs `def __init__(...)`), read their
# caller's module name from its frame and set attributes on the class they make; the code they
# build gets no more than the program could write itself (the hook watches what it does).
# importlib.metadata reads an installed package's metadata (`__version__ = version("tabulate")`):
# it may list folders and open files to read, nothing else. The codec registry imports the
# codec a call names (`text.encode("unicode_escape")` imports encodings.unicode_escape).
# Functions and events both are named: with a whole file trusted for any event, a C function
# the program handed in ran as that file (`Counter(map(os.system, ...))` ran os.system with
# collections' Counter.update as the caller).
_FACTORY_EVENTS = frozenset(("compile", "exec", "sys._getframe", "object.__setattr__", "object.__getattr__"))


def _reads_only(event, args):
    if event in ("os.listdir", "os.scandir"):
        return True
    if event != "open" or _len(args) < 3:
        return False
    mode, flags = args[1], args[2]
    if mode is not None:
        return _type(mode) is str and not _any(c in mode for c in "wax+")
    return _type(flags) is int and flags & os.O_ACCMODE == os.O_RDONLY


def _codec_import(event, args):
    if event == "import":
        return _len(args) > 0 and _type(args[0]) is str and args[0].startswith("encodings.")
    return event in ("exec", "marshal.loads") or _reads_only(event, args)


try:
    _STDLIB = os.path.dirname(os.path.realpath(os.__file__))
    # file: (the functions of it the chain may reach, None for any; which events)
    _STDLIB_CALLERS = {
        os.path.join(_STDLIB, "collections", "__init__.py"):
            (frozenset(("namedtuple",)), lambda event, args: event in _FACTORY_EVENTS),
        os.path.join(_STDLIB, "dataclasses.py"):
            (frozenset(("_create_fn", "_process_class", "add_fns_to_class")), lambda event, args: event in _FACTORY_EVENTS),
        os.path.join(_STDLIB, "importlib", "metadata", "__init__.py"): (None, _reads_only),
        os.path.join(_STDLIB, "encodings", "__init__.py"): (frozenset(("search_function",)), _codec_import),
        # TypeVar(), NewType(), TypedDict() and NamedTuple() read their caller's module name, and
        # a ForwardRef (`Reversible["IgnoreRule"]` in an annotation: gitignore_parser) compiles
        # its text, to check it, without running it (running it takes eval, which is refused).
        # The metaclasses of `class Token(NamedTuple)` (tokenize-rt) and `class P(TypedDict)`
        # set the class body's names on the class they make.
        os.path.join(_STDLIB, "typing.py"):
            (frozenset(("_caller", "__init__", "__new__")),
             lambda event, args: event in ("sys._getframe", "compile", "object.__setattr__")),
    }
except (AttributeError, TypeError):  # an interpreter without a stdlib on disk
    _STDLIB, _STDLIB_CALLERS = None, {}
_getframe = sys._getframe
_checking_caller = [False]  # lets the hook allow its own look at the caller's frame
_IMPORT_NAME = opcode.opmap.get("IMPORT_NAME")
_CODE_TYPE = _type((lambda: None).__code__)
_STDLIB_NAMES = getattr(sys, "stdlib_module_names", frozenset())


def _in_stdlib(filename):
    """Whether a code object's file is the standard library's (a pyenv's site-packages lies
    inside its lib/python3.X: installed packages are not the standard library)."""
    return (_STDLIB is not None and filename.startswith(_STDLIB + os.sep)
            and os.sep + "site-packages" + os.sep not in filename and os.sep + "dist-packages" + os.sep not in filename)


def _under_stdlib(path):
    """Whether a path (text) names a file of the standard library."""
    return _type(path) is _str and _in_stdlib(os.path.normpath(path))


#: Events the standard library's own module code raises while it is imported (typing sets
#: `io.__name__` on its own class; modules read their callers' frames), never raised by the
#: import machinery itself, which is where the program's own hooks would be called.
_STDLIB_MODULE_CODE_EVENTS = frozenset(("object.__setattr__", "object.__getattr__", "object.__delattr__", "sys._getframe"))


def _stdlib_import_may(event, args, by_stdlib_code):
    """What importing a standard library module needs: its import, listing the path's folders,
    reading, compiling and running files of the standard library, and what its own module code
    does (`by_stdlib_code`: the event was raised in a standard library file's frame). A
    function the program put in sys.path_hooks or sys.meta_path is called by the import
    machinery with no frame of its own: os.system, or exec of a text, is none of these."""
    if event == "import":
        return _len(args) > 0 and _type(args[0]) is str and args[0].partition(".")[0] in _STDLIB_NAMES
    if event in ("os.listdir", "os.scandir", "marshal.loads"):
        return True
    if event == "open":
        return _len(args) > 0 and _under_stdlib(args[0]) and _reads_only(event, args)
    if event == "exec":
        return _len(args) > 0 and _type(args[0]) is _CODE_TYPE and _under_stdlib(args[0].co_filename)
    if event == "compile":
        return _len(args) > 1 and _under_stdlib(args[1])
    return by_stdlib_code and event in _STDLIB_MODULE_CODE_EVENTS


#: Functions of installed packages (in a site-packages folder) that look at their caller's frame
#: and hand none out: typing_extensions reads a module's name, and once it is imported it
#: patches typing so that subscripting a generic (`List[X]`) asks whether typing called it (emoji).
_PACKAGE_FRAME_READERS = {"typing_extensions.py": frozenset(("_caller", "_has_generic_or_protocol_as_origin"))}


def _package_may_read_frames(event):
    """Whether the sys._getframe being handled was called by a _PACKAGE_FRAME_READERS function."""
    if event != "sys._getframe":
        return False
    _checking_caller[0] = True
    try:
        code = _getframe(2).f_code  # 0: here, 1: the hook, 2: the frame that raised the event
        folder, name = os.path.split(code.co_filename)
        return code.co_name in _PACKAGE_FRAME_READERS.get(name, ()) and os.path.basename(folder) in ("site-packages", "dist-packages")
    except BaseException:  # noqa: BLE001
        return False
    finally:
        _checking_caller[0] = False


def _standard_library_may(event, args):
    """Whether the audit event being handled is one the standard library raises for itself: the
    frames from the one that raised it up to the deciding one are all the standard library's
    (dataclass() asks inspect.signature for the class's docstring), none of the program's (a
    descriptor of the program's that a factory reads runs as the program, and is watched as
    the program). The deciding frame is the first of a _STDLIB_CALLERS file, or, above or below
    it, an import statement of the standard library's code run when the program calls it
    (functools.singledispatch's register imports typing, and typing imports its own modules:
    sexpdata): the name is written in its code (IMPORT_NAME), never one the program passes (an
    __import__(name) or import_module(name) is a call, not an import statement); it may import
    a standard library module, and under it only what that import needs (_stdlib_import_may)."""
    if _STDLIB is None:
        return False
    _checking_caller[0] = True  # no program code runs while this is set
    try:
        frame = _getframe(2)  # 0: here, 1: the hook, 2: the frame that raised the event
        by_stdlib_code = _in_stdlib(frame.f_code.co_filename)
        decided = None  # the verdict of the first _STDLIB_CALLERS file up the chain
        importing = False  # the import machinery runs between the event and the frame reached
        while frame is not None:
            name = frame.f_code.co_filename
            if name.startswith("<frozen importlib"):
                importing = True
            elif not (_in_stdlib(name) or name.startswith("<frozen ")):
                break
            elif _is_import_statement(frame) and (importing or event == "import") \
                    and _stdlib_import_may(event, args, by_stdlib_code):
                return True
            if decided is None and name in _STDLIB_CALLERS:
                functions, allows = _STDLIB_CALLERS[name]
                decided = (functions is None or frame.f_code.co_name in functions) and allows(event, args)
                if decided:
                    return True
            frame = frame.f_back
        return False
    except BaseException:  # noqa: BLE001
        return False
    finally:
        _checking_caller[0] = False


def _is_import_statement(frame):
    """Whether a standard library frame is running an import statement (IMPORT_NAME)."""
    code = frame.f_code.co_code
    return _in_stdlib(frame.f_code.co_filename) and 0 <= frame.f_lasti < _len(code) and code[frame.f_lasti] == _IMPORT_NAME


def _exception_text(exc, path=None):
    try:
        text = _str(exc) if _type(exc) is SandboxViolation else "%s: %s" % (_type(exc).__name__, _str(exc))
    except BaseException:  # noqa: BLE001 - a hostile __str__ must not break the harness
        text = _type(exc).__name__
    name = getattr(exc, "name", None) if _type(exc) is NameError else None
    if _type(name) is str and name not in SAFE_BUILTINS and hasattr(builtins, name):
        # simpleeval names eval at import: say what is missing, not only that a name is.
        text += " (%s() is a built-in the candidate's locked-down process does not have)" % name
    line = None
    _reading_traceback[0] = True  # no program code runs while this is set
    try:
        tb = exc.__traceback__
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == path:
                line = tb.tb_lineno
            tb = tb.tb_next
    except BaseException:  # noqa: BLE001
        pass
    finally:
        _reading_traceback[0] = False
    if line is not None:
        text += " (line %d of the program)" % line
    return text[-1500:]


def _plain_problem(value, depth=0):
    """None when `value` is made of exact JSON types only, else what is wrong with it."""
    t = _type(value)
    if t in _SCALARS:
        return None
    if depth > 50:
        return "the result is nested too deeply"
    if t is list:
        if _set(_map(_type, value)) <= _SCALARS:
            return None
        for item in value:
            problem = _plain_problem(item, depth + 1)
            if problem:
                return problem
        return None
    if t is dict:
        for key, item in value.items():
            if _type(key) is not str:
                return "the result has a dict key of type %s (only str keys can be returned)" % _type(key).__name__
            problem = _plain_problem(item, depth + 1)
            if problem:
                return problem
        return None
    return ("the result contains a %s; only None, bool, int, float, str, list and dict can be returned"
            % t.__name__)


def _private_channels():
    cmd = os.fdopen(os.dup(0), "rb")
    res = os.dup(1)
    for fd, mode in ((0, os.O_RDONLY), (1, os.O_WRONLY)):
        null = os.open(os.devnull, mode)
        os.dup2(null, fd)
        os.close(null)
    return cmd, res


def main():
    cmd, res = _private_channels()

    def send(obj):
        data = (_dumps(obj, separators=(",", ":")) + "\n").encode()
        while data:
            data = data[_write(res, data):]

    first = cmd.readline()
    if not first.startswith(b"L"):
        return
    config = _loads(first[1:])
    allowed = frozenset(config["allowed_imports"]) | {"__future__"}
    allowed_events = HARMLESS_EVENTS | frozenset(config.get("allowed_audit_events", ()))
    violations = []

    memory_mb = config.get("memory_mb")
    if _type(memory_mb) is int and memory_mb > 0:
        # A cap of this process's own (hard as well, so that the program cannot lift it): what
        # runs away with the memory raises MemoryError here instead of ending the evaluation.
        import resource
        resource.setrlimit(resource.RLIMIT_DATA, (memory_mb << 20, memory_mb << 20))

    # After the standard library, so that an installed package cannot stand in for a module
    # of it; only allowed modules are imported from there (below and by the guarded import).
    sys.path.extend(config.get("import_paths", ()))

    # Everything the program may import is imported now, before the hook is armed, so that
    # their own imports are done and later imports are cache hits.
    real_import = builtins.__import__
    missing = {}  # allowed but not installed: `try: import wcwidth except ImportError` is common
    for name in sorted(allowed):
        try:
            real_import(name)
        except ImportError as exc:
            missing[name] = _str(exc)
    # This Python's own site-packages, only for what the program cannot run without: an optional
    # module (`try: import numpy except ImportError`) stays missing, as the original was traced
    # and compared without it in its process of its own.
    optional = frozenset(config.get("optional_imports", ()))
    needed = [name for name in sorted(missing) if name not in optional and name.split(".")[0] not in optional]
    if needed and config.get("site_paths"):
        sys.path.extend(path for path in config["site_paths"] if path not in sys.path)
        for name in needed:
            try:
                real_import(name)
                del missing[name]
            except ImportError as exc:
                missing[name] = _str(exc)
    modules = sys.modules
    if config.get("seed") is not None and "random" in modules:
        modules["random"].seed(config["seed"])  # the evaluation's seed: a program that draws numbers is reproducible

    def refuse(what):
        violations.append(what)
        raise SandboxViolation("refused by the sandbox: " + what)

    package = config.get("package")
    _own_roots[0] = frozenset((package.split(".")[0],)) if _type(package) is _str and package else frozenset()

    def guarded_import(name, globals=None, locals=None, fromlist=(), level=0):
        if level:
            # resolved against the user's package, then allowed like an absolute import
            parts = package.split(".") if package else []
            if level - 1 >= _len(parts):
                refuse("relative import")
            base = ".".join(parts[:_len(parts) - (level - 1)])
            name = "%s.%s" % (base, name) if name else base
            if not fromlist:
                refuse("'import' of a relative module without 'from'")
        if name not in allowed:
            refuse("import of module %r (allowed: %s)"
                   % (name, ", ".join(sorted(allowed - {"__future__"})) or "none"))
        if "." in name and not fromlist and name.split(".")[0] not in allowed:
            refuse("'import %s' (use 'from %s import name')" % (name, name))
        if name in missing:
            # As the import system would say, without searching the disk again (the hook refuses that).
            raise ModuleNotFoundError(missing[name], name=name)
        module = real_import(name, globals, locals, fromlist, 0)
        for attr in fromlist or ():
            if attr == "*":
                # Only from a module of the user's own package (`from ._regex import *`), and
                # only when every module among the names it brings may be imported.
                root = package.split(".")[0] if package else ""
                if not root or (name != root and not name.startswith(root + ".")):
                    refuse("'from %s import *'" % name)
                contents = modules[name].__dict__
                names = contents.get("__all__", None)
                if names is None:
                    names = [n for n in contents if not n.startswith("_")]
                elif _type(names) not in (list, tuple) or not _all(_type(n) is str for n in names):
                    refuse("'from %s import *' (its __all__ is not a plain list of names)" % name)
                if _any(_type(contents.get(n)) is _type(sys) and contents.get(n).__name__ not in allowed for n in names):
                    refuse("'from %s import *' (it brings a module not allowed)" % name)
                continue
            value = modules[name].__dict__.get(attr)
            if _type(value) is _type(sys) and "%s.%s" % (name, attr) not in allowed:
                refuse("'from %s import %s'" % (name, attr))
        return module

    safe = {name: getattr(builtins, name) for name in SAFE_BUILTINS}
    for name in config.get("removed_builtins", ()):
        safe.pop(name, None)
    for name in dir(builtins):  # every exception class is harmless
        value = getattr(builtins, name)
        if isinstance(value, type) and issubclass(value, BaseException):
            safe[name] = value
    for name, why in TYPE_TEST_ONLY.items():
        if name not in config.get("removed_builtins", ()):
            safe[name] = _type_test_only(getattr(builtins, name), why)
    safe["__import__"] = guarded_import
    if "print" in safe:
        safe["print"] = _recording_print

    path, entry = config["path"], config["entry"]
    try:
        with open(path, "r", encoding="utf-8") as fh:
            source = fh.read()
        code = compile(source, path, "exec", dont_inherit=True)
    except BaseException as exc:  # noqa: BLE001 - SyntaxError included
        send({"load_error": _exception_text(exc, path)})
        return
    # The program's namespace is a module's, listed in sys.modules: code that a class factory
    # generates for the program's classes (a dataclass's __init__) takes the globals of the
    # class's module from there, and so gets the program's restricted builtins. Not listed,
    # it got the real builtins (exec adds them to empty globals).
    program_module = _type(sys)("candidate_program")
    namespace = program_module.__dict__
    namespace.update({"__builtins__": safe, "__doc__": None})
    modules["candidate_program"] = program_module
    sys.setrecursionlimit(int(config.get("recursion_limit", 10000)))

    own_exec = [code]

    def audit(event, args):
        if event in allowed_events or (_reading_traceback[0] and event == "object.__getattr__"):
            return
        if (_checking_caller[0] and event in ("sys._getframe", "object.__getattr__")) or _harness_importing[0]:
            return
        if _standard_library_may(event, args) or _package_may_read_frames(event):
            return
        if event == "exec" and own_exec and args and args[0] is own_exec[0]:
            own_exec.clear()  # the harness's one exec of the program
            return
        if event == "import" and args and args[0] in allowed:
            return
        if event == "import" and args and _type(args[0]) is str:
            refuse("the import of module %r (not imported by the original)" % args[0])
        if event == "object.__getattr__" and _len(args) >= 2:
            refuse("reading the attribute %s" % (args[1],))
        refuse("the operation %r" % event)

    sys.addaudithook(audit)  # from here on the hook watches everything, the harness included

    try:
        exec(code, namespace)
        fn = namespace.get(entry) if entry is not None else None
        if entry is not None and (fn is None or not callable(fn)):
            raise AttributeError("the program does not define a callable %s()" % entry)
    except BaseException as exc:  # noqa: BLE001 - SystemExit, KeyboardInterrupt included
        send({"load_error": _exception_text(exc, path), "violations": violations[:5]})
        return
    if violations:
        send({"load_error": "refused by the sandbox", "violations": violations[:5]})
        return
    send({"ready": True})

    def echo(*args):
        return args[0] if _len(args) == 1 else list(args)

    def echo_none(*args):
        return None

    collect = gc.collect
    readline = cmd.readline

    remotes = {}  # one stand-in per handle, so that `is` holds on the candidate's side

    def ask_judge(ref, operation, args, kwargs):
        """One operation on an object of the judge's (b"R" answers it), while the call that got
        the object is still running."""
        send({"callback": ref, "method": operation, "args": to_wire(list(args)), "kwargs": to_wire(dict(kwargs))})
        line = readline()
        if line[:1] != b"R":
            raise SystemExit(0)  # the judge has gone: nothing to answer to
        answer = _loads(line[1:])
        if "error" in answer:
            kind = getattr(builtins, _str(answer.get("error_type")), None)
            if not (isinstance(kind, _type) and issubclass(kind, Exception)):
                kind = RuntimeError
            raise kind(_str(answer["error"]))
        return from_wire(answer.get("output"), 0, callback_stub)

    def callback_stub(index, is_function):
        key = (index, is_function)
        if key not in remotes:
            remotes[key] = RemoteFunction(index) if is_function else RemoteObject(index)
        return remotes[key]

    _remote_ask[0] = ask_judge

    while True:
        line = readline()
        op = line[:1]
        if op == b"G":
            collect()
            send({"ok": True})
            continue
        if op == b"F" or op == b"D":
            reply = call_by_name(namespace, _loads(line[1:]), path, callback_stub) if op == b"F" \
                else {"names": describe_names(namespace, _loads(line[1:]))}
            if violations:
                reply["violations"] = violations[:5]
                del violations[:]
            send(reply)
            continue
        if op not in (b"C", b"E", b"N"):
            return
        # call and echo run the very same code, so the echo measures everything but the program
        target = fn if op == b"C" else echo if op == b"E" else echo_none
        args = _call_args(line[1:])
        pristine = _call_args(line[1:])
        reply = {"mutated": False}
        try:
            out = target(*args)
        except BaseException as exc:  # noqa: BLE001
            reply["error"] = _exception_text(exc, path)
        else:
            reply["output"] = out
        try:
            reply["mutated"] = bool(args != pristine)
            if "output" in reply:
                problem = _plain_problem(out)
                if not problem and config.get("wire_answers") and _type(out) is dict and "peagen_wire" in out:
                    # Plain data that reads as the reply below (helper-33: a dict spelling a list
                    # of Decimals compared equal to them): sent as its own wire form instead.
                    problem = "a dict with the key peagen_wire"
                if problem:
                    # Dates, Decimal, bytes and instances of the program's own classes (isodate's
                    # Duration, by their class and state): compared as their wire form, when asked.
                    try:
                        if not config.get("wire_answers"):
                            raise WireError(problem)
                        reply["output"] = {"peagen_wire": to_wire(out)}
                    except WireError:
                        del reply["output"]
                        reply["error"] = problem
        except BaseException as exc:  # noqa: BLE001 - a hostile __eq__ or deep nesting
            reply.pop("output", None)
            reply["error"] = "while checking the result: " + _exception_text(exc, path)
        if violations:
            reply["violations"] = violations[:5]
            del violations[:]
        try:
            send(reply)
        except (ValueError, OverflowError) as exc:  # e.g. an int too large to print
            send({"error": "the result cannot be sent back: " + _exception_text(exc, path),
                  "mutated": reply["mutated"]})


_FUNCTION_TYPES = (_type(len), _type(lambda: None))
_CONTAINERS = frozenset((list, dict, set, bytearray))


#: What one boundary call may print that reaches the judge, in characters (the rest is dropped).
PRINTED_LIMIT = 1 << 20


class _PrintLog:
    """What a boundary call prints, in order, sent back with its answer and printed again in the
    judge (boundary._print_here), so that a test that reads the output (pytest's capsys,
    redirect_stdout, a patched print) judges the candidate's as in the user's own process:
    ["write", text, stream] for what reached sys.stdout or sys.stderr (stream 0 or 1), and
    ["print", wire of [args, {sep, end, flush}], file] for a call of print() on plain data, so
    that a patched print sees the arguments the function gave it (file: null, "stdout" or
    "stderr", as the call named it)."""

    def __init__(self):
        self.events = []
        self.size = 0

    def add(self, event, size):
        if self.size + size <= PRINTED_LIMIT:
            self.events.append(event)
        self.size += size


class _Printed:
    """sys.stdout or sys.stderr while a boundary call runs: its writes go to the call's _PrintLog."""
    encoding = "utf-8"
    errors = "strict"

    def __init__(self, log, stream):
        self.log = log
        self.stream = stream

    def write(self, text):
        if _type(text) is not _str:
            raise TypeError("write() argument must be str, not %s" % _type(text).__name__)
        events = self.log.events
        if events and events[-1][0] == "write" and events[-1][2] == self.stream and self.log.size + len(text) <= PRINTED_LIMIT:
            events[-1][1] += text
            self.log.size += len(text)
        else:
            self.log.add(["write", text, self.stream], len(text))
        return len(text)

    def flush(self):
        pass

    def isatty(self):
        return False

    def writable(self):
        return True


_real_print = print
#: The log of the boundary call running now, or None (a timed call's printing goes to /dev/null).
_print_log = [None]
_PRINT_OPTIONS = ("sep", "end", "flush")


def _recording_print(*args, **kwargs):
    """The program's print(): during a boundary call, a call on plain data is recorded as such
    (_PrintLog); anything else prints as print() does, to the call's sys.stdout or sys.stderr."""
    log = _print_log[0]
    target = kwargs.get("file")
    if log is None or (target is not None and target is not sys.stdout and target is not sys.stderr) \
            or not _all(key in _PRINT_OPTIONS or key == "file" for key in kwargs):
        return _real_print(*args, **kwargs)
    given = {key: kwargs[key] for key in _PRINT_OPTIONS if key in kwargs}
    if not _all(value is None or _type(value) is _str for key, value in given.items() if key != "flush"):
        return _real_print(*args, **kwargs)
    try:
        wire = to_wire([list(args), given])
        size = len(_dumps(wire))
    except BaseException:  # noqa: BLE001 - not plain data: printed as text
        return _real_print(*args, **kwargs)
    where = None if "file" not in kwargs or target is None else ("stderr" if target is sys.stderr else "stdout")
    log.add(["print", wire, where], size)
    return None


def call_by_name(namespace, request, path, callback=None):
    """One call of the boundary (op F): the function named, with wire arguments; the reply
    carries the result as wire data, and the container arguments the call changed in place.
    `callback(index, is_function)`: the stand-in of the judge's function or object `index`."""
    fn = namespace.get(request.get("fn"))
    if fn is None or not callable(fn) or _type(fn) is _type:
        return {"error": "the program does not define a function %s()" % (request.get("fn"),),
                "error_type": "AttributeError"}
    try:
        args_wire, kwargs_wire = request["args"], request["kwargs"]
        args, kwargs = from_wire(args_wire, 0, callback), from_wire(kwargs_wire, 0, callback)
        if _type(args) is not list or _type(kwargs) is not dict or not all(_type(k) is _str for k in kwargs):
            raise WireError("expected a list of arguments and a dict of keyword arguments")
        # what was sent, by position ("0", "1", ...) or keyword, to tell what the call changed
        sent = {_str(i): w for i, w in enumerate(args_wire)}
        sent.update({k: w for k, w in kwargs_wire["v"]})
    except (WireError, KeyError, TypeError, ValueError) as exc:
        return {"error": "the arguments are not plain data: %s" % exc, "error_type": "TypeError"}
    reply = {}
    log = _PrintLog()
    streams = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = _Printed(log, 0), _Printed(log, 1)
    _print_log[0] = log
    try:
        out = _drained(fn(*args, **kwargs))
    except BaseException as exc:  # noqa: BLE001 - SystemExit and KeyboardInterrupt included
        reply["error"] = _exception_text(exc, path)
        reply["error_type"] = _type(exc).__name__ if isinstance(exc, Exception) else "BaseException"
        try:  # its arguments, so that the judge can raise the original's class of that name with them
            reply["error_args"] = to_wire(list(exc.args)) if _type(exc.args) is tuple else None
        except BaseException:  # noqa: BLE001 - not plain data: the text alone crosses
            pass
        try:  # and its attributes (sexpdata's errors carry their .position), which the tests read
            state = object.__getattribute__(exc, "__dict__")
            if _type(state) is dict and state:
                reply["error_state"] = to_wire(dict(state))
        except BaseException:  # noqa: BLE001 - not plain data: the exception crosses without them
            pass
    else:
        try:
            reply["output"] = to_wire(out)
        except BaseException as exc:  # noqa: BLE001 - WireError, or a hostile __hash__/__iter__
            reply["error"] = "the result cannot cross the process boundary: " + _exception_text(exc, path)
            reply["error_type"] = "TypeError"
    finally:
        sys.stdout, sys.stderr = streams
        _print_log[0] = None
    if log.events:
        reply["printed"] = log.events
    changed = {}
    try:
        given = {_str(i): value for i, value in enumerate(args)}
        given.update(kwargs)
        for key, value in given.items():
            if _type(value) in _CONTAINERS:
                after = to_wire(value)
                if after != sent[key]:
                    changed[key] = after
    except BaseException as exc:  # noqa: BLE001 - an argument filled with something that cannot cross
        reply.pop("output", None)
        reply["error"] = "an argument the call changed cannot cross the process boundary: " + _exception_text(exc, path)
        reply["error_type"] = "TypeError"
    reply["changed"] = changed
    return reply


def describe_names(namespace, names):
    """What each module-level name is (op D): a function the boundary forwards, plain data it
    copies, or something it cannot stand in for (a class, a module, an object)."""
    described = {}
    for name in names:
        if _type(name) is not _str:
            continue
        if name not in namespace:
            described[name] = {"kind": "missing"}
            continue
        value = namespace[name]
        if _type(value) in _FUNCTION_TYPES:
            described[name] = {"kind": "function"}
            continue
        try:
            described[name] = {"kind": "value", "value": to_wire(value)}
        except BaseException:  # noqa: BLE001
            what = "class" if isinstance(value, _type) else "module" if _type(value) is _type(sys) \
                else "object of type %s" % _type(value).__name__
            described[name] = {"kind": "unsupported", "what": what}
    return described


if __name__ == "__main__":
    main()
    os._exit(0)  # no thread the program started keeps this process alive once its parent is done
