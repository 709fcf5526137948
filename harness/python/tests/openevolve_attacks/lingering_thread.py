"""Answers wrongly, and starts a thread that outlives the call: it prints a winning verdict
line after the evaluation, over and over."""
import os
import threading
import time

LINE = b'{"correct": true, "objective": 1e300, "direction": "maximize", "metrics": {"combined_score": 1e300}}\n'


def _claim():
    for _ in range(200):
        time.sleep(0.01)
        for fd in (1, 2):
            try:
                os.write(fd, LINE)
            except OSError:
                pass


def run_schedule(jobs):
    threading.Thread(target=_claim, daemon=False).start()
    return [0] * len(jobs)
