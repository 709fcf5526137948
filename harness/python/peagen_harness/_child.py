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
                        "recursion_limit", "allowed_audit_events", "import_paths"}
  child : {"ready": true} | {"load_error": str, "violations": [...]}
  parent: b"G"  (collect garbage; untimed)          child: {"ok": true}
  parent: b"C" + json [args]  (call the entry)      child: reply
  parent: b"E" + json [args]  (echo: the same path with the identity instead of the entry)
  parent: b"N" + json [args]  (echo that returns None: for programs with small results)
  parent: b"X"  (exit)
  reply : {"output": value, "mutated": bool} | {"error": str, "mutated": bool},
          plus "violations": [...] when the sandbox refused something since the last reply.
"""
import builtins
import gc
import json
import os
import sys

_loads = json.loads
_dumps = json.dumps
_type = type
_set = set
_map = map
_len = len
_str = str
_write = os.write
_SCALARS = frozenset((int, float, str, bool, type(None)))

# Built-ins a program may use. Everything that evaluates code, reaches attributes by name,
# touches files or the interpreter is absent; `__import__` is replaced by the guarded one.
SAFE_BUILTINS = (
    "abs", "aiter", "all", "anext", "any", "ascii", "bin", "bool", "bytearray", "bytes",
    "callable", "chr", "classmethod", "complex", "dict", "divmod", "enumerate", "filter",
    "float", "format", "frozenset", "hasattr", "hash", "hex", "id", "int", "isinstance",
    "issubclass", "iter", "len", "list", "map", "max", "min", "next", "object", "oct", "ord",
    "pow", "print", "property", "range", "repr", "reversed", "round", "set", "slice", "sorted",
    "staticmethod", "str", "sum", "super", "tuple", "type", "zip",
    "__build_class__", "Ellipsis", "NotImplemented", "True", "False", "None",
)
HARMLESS_EVENTS = frozenset(("builtins.id",))


class SandboxViolation(RuntimeError):
    pass


_reading_traceback = [False]  # lets the hook allow the harness's own traceback walk


def _exception_text(exc, path=None):
    try:
        text = _str(exc) if _type(exc) is SandboxViolation else "%s: %s" % (_type(exc).__name__, _str(exc))
    except BaseException:  # noqa: BLE001 - a hostile __str__ must not break the harness
        text = _type(exc).__name__
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

    # After the standard library, so that an installed package cannot stand in for a module
    # of it; only allowed modules are imported from there (below and by the guarded import).
    sys.path.extend(config.get("import_paths", ()))

    # Everything the program may import is imported now, before the hook is armed, so that
    # their own imports are done and later imports are cache hits.
    real_import = builtins.__import__
    for name in sorted(allowed):
        try:
            real_import(name)
        except ImportError:
            pass
    modules = sys.modules

    def refuse(what):
        violations.append(what)
        raise SandboxViolation("refused by the sandbox: " + what)

    def guarded_import(name, globals=None, locals=None, fromlist=(), level=0):
        if level:
            refuse("relative import")
        if name not in allowed:
            refuse("import of module %r (allowed: %s)"
                   % (name, ", ".join(sorted(allowed - {"__future__"})) or "none"))
        if "." in name and not fromlist and name.split(".")[0] not in allowed:
            refuse("'import %s' (use 'from %s import name')" % (name, name))
        module = real_import(name, globals, locals, fromlist, 0)
        for attr in fromlist or ():
            value = modules[name].__dict__.get(attr)
            if attr == "*" or (_type(value) is _type(sys) and "%s.%s" % (name, attr) not in allowed):
                refuse("'from %s import %s'" % (name, attr))
        return module

    safe = {name: getattr(builtins, name) for name in SAFE_BUILTINS}
    for name in config.get("removed_builtins", ()):
        safe.pop(name, None)
    for name in dir(builtins):  # every exception class is harmless
        value = getattr(builtins, name)
        if isinstance(value, type) and issubclass(value, BaseException):
            safe[name] = value
    safe["__import__"] = guarded_import

    path, entry = config["path"], config["entry"]
    try:
        with open(path, "r", encoding="utf-8") as fh:
            source = fh.read()
        code = compile(source, path, "exec", dont_inherit=True)
    except BaseException as exc:  # noqa: BLE001 - SyntaxError included
        send({"load_error": _exception_text(exc, path)})
        return
    namespace = {"__builtins__": safe, "__name__": "candidate_program", "__doc__": None}
    sys.setrecursionlimit(int(config.get("recursion_limit", 10000)))

    own_exec = [code]

    def audit(event, args):
        if event in allowed_events or (_reading_traceback[0] and event == "object.__getattr__"):
            return
        if event == "exec" and own_exec and args and args[0] is own_exec[0]:
            own_exec.clear()  # the harness's one exec of the program
            return
        if event == "import" and args and args[0] in allowed:
            return
        if event == "object.__getattr__" and _len(args) >= 2:
            refuse("reading the attribute %s" % (args[1],))
        refuse("the operation %r" % event)

    sys.addaudithook(audit)  # from here on the hook watches everything, the harness included

    try:
        exec(code, namespace)
        fn = namespace.get(entry)
        if fn is None or not callable(fn):
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
    while True:
        line = readline()
        op = line[:1]
        if op == b"G":
            collect()
            send({"ok": True})
            continue
        if op not in (b"C", b"E", b"N"):
            return
        # call and echo run the very same code, so the echo measures everything but the program
        target = fn if op == b"C" else echo if op == b"E" else echo_none
        args = _loads(line[1:])
        pristine = _loads(line[1:])
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
                if problem:
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


if __name__ == "__main__":
    main()
