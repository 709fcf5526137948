"""Trusted child process used by evaluate.py to run ONE program (candidate or reference).

Not meant to be run by hand. Protocol (one JSON object per line):
  parent -> child, line 1 : {"inputs": [[int, ...], ...]}
  child  -> parent        : {"event": "ready"} | {"event": "load_error", "error": str}
  parent -> child         : {"op": "run", "idx": i, "output": bool} | {"op": "exit"}
  child  -> parent        : {"idx": i, "ns": int, "cpu_ns": int, "error": str|null, "mutated": bool,
                             "output": [int]|null, "bad_type": str|null,
                             "bad_len": int (only when the returned list has the wrong length)}
The child keeps private duplicates of its stdin/stdout for this protocol and points
fds 0 and 1 at /dev/null before importing the program, so anything the program prints
(or tries to read) never touches the protocol. All verdicts are made by the parent;
this process only reports what happened.
"""
import gc
import importlib.util
import json
import os
import sys
import time
import traceback

# Capture everything we rely on BEFORE the untrusted module is imported.
_perf_ns = time.perf_counter_ns
_cpu_ns = time.process_time_ns
_collect = gc.collect
_dumps = json.dumps
_loads = json.loads
_format_exc = traceback.format_exception_only
_list = list
_type = type
_int = int
_len = len
_str = str


def _private_channels():
    cmd = os.fdopen(os.dup(0), "rb", buffering=0)
    res = os.fdopen(os.dup(1), "wb", buffering=0)
    null_r = os.open(os.devnull, os.O_RDONLY)
    null_w = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null_r, 0)
    os.dup2(null_w, 1)
    os.close(null_r)
    os.close(null_w)
    return cmd, res


def _describe(exc):
    try:
        text = "".join(_format_exc(_type(exc), exc)).strip()
    except BaseException:  # noqa: BLE001 - a hostile __str__ must not kill us
        text = _type(exc).__name__
    return text[-1500:]


def main():
    path, fn_name = sys.argv[1], sys.argv[2]
    cmd, res = _private_channels()

    def send(obj):
        res.write((_dumps(obj, separators=(",", ":")) + "\n").encode())

    def read_line():
        buf = bytearray()
        while True:
            chunk = cmd.readline()
            if not chunk:
                return None
            buf += chunk
            if buf.endswith(b"\n"):
                return _loads(bytes(buf))

    first = read_line()
    if first is None:
        return
    inputs = [tuple(x) for x in first["inputs"]]

    sys.setrecursionlimit(10000)
    try:
        spec = importlib.util.spec_from_file_location("candidate_program", path)
        if spec is None or spec.loader is None:
            raise ImportError("cannot load %r" % path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        fn = module.__dict__.get(fn_name)
        if fn is None or not callable(fn):
            raise AttributeError("the program does not define a callable %s(values)" % fn_name)
    except BaseException as exc:  # noqa: BLE001 - SystemExit, KeyboardInterrupt included
        send({"event": "load_error", "error": _describe(exc)})
        return
    send({"event": "ready"})

    while True:
        msg = read_line()
        if msg is None or msg.get("op") == "exit":
            return
        idx = msg["idx"]
        data = inputs[idx]
        arg = _list(data)
        _collect()
        error = None
        out = None
        c0 = _cpu_ns()
        t0 = _perf_ns()
        try:
            out = fn(arg)
        except BaseException as exc:  # noqa: BLE001
            t1 = _perf_ns()
            c1 = _cpu_ns()
            error = _describe(exc)
        else:
            t1 = _perf_ns()
            c1 = _cpu_ns()
        reply = {"idx": idx, "ns": t1 - t0, "cpu_ns": c1 - c0, "error": error, "mutated": False,
                 "output": None, "bad_type": None}
        try:
            mutated = _type(arg) is not _list or _len(arg) != _len(data)
            if not mutated:
                for a, b in zip(arg, data):
                    if _type(a) is not _int or a != b:
                        mutated = True
                        break
            reply["mutated"] = mutated
            if error is None:
                if _type(out) is not _list:
                    reply["bad_type"] = "returned %s, expected list" % _type(out).__name__
                elif _len(out) != _len(data):
                    reply["bad_len"] = _len(out)  # no need to ship a wrong-sized list
                else:
                    for x in out:
                        if _type(x) is not _int:
                            reply["bad_type"] = "list contains %s, expected int" % _type(x).__name__
                            break
                    if reply["bad_type"] is None and msg.get("output"):
                        reply["output"] = [_int(x) for x in out]
        except BaseException as exc:  # noqa: BLE001
            reply["error"] = "while inspecting the result: " + _describe(exc)
        send(reply)


if __name__ == "__main__":
    main()
