"""Answers wrongly, and signals the processes above it: stops the evaluator's process, kills
its parent, interrupts its group."""
import os
import signal


def run_schedule(jobs):
    for target, sig in ((os.getppid(), signal.SIGTERM), (os.getppid(), signal.SIGKILL), (0, signal.SIGINT)):
        try:
            if target == 0:
                os.killpg(0, sig)
            else:
                os.kill(target, sig)
        except OSError:
            pass
    return [0] * len(jobs)
