"""fake_child_cold.py, whose echoes after the first of each input burn 40 ms of CPU."""
import os
import runpy

runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "fake_child_cold.py"),
               init_globals={"LATE_MS": 40}, run_name="__main__")
