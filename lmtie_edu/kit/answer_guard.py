"""Running the learner's function inside a check without letting it break the check or the session.

While the learner's code runs, :func:`guarded` stops it after a time limit (where the platform has
``SIGALRM``: Linux and macOS, in the kernel's main thread), keeps at most ``MAX_LINES`` lines and
``MAX_CHARS`` characters of what it prints (and says how much more there was), and afterwards restores what it may have changed for the rest of the
session: torch's default dtype, whether gradients are on, torch's thread count, the global random states of
torch, NumPy and Python's ``random``, and ``print``.
"""

from __future__ import annotations

import builtins
import contextlib
import io
import random
import signal
import sys
import threading

import numpy as np
import torch

from lmtie_edu.shared.language import tr

TIME_LIMIT_SECONDS = 30  # per check: every reference solution takes well under a second
MAX_LINES = 20
MAX_CHARS = 4000   # one print of a huge string is one line: characters are capped too


class AnswerTimeout(Exception):
    """The learner's code ran past the check's time limit."""


class _CappedOutput(io.TextIOBase):
    def __init__(self, target):
        self.target, self.lines, self.chars, self.hidden_chars, self.at_line_start = target, 0, 0, 0, True

    def write(self, text: str) -> int:
        for piece in str.__str__(text).splitlines(keepends=True):
            room = MAX_CHARS - self.chars
            shown = piece[:room] if self.lines < MAX_LINES and room > 0 else ""
            if shown:
                self.target.write(shown)
                self.at_line_start = shown.endswith("\n")
            self.chars += len(shown)
            self.hidden_chars += len(piece) - len(shown)
            self.lines += piece.endswith("\n")
        return len(text)

    def flush(self) -> None:
        self.target.flush()


def _can_alarm() -> bool:
    return hasattr(signal, "SIGALRM") and threading.current_thread() is threading.main_thread()


@contextlib.contextmanager
def guarded(limit: float | None = None):
    """The context a check runs the learner's function in (see the module docstring)."""
    limit = TIME_LIMIT_SECONDS if limit is None else limit
    dtype, grad, rng = torch.get_default_dtype(), torch.is_grad_enabled(), torch.get_rng_state()
    threads, python_rng, shown = torch.get_num_threads(), random.getstate(), builtins.print
    numpy_rng = np.random.get_state()  # noqa: NPY002 — the legacy global generator is the one an answer may reseed
    output = _CappedOutput(sys.stdout)
    alarm = _can_alarm()
    if alarm:
        def stop(signum, frame):
            raise AnswerTimeout(tr("your code ran for more than {limit} s (a loop that never ends?)", limit=format(limit, "g")))

        previous = signal.signal(signal.SIGALRM, stop)
        signal.setitimer(signal.ITIMER_REAL, limit)
    try:
        with contextlib.redirect_stdout(output):
            yield
    finally:
        if alarm:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
        torch.set_default_dtype(dtype)
        torch.set_grad_enabled(grad)
        torch.set_rng_state(rng)
        torch.set_num_threads(threads)
        np.random.set_state(numpy_rng)  # noqa: NPY002 — see above
        random.setstate(python_rng)
        builtins.print = shown
        if output.hidden_chars:
            if not output.at_line_start:
                print()   # the last line shown was cut: the note starts a line of its own
            print(tr("   … and {count} more characters printed by your code (not shown)",
                     count=format(output.hidden_chars, ",")))
