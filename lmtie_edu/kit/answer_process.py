"""A learner's answers run in a process of their own, which the grader drives through plain data only.

:class:`AnswerProcess` (the grader's side) starts ``python -S`` in a scratch folder with a graded copy of the
package first on its path (no reference solutions importable by name), sets its memory limit, and has it run the
answer cells' source. ``process.function(name)`` is then a stand-in for the learner's function: each call sends
the arguments over (``torch.save``: the grader's objects), waits at most ``limit`` seconds, and gets back what
:mod:`.wire` rebuilds from data — or the learner's exception as a type name and message. Nothing the learner wrote
runs in the grader's process, so nothing there can be patched by it; a crash, an endless loop or a memory bomb
ends only that process (the next call starts a fresh one). :func:`serve` is the other side.

Out of reach: the process can read the files the user running it can read — run grading as a user who cannot
read the full package (``user=``), or on a machine without it (see the instructor guide).
"""

from __future__ import annotations

import builtins
import contextlib
import io
import json
import os
import select
import shutil
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import torch

from . import wire
from .answer_guard import AnswerTimeout
from .feedback import Shortcut
from .shortcuts import autograd_forbidden, forbid_autograd

MAX_REPLY_BYTES = 256 * 2**20
SAME_ARITHMETIC = ("ATEN_CPU_CAPABILITY", "MKL_CBWR", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
STARTUP_SECONDS = 60  # python and torch starting on a busy machine, before the answer cells' own limit
ERROR_TYPES = {name: value for name, value in vars(builtins).items()
               if isinstance(value, type) and issubclass(value, Exception)}
BOOT = "import sys; sys.path[:0] = sys.argv[1:]; from lmtie_edu.kit.answer_process import serve; serve()"


class RunnerUnavailable(RuntimeError):
    """The answers' process cannot be started at all (e.g. ``user`` cannot run this Python): the grader's fault."""


class ProcessEnded(Exception):
    """The process running the learner's code ended during a call (it exited, crashed or ran out of memory)."""


def _send(stream, payload: bytes) -> None:
    stream.write(struct.pack(">Q", len(payload)) + payload)
    stream.flush()


def _receive(stream) -> bytes:
    header = stream.read(8)
    if len(header) < 8:
        raise EOFError
    return stream.read(struct.unpack(">Q", header)[0])


def _saved(value) -> bytes:
    buffer = io.BytesIO()
    torch.save(value, buffer)
    return buffer.getvalue()


# -- the learner's side --------------------------------------------------------------------------------------------
def _error(error: BaseException) -> dict:
    if isinstance(error, Shortcut):
        return {"shortcut": error.tool}
    try:
        message = str(error)[:2000]
    except Exception:  # noqa: BLE001 — the learner's exception has a __str__ that raises
        message = "(its message cannot be shown: its __str__ raised an error)"
    plain = all(type(arg) in (str, int, float, bool, type(None)) for arg in error.args)
    return {"type": type(error).__name__, "bases": [kind.__name__ for kind in type(error).__mro__],
            "message": message, "args": list(error.args) if plain else None}


def serve() -> None:
    """Run in the learner's process: set up from the first message, then answer calls until the input ends."""
    import resource

    channel_in, channel_out = sys.stdin.buffer, os.fdopen(os.dup(1), "wb")
    quiet = os.open(os.devnull, os.O_WRONLY)
    os.dup2(quiet, 1)
    os.dup2(quiet, 2)
    _send(channel_out, b"started")
    setup = torch.load(io.BytesIO(_receive(channel_in)), weights_only=False)
    memory = setup["memory_bytes"]
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    namespace = {"__name__": "__main__"}
    cells = []
    for number, source in enumerate([setup["preamble"], *setup["cells"]]):
        try:
            exec(compile(source, f"<answer cell {number}>", "exec"), namespace)  # noqa: S102 — the point
            cells.append(None)
        except BaseException as error:  # noqa: BLE001 — reported; the other cells still run
            cells.append(_error(error))
    found = {name: ("function" if callable(namespace.get(name)) else type(namespace.get(name)).__name__)
             for name in setup["names"]}
    _send(channel_out, json.dumps({"cells": cells, "found": found}).encode("utf-8"))
    while True:
        try:
            call = torch.load(io.BytesIO(_receive(channel_in)), weights_only=False)
        except EOFError:
            return
        snapshot = wire.Snapshot([*call["args"], *call["kwargs"].values()])
        torch.set_rng_state(call["rng"])  # the grader's random state: a random draw in the answer is the one it would be
        torch.set_num_threads(call["threads"])  # and its threads: a sum splits into the same parts
        try:
            with forbid_autograd() if call["forbid_autograd"] else contextlib.nullcontext():
                result = namespace[call["name"]](*call["args"], **call["kwargs"])
            reply = b"R" + wire.encode(result, snapshot)
        except BaseException as error:  # noqa: BLE001 — the learner's, sent to the grader as data
            reply = b"E" + json.dumps(_error(error)).encode("utf-8")
        _send(channel_out, reply)


# -- the grader's side ---------------------------------------------------------------------------------------------
def _rebuilt_error(spec: dict) -> BaseException:
    """The learner's exception as the grader sees it: a builtin type of the same lineage, with its message."""
    if "shortcut" in spec:
        return Shortcut(str(spec["shortcut"]))
    name, message = str(spec.get("type", "Exception")), str(spec.get("message", ""))
    base = next((ERROR_TYPES[kind] for kind in spec.get("bases", []) if kind in ERROR_TYPES), Exception)
    if base is NotImplementedError:
        return NotImplementedError(message)
    args = spec.get("args") if isinstance(spec.get("args"), list) else [message]  # KeyError('x').args is ('x',)
    args = [arg if type(arg) in (str, int, float, bool, type(None)) else str(arg) for arg in args]
    try:
        return type(name if name.isidentifier() else "Error", (base,), {"__str__": lambda self: message})(*args)
    except TypeError:  # a builtin whose constructor wants more than a message (UnicodeDecodeError, …)
        return type(name if name.isidentifier() else "Error", (Exception,), {"__str__": lambda self: message})()


class RemoteFunction:
    """The learner's function ``name`` as the grader calls it; ``__code__`` is compiled (never run) from its source,
    for checks that read the code."""

    def __init__(self, process: AnswerProcess, name: str, code):
        self.process, self.__name__, self.__code__ = process, name, code

    def __call__(self, *args, **kwargs):
        return self.process.call(self.__name__, list(args), kwargs)


class AnswerProcess:
    """The learner's answer cells, run in a separate, limited process (see the module docstring)."""

    def __init__(self, cells: list[str], preamble: str, names: list[str], *, package: Path, limit: float = 30,
                 memory_bytes: int = 4 * 2**30, user: str | None = None):
        self.cells, self.preamble, self.names, self.package = list(cells), preamble, list(names), Path(package)
        self.limit, self.memory_bytes, self.user = limit, memory_bytes, user
        self.process: subprocess.Popen | None = None
        self.report: dict = {}

    def start(self) -> dict:
        """Start the process and run the cells; the report says which cells raised and which names exist."""
        self.close()
        self.scratch = tempfile.TemporaryDirectory(prefix="lmtie-answer-")
        env = {"PATH": os.environ.get("PATH", ""), "HOME": self.scratch.name, "LANG": "C.UTF-8", "LMTIE_GRADED": "1",
               # the grader's choice of CPU kernels, so that the answer's arithmetic is the grader's to the last bit
               **{name: os.environ[name] for name in SAME_ARITHMETIC if name in os.environ}}
        # the grader's own import path, less any folder that holds the full package (python -S: no .pth hooks either)
        paths = [str(self.package), *(path for path in sys.path
                                       if path and Path(path).exists() and not (Path(path) / "lmtie_edu").exists())]
        try:
            if self.user is not None:  # its home and working folder
                shutil.chown(self.scratch.name, user=self.user)
            self.process = subprocess.Popen([sys.executable, "-S", "-c", BOOT, *paths], stdin=subprocess.PIPE,
                                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=self.scratch.name,
                                            env=env, user=self.user)
        except (OSError, LookupError, ValueError) as error:  # the grader's set-up (no such user, …), not the answer
            raise RunnerUnavailable(f"cannot start {sys.executable} for the answers"
                                    + (f" as user {self.user!r}" if self.user else "") + f": {error}") from error
        _send(self.process.stdin, _saved({"preamble": self.preamble, "cells": self.cells, "names": self.names,
                                          "memory_bytes": self.memory_bytes}))
        self._reply(STARTUP_SECONDS)  # python and torch are up: from here on, the answer cells' own limit
        self.report = json.loads(self._reply(self.limit).decode("utf-8"))
        return self.report

    def function(self, name: str) -> RemoteFunction | None:
        """The stand-in for the learner's ``name``; None when the cells define no function of that name."""
        if self.process is None:
            self.start()
        if self.report["found"].get(name) != "function":
            return None
        code = None
        for source in self.cells:
            try:
                module = compile(source, "<answer cell>", "exec")
            except SyntaxError:
                continue
            code = next((const for const in module.co_consts if getattr(const, "co_name", None) == name), code)
        return RemoteFunction(self, name, code)

    def call(self, name: str, args: list, kwargs: dict):
        if self.process is None or self.process.poll() is not None:
            self.start()
        arguments = [*args, *kwargs.values()]
        originals = wire.tensors_in(arguments)
        try:
            _send(self.process.stdin, _saved({"name": name, "args": args, "kwargs": kwargs,
                                              "forbid_autograd": autograd_forbidden(), "rng": torch.get_rng_state(),
                                              "threads": torch.get_num_threads()}))
            reply = self._reply(self.limit)
        except BaseException:  # a timeout, an interrupt, a broken pipe: the process's state is unknown
            self.close()
            raise
        if reply[:1] == b"E":
            raise _rebuilt_error(json.loads(reply[1:].decode("utf-8")))
        return wire.decode(reply[1:], arguments, originals)

    def _reply(self, limit: float) -> bytes:
        """The next message from the process, read straight from its pipe (a buffered reader could take the
        next message in too, where ``select`` no longer sees it)."""
        pipe, deadline = self.process.stdout.fileno(), time.monotonic() + limit

        def read(count: int) -> bytes:
            data = bytearray()
            while len(data) < count:
                if not select.select([pipe], [], [], max(0.0, deadline - time.monotonic()))[0]:
                    timeout = AnswerTimeout()
                    timeout.limit = limit
                    raise timeout
                chunk = os.read(pipe, min(count - len(data), 2**20))
                if not chunk:
                    code = self.process.wait()
                    raise ProcessEnded(f"the process running your code ended (exit status {code}"
                                       + (", perhaps out of memory" if code in (-9, 137) else "") + ")")
                data += chunk
            return bytes(data)

        size = struct.unpack(">Q", read(8))[0]
        if size > MAX_REPLY_BYTES:
            raise wire.Unreadable(f"your function returned {size:,} bytes of data (the grader reads at most "
                                  f"{MAX_REPLY_BYTES:,})")
        deadline = max(deadline, time.monotonic() + limit)  # a large reply that has begun gets time to arrive
        return read(size)

    def close(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None
            self.scratch.cleanup()
