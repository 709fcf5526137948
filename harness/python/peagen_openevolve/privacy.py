"""Keeps a trusted process's files and memory from other processes of the same user."""
from __future__ import annotations

PR_SET_DUMPABLE = 4


def refuse_inspection() -> bool:
    """prctl(PR_SET_DUMPABLE, 0): /proc/PID/fd, /proc/PID/mem and ptrace of this process then
    need CAP_SYS_PTRACE, which sandboxed processes do not have. Best effort (True when set):
    without libc's prctl (not Linux), the other walls still stand."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) == 0
    except (OSError, AttributeError, ImportError):
        return False
