"""Graded labs: solutions withheld from the student's environment, and a grading call that trusts nothing the
student's cells left in the kernel.

*Withheld solutions.* A graded environment (the nbgrader release on a hub, built with
``python -m delivery.graded_package``) installs the package with every ``lessonNN/solutions.py`` replaced by a stub
that holds no code: its attributes are :func:`withheld` placeholders. A check then cannot compare (it says the
lab is graded when submitted) and ``ex.hint`` never shows a worked answer. ``LMTIE_GRADED=1`` in the
environment also withholds the worked answer where the solutions happen to be installed.

*Grading*: :mod:`lmtie_edu.kit.autograde`'s ``grade`` is what the locked cells of a graded lab call in the
student's kernel; the marks come from ``delivery/grade_submissions.py``, which runs the answers in a process of their
own (:mod:`lmtie_edu.kit.answer_process`).
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parents[1]


class SolutionWithheld(Exception):
    """A reference solution was asked for in a graded environment, where none is installed."""


def withheld(name: str):
    """A stand-in for the reference solution ``name``: raises :class:`SolutionWithheld` when called."""

    def solution(*args, **kwargs):
        raise SolutionWithheld(name)

    solution.__name__ = solution.__qualname__ = name
    solution.withheld = True
    return solution


def withheld_module_getattr(module_name: str):
    """The ``__getattr__`` of a withheld ``solutions`` module (PEP 562): every name is a placeholder."""

    @functools.cache
    def __getattr__(name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        placeholder = withheld(name)
        placeholder.__module__ = module_name
        return placeholder

    return __getattr__


def is_withheld(solution) -> bool:
    return getattr(solution, "withheld", False)


GRADED_MARKER = PACKAGE_DIR / "GRADED"  # written by delivery/graded_package.py into a graded copy of the package


def graded_mode() -> bool:
    """True in a graded environment: a graded copy of the package, or ``LMTIE_GRADED=1``."""
    return GRADED_MARKER.exists() or os.environ.get("LMTIE_GRADED", "") not in ("", "0")
