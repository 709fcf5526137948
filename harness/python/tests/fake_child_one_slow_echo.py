"""An honest child whose first echo is slow, as one burst of load on a busy machine makes it."""
import os
import runpy

runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "fake_child_slow_echo.py"),
               init_globals={"SLOW_ECHOES": 1}, run_name="__main__")
