"""The child's side of the harness's protocol (peagen_harness/_child.py), for the tests' fake
children: serve(echo, call) answers requests until the parent stops, with the output that
echo(key, args) or call(key, args) gives (key: the request's arguments as sent)."""
import json
import os
import time


def burn(ms):
    """Spends `ms` of CPU."""
    end = time.process_time() + ms / 1000
    while time.process_time() < end:
        pass


def serve(echo, call):
    cmd = os.fdopen(0, "rb")
    while True:
        line = cmd.readline()
        op = line[:1]
        if op == b"L":
            reply = {"ready": True}
        elif op == b"G":
            reply = {"ok": True}
        elif op in (b"C", b"E"):
            answer = call if op == b"C" else echo
            reply = {"output": answer(line[1:], json.loads(line[1:])), "mutated": False}
        else:
            break
        os.write(1, (json.dumps(reply) + "\n").encode())
