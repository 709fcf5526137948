"""An honest child for the tests whose memory is cold: the first echo of each input burns
COLD_MS of CPU (a fresh process's page faults: more than the call, less than twice it),
later echoes of it are cheap, and a call burns CALL_MS (the program's work). Run through
fake_child_erratic_echo.py, it burns LATE_MS on every echo of an input after its call: a
candidate that makes its own echoes after the call dear."""
import json
import os
import time

cmd = os.fdopen(0, "rb")
COLD_MS = globals().get("COLD_MS", 15)
CALL_MS = globals().get("CALL_MS", 10)
LATE_MS = globals().get("LATE_MS", 0)
seen, called = set(), set()


def send(obj):
    os.write(1, (json.dumps(obj) + "\n").encode())


def burn(ms):
    end = time.process_time() + ms / 1000
    while time.process_time() < end:
        pass


while True:
    line = cmd.readline()
    op = line[:1]
    if op == b"L":
        send({"ready": True})
    elif op == b"G":
        send({"ok": True})
    elif op in (b"C", b"E"):
        args = json.loads(line[1:])
        key = line[1:]
        if op == b"C":
            called.add(key)
            burn(CALL_MS)
            send({"output": sorted(args[0]), "mutated": False})
            continue
        burn(LATE_MS if key in called else 0 if key in seen else COLD_MS)
        seen.add(key)
        send({"output": args[0], "mutated": False})
    else:
        break
