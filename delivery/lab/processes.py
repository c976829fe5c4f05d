"""Servers the tests start on 127.0.0.1 (JupyterLab, JupyterHub): a free port, and no orphan when pytest dies."""

from __future__ import annotations

import ctypes
import signal
import socket
import sys


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def die_with_parent() -> None:
    """Run in the child before exec: Linux sends it SIGTERM if pytest itself is killed (no orphans in CI)."""
    if sys.platform.startswith("linux"):
        PR_SET_PDEATHSIG = 1
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
