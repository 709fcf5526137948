"""Keeps a trusted process's files and memory from the other processes of its sandbox, which
run as the same user (often root, in a container or the process executor)."""
from __future__ import annotations

import ctypes
from typing import Any, Optional

PR_SET_DUMPABLE = 4
PR_CAPBSET_DROP = 24
PR_SET_NO_NEW_PRIVS = 38
LINUX_CAPABILITY_VERSION_3 = 0x20080522
LAST_CAPABILITY = 63


def _libc() -> Optional[Any]:
    try:
        return ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None


def refuse_inspection() -> bool:
    """prctl(PR_SET_DUMPABLE, 0): /proc/PID/fd, /proc/PID/mem and ptrace of this process then
    need CAP_SYS_PTRACE, which drop_capabilities() takes from the processes that run untrusted
    code. Best effort (True when set): without libc's prctl (not Linux) the other walls stand."""
    libc = _libc()
    try:
        return libc is not None and libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) == 0
    except AttributeError:
        return False


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


def drop_capabilities() -> bool:
    """Gives up every capability for good, for this process and all it starts: the bounding
    set first (else a root process regains them all at its next exec), then the effective,
    permitted, inheritable (and so ambient) sets, and no new privileges on exec. A root worker
    then cannot read the adapter's memory or open its file descriptors, though both run as
    root. True when the process ends with no capability."""
    libc = _libc()
    if libc is None:
        return False
    try:
        for capability in range(LAST_CAPABILITY + 1):
            libc.prctl(PR_CAPBSET_DROP, capability, 0, 0, 0)  # EINVAL past the last one the kernel knows
        data = (_CapData * 2)()
        dropped = libc.capset(ctypes.byref(_CapHeader(LINUX_CAPABILITY_VERSION_3, 0)), data) == 0
        libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
        return dropped
    except AttributeError:
        return False
