"""The call the locked, autograded cells of a graded lab make: ``grade("lesson01", "bag_of_tokens", answer)``.

Not the ``ex`` the student's cells could have rebound: :func:`grade` takes the checker from the package's own
module, first making sure that no module of the package was replaced or patched from the student's cells
(it fails loudly, scoring 0, when one was). It runs in the student's kernel, so it cannot be the last word:
the marks are decided afterwards by ``python -m delivery.grade_submissions``, which runs the answers in a process
apart (:mod:`lmtie_edu.kit.answer_process`); what each can and cannot see is said in the instructor guide.
"""

from __future__ import annotations

import ast
import importlib
import sys
from pathlib import Path

from lmtie_edu.shared.language import tr

from .exercises import REGISTRY
from .grading import PACKAGE_DIR


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
    check = getattr(exercises, name, None)
    if check is None or REGISTRY.get(name) is not check:
        problems.append(f"the check of {name} is not the one lmtie_edu.{lesson}.exercises declares")
    if problems:
        print(tr("❌ {name}: not graded — the grading code was changed in this kernel:", name=name) + "\n   "
              + "\n   ".join(problems))
        return False
    return bool(check(answer))
