"""A tampered child for the tests: it speaks the protocol but burns CPU on every echo and
answers calls at once, as a hijacked process would to shrink its measured net time.
Run through fake_child_one_slow_echo.py, only its first echo is slow: one burst of load."""
import json
import os
import time

cmd = os.fdopen(0, "rb")
# How many echoes burn CPU (None: every one); set by a script that runs this one.
slow_echoes = globals().get("SLOW_ECHOES")


def send(obj):
    os.write(1, (json.dumps(obj) + "\n").encode())


while True:
    line = cmd.readline()
    op = line[:1]
    if op == b"L":
        send({"ready": True})
    elif op == b"G":
        send({"ok": True})
    elif op in (b"C", b"E"):
        args = json.loads(line[1:])
        if op == b"E" and (slow_echoes is None or slow_echoes > 0):
            slow_echoes = None if slow_echoes is None else slow_echoes - 1
            end = time.process_time() + 0.05
            while time.process_time() < end:
                pass
            send({"output": args[0], "mutated": False})
        elif op == b"E":
            send({"output": args[0], "mutated": False})
        else:
            send({"output": sorted(args[0]), "mutated": False})
    else:
        break
