"""Running the learner's function inside a check without letting it break the check or the session.

While the learner's code runs, :func:`guarded` stops it after a time limit, keeps at most ``MAX_LINES`` lines and
``MAX_CHARS`` characters of what it prints (and says how much more there was), and afterwards restores what it may have changed for the rest of the
session: torch's default dtype, whether gradients are on, torch's thread count, the global random states of
torch, NumPy and Python's ``random``, ``print``, and the handlers of ``SIGINT``, ``SIGALRM`` and ``SIGTERM``.

The limit is kept by a timer thread, which costs nothing while the answer runs: at the limit (and every 0.1 s
after it) it sends the kernel's main thread ``SIGINT`` (``signal.pthread_kill``; on Windows
``_thread.interrupt_main``), which wakes a sleeping answer, and the guard's handler raises
:class:`AnswerTimeout` in the learner's code. An answer may catch that in a loop — so from then on a trace
function raises again at each of the learner's lines and a profile function at each of its calls
(:class:`_Watch`), and the first one outside a ``try`` ends the answer. Before the limit, a ``SIGINT`` (the
interrupt button, Ctrl-C) is the plain ``KeyboardInterrupt`` it always was. An answer that replaced or ignores
the ``SIGINT`` handler gets the exception asynchronously instead (``PyThreadState_SetAsyncExc``), which ends a
loop without a ``try``. Out of reach: one C call that never returns (nothing runs until it does), and an answer
that both ignores ``SIGINT`` and catches the exception in a loop, or switches the hooks off itself.
"""

from __future__ import annotations

import _thread
import builtins
import contextlib
import ctypes
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

    Until the limit nothing runs. At the limit a timer thread interrupts the main thread; from then on the trace
    function and the profile function both raise :class:`AnswerTimeout` at the learner's next line or call.
    Python switches off a hook that raises (and clears that frame's ``f_trace``), so each one switches the other
    back on before raising: an answer that catches the first exception meets the next at its next line or call,
    and the first one outside a ``try`` ends it.
    """

    def __init__(self, limit: float):
        self.limit = limit
        self.timeout = type("AnswerTimeout", (AnswerTimeout,), {"limit": limit})
        self.fired = self.overdue = self.sent_async = False
        self.done = threading.Event()
        self.main = threading.main_thread().ident

    def start(self) -> None:
        self.thread = threading.Thread(target=self._timer, name="lmtie-answer-timer", daemon=True)
        self.thread.start()

    def _timer(self) -> None:
        if self.done.wait(self.limit):
            return
        self.overdue = True
        while not self.done.is_set():
            if signal.getsignal(signal.SIGINT) != self.on_interrupt:  # the answer replaced or ignores it
                self.sent_async = True
                ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(self.main), ctypes.py_object(self.timeout))
            elif hasattr(signal, "pthread_kill"):
                signal.pthread_kill(self.main, signal.SIGINT)  # a real signal: it wakes a sleeping answer too
            else:
                _thread.interrupt_main(signal.SIGINT)
            self.done.wait(0.1)

    def learners(self, frame) -> bool:
        return not self.done.is_set() and frame is not None and _learners_code(frame.f_code.co_filename)

    def stop_learner(self, frame):
        self.fired = True
        sys.settrace(self.on_call)
        sys.setprofile(self.on_event)
        frame.f_trace = self.on_line  # Python cleared it in the frame where the trace function last raised
        raise self.timeout()

    def on_interrupt(self, signum, frame):
        if not self.overdue:
            raise KeyboardInterrupt  # the interrupt button or Ctrl-C, as without the guard
        if self.done.is_set():
            return
        sys.settrace(self.on_call)
        sys.setprofile(self.on_event)
        if self.learners(frame):
            self.stop_learner(frame)

    def on_call(self, frame, event, arg):
        if not _learners_code(frame.f_code.co_filename):
            return None
        if self.learners(frame):
            self.stop_learner(frame)
        return self.on_line

    def on_line(self, frame, event, arg):
        if event == "line" and self.learners(frame):  # not while an exception or a return passes through
            self.stop_learner(frame)
        return self.on_line

    def on_event(self, frame, event, arg):
        if event in ("call", "c_call") and self.learners(frame):
            self.stop_learner(frame)

    def stop(self, traced, profiled) -> None:
        """No more interrupts (a last one already sent is handled here, harmlessly), hooks as before."""
        self.done.set()
        for _attempt in range(100):
            try:
                if getattr(self, "thread", None) is not None:
                    self.thread.join()
                if not self.sent_async:
                    break
                time.sleep(0)  # a point where an asynchronous exception still pending is delivered: here
            except AnswerTimeout:  # the timer's last asynchronous one, caught before the checker runs on
                break
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


_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGALRM", "SIGTERM") if hasattr(signal, name))


def _in_main_thread() -> bool:
    """Signal handlers run in the main thread only: elsewhere the answer runs without a limit."""
    return threading.current_thread() is threading.main_thread()


@contextlib.contextmanager
def guarded(limit: float | None = None):
    """The context a check runs the learner's function in (see the module docstring)."""
    limit = TIME_LIMIT_SECONDS if limit is None else limit
    dtype, grad, rng = torch.get_default_dtype(), torch.is_grad_enabled(), torch.get_rng_state()
    threads, python_rng, shown = torch.get_num_threads(), random.getstate(), builtins.print
    numpy_rng = np.random.get_state()  # noqa: NPY002 — the legacy global generator is the one an answer may reseed
    output = _CappedOutput(sys.stdout)
    watch, traced, profiled = _Watch(limit), sys.gettrace(), sys.getprofile()
    timed = _in_main_thread()
    if timed:  # the answer may replace any handler: the ones this session had are put back afterwards
        handlers = {number: signal.getsignal(number) for number in _SIGNALS}
        signal.signal(signal.SIGINT, watch.on_interrupt)
        watch.start()
    timed_out = False
    try:
        with contextlib.redirect_stdout(output):
            yield
    except AnswerTimeout:
        timed_out = True
        raise
    finally:
        watch.stop(traced, profiled)
        if timed:
            for number, handler in handlers.items():
                if handler is not None:  # None: set outside Python, cannot be put back from here
                    signal.signal(number, handler)
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
