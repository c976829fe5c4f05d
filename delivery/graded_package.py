"""A graded copy of the package, for the students' environment of a graded lab (a hub image, a lab machine).

    python -m delivery.graded_package DIR      # writes DIR/lmtie_edu; then `pip install DIR` or put DIR first on PYTHONPATH
    python -m delivery.graded_package .        # in place, in a checkout made for a graded image (the hub's Dockerfile)
    python -m delivery.graded_package --answers DIR   # also without the lesson functions that compute an answer

The copy is the package with every ``lessonNN/solutions.py`` replaced by a stub that holds no code (its names
are placeholders, :func:`lmtie_edu.kit.grading.withheld`), no compiled bytecode, no translated worked answers (their
catalogue holds the solutions' comments), and a ``GRADED`` marker: in that environment a
check says the lab is graded when submitted, ``ex.hint`` stops before the worked answer, and no reference
solution can be imported or printed. The grader's environment (nbgrader autograde) keeps the full package.

``--answers`` writes the copy a graded answer runs over (``delivery/grade_submissions.py``): the lesson functions an
exercise declares as computing its answer (``exercise(..., computed_by=...)``, e.g. lesson 07's
``pitfalls.in_optimiser``) also lose their code there. The students' own environment keeps them: the lessons'
cells call them.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import shutil
import sys
from pathlib import Path

from tools.course import LESSONS

ROOT = Path(__file__).resolve().parents[1]
STUB = '''"""Withheld: this is a graded lab, and the reference solutions are not installed here."""

from lmtie_edu.kit.grading import withheld_module_getattr

WITHHELD = True
__getattr__ = withheld_module_getattr(__name__)
'''


WITHHELD_BODY = ('from lmtie_edu.kit.grading import SolutionWithheld\n'
                 'raise SolutionWithheld("{name} computes an exercise\'s answer: a graded answer cannot call it")')


def answer_helpers() -> list[str]:
    """The dotted names of the lesson functions that compute an exercise's answer (their ``computed_by``)."""
    from lmtie_edu.kit.exercises import REGISTRY

    for lesson in LESSONS:
        importlib.import_module(f"{lesson.package}.exercises")
    return sorted({name for check in REGISTRY.values() for name in check.computed_by})


def withhold_function(package: Path, dotted: str) -> None:
    """Replace the body of the top-level function ``dotted`` (lmtie_edu.module.function) in the copy by a raise."""
    module, _, function = dotted.rpartition(".")
    path = package.parent / (module.replace(".", "/") + ".py")
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    node = next((n for n in ast.parse("".join(lines)).body if isinstance(n, ast.FunctionDef) and n.name == function),
                None)
    if node is None:
        raise SystemExit(f"computed_by names {dotted}, which {path} does not define")
    indent = " " * node.body[0].col_offset
    body = "".join(f"{indent}{line}\n" for line in WITHHELD_BODY.format(name=function).splitlines())
    # keep the signature and the docstring; the rest of the body goes
    start = node.body[0].end_lineno if ast.get_docstring(node) is not None else node.body[0].lineno - 1
    lines[start:node.end_lineno] = [body]
    path.write_text("".join(lines), encoding="utf-8")


def write(target: Path, *, answers: bool = False) -> list[Path]:
    """Copy lmtie_edu/ into ``target`` with its solutions withheld (with ``answers``, also the functions that
    compute an answer); return the stubbed files."""
    package = target / "lmtie_edu"
    in_place = target.resolve() == ROOT  # e.g. the hub image's build, which installs from this checkout
    if not in_place:
        shutil.rmtree(package, ignore_errors=True)
        shutil.copytree(ROOT / "lmtie_edu", package, ignore=shutil.ignore_patterns("__pycache__"))
    stubbed = [package / f"lesson{lesson.number}" / "solutions.py" for lesson in LESSONS]
    for path in stubbed:
        path.write_text(STUB, encoding="utf-8")
    if answers:
        if in_place:
            raise SystemExit("--answers writes a copy for grading, not the checkout itself")
        for dotted in answer_helpers():
            withhold_function(package, dotted)
    # The solutions' comments and docstrings, translated for the worked answers, are the solutions in prose.
    for catalogue in package.glob("locale/*/LC_MESSAGES/lmtie_edu_worked_answers.mo"):
        catalogue.unlink()
    # Bytecode compiled before the stubbing (a build context's __pycache__) holds the real solutions.
    for cache in sorted(package.rglob("__pycache__"), reverse=True):
        shutil.rmtree(cache)
    for compiled in package.rglob("*.py[co]"):
        compiled.unlink()
    (package / "GRADED").write_text("solutions withheld by delivery/graded_package.py\n", encoding="utf-8")
    for name in ("pyproject.toml", "README.md", "LICENSE"):  # so that `pip install DIR` works
        if not in_place:
            shutil.copy(ROOT / name, target / name)
    return stubbed


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("target", type=Path)
    parser.add_argument("--answers", action="store_true", help="also withhold the functions that compute an answer")
    args = parser.parse_args(argv)
    stubbed = write(args.target, answers=args.answers)
    print(f"graded copy in {args.target / 'lmtie_edu'}: {len(stubbed)} solutions modules withheld")
    return 0


if __name__ == "__main__":
    sys.exit(main())
