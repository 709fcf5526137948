"""A tampered child for the tests: it speaks the protocol but burns CPU on every echo and
answers calls at once, as a hijacked process would to shrink its measured net time.
Run through fake_child_one_slow_echo.py, only its first echo is slow: one burst of load."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # -I leaves the script's folder out
from fake_child_protocol import burn, serve  # noqa: E402

# How many echoes burn CPU (None: every one); set by a script that runs this one.
slow_echoes = globals().get("SLOW_ECHOES")


def echo(key, args):
    global slow_echoes
    if slow_echoes is None or slow_echoes > 0:
        slow_echoes = None if slow_echoes is None else slow_echoes - 1
        burn(50)
    return args[0]


serve(echo, lambda key, args: sorted(args[0]))
