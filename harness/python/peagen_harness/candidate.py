"""The trusted side of one untrusted program: its process, one input per call, and the time
it spends measured from outside (wall round trip here, its CPU through Linux's per-process
CPU clock). Nothing the child says about time is read; what it answers is plain data that the
evaluator checks against its own reference."""
from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import sysconfig
import threading
import time
from dataclasses import dataclass
from typing import Any, Optional, Sequence

from ._child import to_wire
from .policy import Policy

CHILD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_child.py")
MAX_REPLY_BYTES = 64 * 1024 * 1024


def _call_json(args: tuple) -> str:
    """A call's arguments for the child: a JSON list, or, for arguments JSON cannot say (bytes,
    bytearrays, sets: the calls of reedsolo's tests), {"$wire": [...]} in the process-boundary
    form, which the child decodes (for the call and its echo alike, so the echo still measures
    the decoding)."""
    try:
        return json.dumps(list(args), separators=(",", ":"))
    except (TypeError, ValueError):
        return json.dumps({"$wire": to_wire(list(args))}, separators=(",", ":"))


class CandidateFailure(Exception):
    """The program's process failed as a whole (did not load, hung, died, was refused by the
    sandbox, answered garbage, or its timing is physically impossible). A verdict about the
    program: report it as `correct: false`. `failed_tests`: when the project's tests failed it,
    their ids (the verdict's failed_tests); `original_passed_tests`: for the original, the tests
    it passes in the tests' own process (project_tests.tests_gate)."""

    def __init__(self, message: str = "", failed_tests: Sequence[str] = (),
                 original_passed_tests: Optional[Sequence[str]] = None) -> None:
        super().__init__(message)
        self.failed_tests = list(failed_tests)
        self.original_passed_tests = None if original_passed_tests is None else list(original_passed_tests)


@dataclass(frozen=True)
class Reply:
    """One call's outcome. `output` is plain JSON data (list/dict/int/...); `error` is the
    exception the program raised (then `output` is None); `mutated` says whether the program
    changed its arguments. `wall_ns` and `cpu_ns` were measured by this process."""

    output: Any
    error: Optional[str]
    mutated: bool
    wall_ns: int
    cpu_ns: int


def _cpu_clock(pid: int) -> int:
    # Linux's CPUCLOCK_SCHED of the whole process (all its threads): -pid-1 << 3 | 2
    return ((~pid) << 3) | 2


def _environment_paths() -> list:
    """The example's installed packages (its requirements.txt), which Peagen names in
    PEAGEN_ENV_PYTHONPATH: the child starts isolated (-I -S, no PYTHONPATH), so it is told
    where they are. They only exist for it; the allow-list still decides what it imports."""
    value = os.environ.get("PEAGEN_ENV_PYTHONPATH", "")
    return [entry for entry in value.split(os.pathsep) if entry] + _project_site_packages()


def _project_site_packages() -> list:
    """The site-packages of the project's virtualenv (.venv or venv, which Peagen mounts
    read-only and names in PEAGEN_PROJECT_DEPENDENCIES), when it was made for this Python
    version: the packages the original imports (python-slugify's text_unidecode) are there.
    The allow-list still decides what the program imports."""
    version = "python%d.%d" % sys.version_info[:2]
    found = []
    for folder in os.environ.get("PEAGEN_PROJECT_DEPENDENCIES", "").split(os.pathsep):
        if os.path.basename(folder) in (".venv", "venv"):
            site = os.path.join(folder, "lib", version, "site-packages")
            if os.path.isdir(site):
                found.append(site)
    return found


def _interpreter_site_packages() -> list:
    """Where this Python's own installed packages are (pyenv's or the system's site-packages):
    the packages the tests' process imports (attrs for price-parser), which the child, started
    isolated, would not find. They are searched after the project's, and only for what the
    program needs (see _child's pre-imports); the allow-list still decides what it imports."""
    found = []
    for key in ("purelib", "platlib"):
        folder = sysconfig.get_paths().get(key)
        if folder and os.path.isdir(folder) and folder not in found:
            found.append(folder)
    # The interpreters the project's tests run with (a pyenv Python: PEAGEN_PROJECT_PATH names
    # their bin folders), of this Python's version: the evaluator itself may run with the
    # system's python3 while the packages were installed for the user's.
    version = "python%d.%d" % sys.version_info[:2]
    for bin_folder in os.environ.get("PEAGEN_PROJECT_PATH", "").split(os.pathsep):
        site = os.path.join(os.path.dirname(bin_folder), "lib", version, "site-packages") if bin_folder else ""
        if site and os.path.isdir(site) and site not in found:
            found.append(site)
    return found


class Candidate:
    """One program (untrusted candidate or pristine reference) in its own sandboxed process.

    with Candidate("candidate.py", "bad_sort", policy) as prog:
        reply = prog.call([3, 1, 2], timeout=2.0)
    """

    def __init__(self, path: str, entry: Optional[str], policy: Optional[Policy] = None, *,
                 load_timeout: float = 10.0, name: str = "program",
                 python: str = sys.executable, child_script: str = CHILD, own_session: bool = True,
                 seed: Optional[int] = None, import_paths: Sequence[str] = (), wire_answers: bool = False,
                 memory_mb: Optional[int] = None):
        """`wire_answers`: an answer that is not plain JSON data but can cross the process
        boundary (dates, Decimal, bytes, instances of the program's own classes by their class
        and state) is the reply's output as {"peagen_wire": its wire form}, compared as such;
        otherwise it is an error (the evaluators Peagen generates ask for it). `memory_mb` caps
        the process's data (a MemoryError past it, where the program can catch it)."""
        self.name = name
        self.policy = policy or Policy()
        self._stderr_tail = bytearray()
        self._buffer = bytearray()
        self._closed = False
        self.proc = subprocess.Popen(
            [python, "-I", "-S", "-B", child_script],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            start_new_session=own_session, close_fds=True, env={},
        )
        self.pid = self.proc.pid
        self._clock = _cpu_clock(self.pid)
        self._in = self.proc.stdin.fileno()  # type: ignore[union-attr]
        self._out = self.proc.stdout.fileno()  # type: ignore[union-attr]
        os.set_blocking(self._in, False)
        threading.Thread(target=self._drain_stderr, daemon=True).start()
        config = {
            "path": os.path.abspath(path), "entry": entry,
            "allowed_imports": sorted(self.policy.allowed_imports),
            "removed_builtins": sorted(self.policy.forbidden_names),
            "recursion_limit": self.policy.recursion_limit,
            "allowed_audit_events": sorted(self.policy.allowed_audit_events),
            # the user's package (for the relative imports the policy allows), then the example's packages
            "import_paths": [os.path.abspath(p) for p in import_paths] + _environment_paths(),
            # then this Python's own packages, for the modules the program cannot run without
            "site_paths": _interpreter_site_packages(),
            "optional_imports": sorted(self.policy.optional_imports),
            "package": self.policy.package,
            "seed": seed,  # seeds the program's `random` (when it may import it)
            "wire_answers": wire_answers,
            "memory_mb": memory_mb,
        }
        first = self._decode(self._exchange(b"L" + json.dumps(config).encode(), load_timeout,
                                            "loading the program"))
        if "load_error" in first:
            self.kill()
            text = str(first.get("load_error"))
            raise CandidateFailure("the %s failed to load: %s%s" % (
                self.name, text, _violations_text(first, text)))
        if first.get("ready") is not True:
            self.kill()
            raise CandidateFailure("the %s's process answered garbage while loading" % self.name)

    # ------------------------------------------------------------------ calls
    def call(self, *args: Any, timeout: float) -> Reply:
        """Calls the program's entry with `args` (JSON data) in its process and times it."""
        return self._timed(b"C", args, timeout, "running the program")

    def echo(self, *args: Any, timeout: float, returns_input: bool = True) -> Reply:
        """Sends `args` through exactly the same path as call() but returns the first argument
        (or None, for programs whose result is small) instead of calling the program: the
        cost of everything that is not the program."""
        return self._timed(b"E" if returns_input else b"N", args, timeout, "echoing an input")

    def request(self, op: bytes, payload: Any, timeout: float, what: str) -> dict:
        """One untimed request of the boundary's protocol (op F or D of _child.py): the reply as
        parsed JSON, or CandidateFailure when the process died, hung, answered garbage or did
        something the sandbox refuses."""
        reply = self._decode(self._exchange(op + json.dumps(payload, separators=(",", ":")).encode(),
                                            timeout, what))
        if reply.get("violations"):
            self.kill()
            raise CandidateFailure("the %s did something the sandbox refuses%s"
                                   % (self.name, _violations_text(reply)))
        return reply

    def _timed(self, op: bytes, args: tuple, timeout: float, what: str) -> Reply:
        # Garbage of earlier calls is collected first, untimed, so no call pays for another's.
        self._decode(self._exchange(b"G", timeout, "collecting garbage"))
        payload = op + _call_json(args).encode()
        try:
            cpu0 = time.clock_gettime_ns(self._clock)
        except OSError:
            self._raise_death(what)
        wall0 = time.perf_counter_ns()
        line = self._exchange(payload, timeout, what)
        wall1 = time.perf_counter_ns()
        try:
            cpu1 = time.clock_gettime_ns(self._clock)
        except OSError:
            self._raise_death(what)
        reply = self._decode(line)
        if reply.get("violations"):
            self.kill()
            raise CandidateFailure("the %s did something the sandbox refuses%s"
                                   % (self.name, _violations_text(reply)))
        error = reply.get("error")
        if error is not None and not isinstance(error, str):
            error = repr(error)
        if error is None and "output" not in reply:
            self.kill()
            raise CandidateFailure("the %s's process answered garbage while %s" % (self.name, what))
        return Reply(output=reply.get("output"), error=error, mutated=reply.get("mutated") is True,
                     wall_ns=wall1 - wall0, cpu_ns=cpu1 - cpu0)

    # ------------------------------------------------------------------ transport
    def _exchange(self, payload: bytes, timeout: float, what: str) -> bytes:
        """Writes one request line and reads one reply line, all within `timeout` seconds."""
        if self._closed:
            raise CandidateFailure("the %s's process is already closed" % self.name)
        deadline = time.monotonic() + timeout
        data = memoryview(payload + b"\n")
        poller = select.poll()
        poller.register(self._in, select.POLLOUT)
        poller.register(self._out, select.POLLIN)
        while True:
            newline = self._buffer.find(b"\n")
            if newline >= 0:
                line = bytes(self._buffer[:newline])
                del self._buffer[:newline + 1]
                return line
            left = deadline - time.monotonic()
            if left <= 0:
                self.kill()
                raise CandidateFailure("timeout: no answer within %.1f s while %s" % (timeout, what))
            for fd, events in poller.poll(max(1, int(left * 1000))):
                if fd == self._in:
                    try:
                        written = os.write(self._in, data)
                    except BlockingIOError:
                        continue
                    except OSError:  # the child closed its end: it died
                        poller.unregister(self._in)
                        continue
                    data = data[written:]
                    if not data:
                        poller.unregister(self._in)
                elif events & (select.POLLIN | select.POLLHUP | select.POLLERR):
                    chunk = os.read(self._out, 1 << 20)
                    if not chunk:
                        self._raise_death(what)
                    self._buffer += chunk
                    if len(self._buffer) > MAX_REPLY_BYTES:
                        self.kill()
                        raise CandidateFailure("the %s's answer is larger than %d MiB"
                                               % (self.name, MAX_REPLY_BYTES >> 20))

    def _decode(self, line: bytes) -> dict:
        try:
            value = json.loads(line)
        except (ValueError, RecursionError):  # RecursionError: nested deeper than this process's stack
            value = None
        if not isinstance(value, dict):
            self.kill()
            raise CandidateFailure("the %s's process answered garbage" % self.name)
        return value

    def _raise_death(self, what: str) -> None:
        code = self.proc.wait()
        self._closed = True
        how = ("killed by signal %d" % -code) if code < 0 else ("exit status %d" % code)
        time.sleep(0.05)  # let the stderr pump catch the last words
        tail = self._stderr_tail.decode("utf-8", "replace").strip()[-600:]
        raise CandidateFailure("the %s's process died while %s (%s)%s"
                               % (self.name, what, how, (": " + tail) if tail else ""))

    def _drain_stderr(self) -> None:
        stream = self.proc.stderr
        while True:
            chunk = stream.read1(65536)  # type: ignore[union-attr]
            if not chunk:
                return
            self._stderr_tail += chunk
            del self._stderr_tail[:-4000]

    # ------------------------------------------------------------------ lifetime
    def kill(self) -> None:
        """Kills the program's whole process group (when it has its own) and waits for it."""
        self._closed = True
        try:  # the group too: anything the program started dies with it
            if os.getpgid(self.pid) != self.pid:
                raise ProcessLookupError  # it shares its parent's group: that is not ours to kill
            os.killpg(self.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            if self.proc.poll() is None:
                self.proc.kill()
        self.proc.wait()

    def close(self) -> None:
        # Always a kill: a program that ignores the polite exit must not outlive the verdict.
        self.kill()
        for stream in (self.proc.stdin, self.proc.stdout):
            try:
                stream.close()  # type: ignore[union-attr]
            except OSError:
                pass

    def __enter__(self) -> "Candidate":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _violations_text(reply: dict, already_said: str = "") -> str:
    found = reply.get("violations")
    if not isinstance(found, list) or not found or any(str(v) in already_said for v in found):
        return ""
    return " (" + "; ".join(str(v)[:300] for v in found[:5]) + ")"
