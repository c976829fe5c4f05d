"""Graded labs: solutions withheld from the student's environment, and a grading call that trusts nothing the
student's cells left in the kernel.

*Withheld solutions.* A graded environment (the nbgrader release on a hub, built with
``python -m tools.graded_package``) installs the package with every ``lessonNN/solutions.py`` replaced by a stub
that holds no code: its attributes are :func:`withheld` placeholders. A check then cannot compare (it says the
lab is graded when submitted) and ``ex.hint`` never shows a worked answer. ``LMTIE_GRADED=1`` in the
environment also withholds the worked answer where the solutions happen to be installed.

*Grading.* The locked, autograded cells of a graded lab call :func:`grade`, not the ``ex`` the student's
cells could have rebound: it takes the checker from the package's own module, first making sure that no module of
the package was replaced or patched from the student's cells (it fails loudly, scoring 0, when one was).
"""

from __future__ import annotations

import ast
import functools
import importlib
import os
import sys
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


GRADED_MARKER = PACKAGE_DIR / "GRADED"  # written by tools/graded_package.py into a graded copy of the package


def graded_mode() -> bool:
    """True in a graded environment: a graded copy of the package, or ``LMTIE_GRADED=1``."""
    return GRADED_MARKER.exists() or os.environ.get("LMTIE_GRADED", "") not in ("", "0")


def _defined_names(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {node.name for node in tree.body if isinstance(node, ast.FunctionDef | ast.ClassDef)}


def _code_file(obj) -> str | None:
    obj = getattr(obj, "__wrapped__", obj)
    code = getattr(obj, "__code__", None)
    return code.co_filename if code else None


def tampering() -> list[str]:
    """What in the kernel no longer matches the package's own files: replaced modules, patched functions."""
    problems = []
    for name, module in list(sys.modules.items()):
        if not (name == "lmtie_edu" or name.startswith("lmtie_edu.")):
            continue
        file = getattr(module, "__file__", None)
        if not file or PACKAGE_DIR not in Path(file).resolve().parents:
            problems.append(f"{name} is not the package's module (replaced in the kernel)")
            continue
        defined = _defined_names(Path(file)) if file.endswith(".py") else set()
        for attribute, value in sorted(vars(module).items()):
            if attribute.startswith("__"):
                continue
            where = _code_file(value) if callable(value) and not isinstance(value, type) else None
            ours = attribute in defined and where is not None and Path(where).resolve() != Path(file).resolve()
            if ours or getattr(getattr(value, "__wrapped__", value), "__module__", None) == "__main__":
                problems.append(f"{name}.{attribute} was replaced in the kernel")
        problems += [f"{name}.{attribute} is gone" for attribute in sorted(defined - set(vars(module)))]
    return problems


def grade(lesson: str, name: str, answer) -> bool:
    """The autograded check of exercise ``name`` of ``lesson`` (e.g. ``"lesson01"``): True when it passes.

    Fails, printing why, when a module of the package was patched from the student's cells."""
    problems = tampering()
    exercises = importlib.import_module(f"lmtie_edu.{lesson}.exercises")
    registry = importlib.import_module("lmtie_edu.kit.exercises").REGISTRY
    check = getattr(exercises, name, None)
    if check is None or registry.get(name) is not check:
        problems.append(f"the check of {name} is not the one lmtie_edu.{lesson}.exercises declares")
    if problems:
        print(f"❌ {name}: not graded — the grading code was changed in this kernel:\n   " + "\n   ".join(problems))
        return False
    return bool(check(answer))
