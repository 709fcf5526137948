"""An honest child for the tests whose memory is cold: the first echo of each input burns
COLD_MS of CPU (a fresh process's page faults: more than the call, less than twice it),
later echoes of it are cheap, and a call burns CALL_MS (the program's work). Run through
fake_child_erratic_echo.py, it burns LATE_MS on every echo of an input after its call: a
candidate that makes its own echoes after the call dear."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # -I leaves the script's folder out
from fake_child_protocol import burn, serve  # noqa: E402

COLD_MS = globals().get("COLD_MS", 15)
CALL_MS = globals().get("CALL_MS", 10)
LATE_MS = globals().get("LATE_MS", 0)
seen, called = set(), set()


def echo(key, args):
    burn(LATE_MS if key in called else 0 if key in seen else COLD_MS)
    seen.add(key)
    return args[0]


def call(key, args):
    called.add(key)
    burn(CALL_MS)
    return sorted(args[0])


serve(echo, call)
