"""Running the learner's function inside a check without letting it break the check or the session.

While the learner's code runs, :func:`guarded` stops it after a time limit, keeps at most ``MAX_LINES`` lines and
``MAX_CHARS`` characters of what it prints (and says how much more there was), and afterwards restores what it may have changed for the rest of the
session: torch's default dtype, whether gradients are on, torch's thread count, the global random states of
torch, NumPy and Python's ``random``, and ``print``.

The limit is kept two ways. ``SIGALRM`` (Linux and macOS, in the kernel's main thread) wakes a sleeping answer.
An answer can defeat a signal, though — catch the exception in a loop, set ``SIGALRM`` to be ignored, cancel
the timer — so a trace function also watches the learner's own lines (not library code, so the cost stays
small): once the limit has passed, every line or call of the learner's code raises :class:`AnswerTimeout`
again (:class:`_Watch`), so the first one outside a ``try`` ends the answer. This also keeps the
limit where there is no ``SIGALRM`` (Windows), for Python-level loops. Out of reach: one C call that never
returns (a huge tensor operation: neither a signal handler nor a hook runs until it does), and an answer that
switches the hooks off itself (``sys.settrace(None)`` and ``sys.setprofile(None)``).
"""

from __future__ import annotations

import builtins
import contextlib
import functools
import io
import os
import random
import signal
import sys
import sysconfig
import threading
import time

import numpy as np
import torch

from lmtie_edu.shared.language import tr

TIME_LIMIT_SECONDS = 30  # per check: every reference solution takes well under a second
MAX_LINES = 20
MAX_CHARS = 4000   # one print of a huge string is one line: characters are capped too


class AnswerTimeout(Exception):
    """The learner's code ran past the check's time limit."""

    limit: float = TIME_LIMIT_SECONDS

    def __str__(self) -> str:
        return tr("your code ran for more than {limit} s (a loop that never ends?)", limit=format(self.limit, "g"))


# Where code that is not the learner's lives: Python's own library, installed packages, this package.
_LIBRARY_FOLDERS = tuple(sorted({os.path.join(os.path.realpath(folder), "") for folder in (
    sys.prefix, sys.base_prefix, sys.exec_prefix, sysconfig.get_paths()["stdlib"], sysconfig.get_paths()["purelib"],
    sysconfig.get_paths()["platlib"], os.path.dirname(os.path.dirname(os.path.realpath(__file__))))}))


@functools.lru_cache(maxsize=4096)
def _learners_code(filename: str) -> bool:
    """A frame of the learner's own code (a notebook cell, a file of theirs), not of a library."""
    return not os.path.realpath(filename).startswith(_LIBRARY_FOLDERS) if os.path.isabs(filename) else True


class _Watch:
    """Ends an answer that outlived its limit, however it handles the exception (see the module docstring).

    Before the limit only a trace function runs, and only on the learner's own frames. Once the limit has passed,
    the trace function and a profile function both raise :class:`AnswerTimeout` at the learner's next line or
    call. Python switches off a hook that raises, so each one switches the other back on before raising: an
    answer that catches the first exception meets the next at its next line or call, and the first one outside
    a ``try`` ends it.
    """

    def __init__(self, limit: float):
        self.deadline = time.monotonic() + limit
        self.timeout = type("AnswerTimeout", (AnswerTimeout,), {"limit": limit})
        self.fired = self.stopped = False

    def overdue(self) -> bool:
        return not self.stopped and time.monotonic() > self.deadline

    def arm(self) -> None:
        """Both hooks on (the limit has passed)."""
        sys.settrace(self.on_call)
        sys.setprofile(self.on_event)

    def stop_learner(self):
        self.fired = True
        raise self.timeout()

    def on_call(self, frame, event, arg):
        if not _learners_code(frame.f_code.co_filename):
            return None
        if self.overdue():
            sys.setprofile(self.on_event)
            self.stop_learner()
        return self.on_line

    def on_line(self, frame, event, arg):
        if self.overdue():
            sys.setprofile(self.on_event)
            self.stop_learner()
        return self.on_line

    def on_event(self, frame, event, arg):
        if self.overdue() and frame is not None and _learners_code(frame.f_code.co_filename):
            sys.settrace(self.on_call)
            frame.f_trace = self.on_line  # Python cleared it in the frame where the trace function last raised
            self.stop_learner()

    def on_alarm(self, signum, frame):
        """SIGALRM at the limit (and every 0.1 s after it): a sleeping answer is woken and stopped."""
        if self.stopped:
            return
        self.arm()
        signal.setitimer(signal.ITIMER_REAL, 0.1)
        if frame is not None and _learners_code(frame.f_code.co_filename):
            frame.f_trace = self.on_line
            self.stop_learner()

    def stop(self, traced, profiled) -> None:
        """Hooks as before the answer ran."""
        self.stopped = True
        sys.settrace(traced)
        sys.setprofile(profiled)


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
    watch, traced, profiled = _Watch(limit), sys.gettrace(), sys.getprofile()
    alarm = _can_alarm()
    if alarm:
        previous = signal.signal(signal.SIGALRM, watch.on_alarm)
        signal.setitimer(signal.ITIMER_REAL, limit)
    timed_out = False
    sys.settrace(watch.on_call)
    try:
        with contextlib.redirect_stdout(output):
            yield
    except AnswerTimeout:
        timed_out = True
        raise
    finally:
        watch.stop(traced, profiled)
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
    if watch.fired and not timed_out:  # the answer caught every timeout and returned after its limit
        raise watch.timeout()
