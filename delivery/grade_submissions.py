"""Marks a student's kernel cannot reach: grade nbgrader submissions with the answers run in a process apart.

    python -m delivery.grade_submissions lesson01 [--course DIR] [--runner-user USER]

``nbgrader autograde`` runs a submission in one kernel, the student's cells before the locked ones, so a cell
can patch whatever the locked cells call. This step comes after it and decides the marks itself. For each
notebook in ``submitted/<student>/<assignment>/``:

- only the answer cells (nbgrader's solution cells) are taken from the submission; they run in an
  :class:`~lmtie_edu.kit.answer_process.AnswerProcess` over a graded copy of the package (no reference
  solutions, nor the lesson functions that compute an answer: ``delivery.graded_package --answers``), with the imports of the instructor's source notebook before them;
- which checks a cell is worth is read from the locked cells of the *source* notebook, not the submission;
- each check runs here, in this process, with the reference solutions, on the data the answer process sends
  back: nothing the student wrote runs in this process;
- each autograded cell's score is written into nbgrader's gradebook as its manual score (which nbgrader's
  totals, ``generate_feedback`` and ``export`` take over the autograder's), and each check's feedback as the
  comment on the exercise's solution cell.

Run it with the python that has nbgrader and the full package, in the course directory, after ``autograde``
and before ``generate_feedback``. It prints one line per student and cell, and exits 1 if a notebook could not
be graded.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import importlib
import io
import re
import sys
import tempfile
import warnings
from dataclasses import dataclass
from pathlib import Path

import nbformat

from delivery.graded_package import write as write_graded_copy
from lmtie_edu.kit.answer_process import AnswerProcess, RunnerUnavailable

GRADE_CALL = re.compile(r'grade\("(lesson\d\d)", "(\w+)", \w+\)')


@dataclass
class CellMark:
    grade_id: str
    points: float
    score: float
    feedback: dict[str, str]  # exercise name -> what its check printed


def _nbgrader(cell) -> dict:
    return cell.metadata.get("nbgrader", {}) if cell.cell_type == "code" else {}


def preamble(source) -> str:
    """The imports of the instructor's notebook (its own cells, not the student's): what the answers may use."""
    lines = []
    for cell in source.cells:
        if cell.cell_type == "code" and not _nbgrader(cell).get("solution"):
            try:
                tree = ast.parse(cell.source)
            except SyntaxError:
                continue
            lines += [ast.unparse(node) for node in tree.body if isinstance(node, ast.Import | ast.ImportFrom)]
    return "\n".join(dict.fromkeys(lines))


def graded_cells(source) -> list[tuple[str, float, list[tuple[str, str]]]]:
    """(grade id, points, [(lesson, exercise)]) of each locked, autograded cell of the source notebook."""
    found = []
    for cell in source.cells:
        meta = _nbgrader(cell)
        if meta.get("grade") and not meta.get("solution"):
            found.append((meta["grade_id"], float(meta.get("points", 0)), GRADE_CALL.findall(cell.source)))
    return found


def answer_cells(submitted, solution_ids: set[str]) -> list[str]:
    """The source of the submission's solution cells, those the source notebook declares."""
    return [cell.source for cell in submitted.cells
            if _nbgrader(cell).get("solution") and _nbgrader(cell).get("grade_id") in solution_ids]


def grade_notebook(source, submitted, package: Path, *, user: str | None = None, limit: float = 30) -> list[CellMark]:
    """The marks of one submitted notebook (see the module docstring); ``limit``: seconds for the answer cells to
    run, and for each call of an answer."""
    solution_ids = {_nbgrader(cell)["grade_id"] for cell in source.cells if _nbgrader(cell).get("solution")}
    cells = graded_cells(source)
    names = [name for _, _, checks in cells for _, name in checks]
    process = AnswerProcess(answer_cells(submitted, solution_ids), preamble(source), names, package=package,
                            user=user, limit=limit)
    try:
        marks, broken = [], None
        for grade_id, points, checks in cells:
            feedback, passed = {}, bool(checks)
            for lesson, name in checks:
                try:
                    if broken:
                        raise broken
                    answer = process.function(name)  # starts the process (again, after a call that ended it)
                except RunnerUnavailable:
                    raise  # not the student's doing: no marks are written
                except Exception as error:  # noqa: BLE001 — the student's cells hung (AnswerTimeout) or ended it
                    broken = error
                    feedback[name], ok = f"❌ {name}: your answer cells could not be run: {error}", False
                else:
                    check = getattr(importlib.import_module(f"lmtie_edu.{lesson}.exercises"), name)
                    printed = io.StringIO()
                    with contextlib.redirect_stdout(printed):
                        ok = bool(check(answer))
                    feedback[name] = printed.getvalue().strip()
                passed = passed and ok
            marks.append(CellMark(grade_id, points, points if passed else 0.0, feedback))
        return marks
    finally:
        process.close()


def record(gradebook, marks: list[CellMark], notebook: str, assignment: str, student: str) -> None:
    """Write the marks into nbgrader's gradebook: manual scores, and the checks' feedback as comments (a
    submission ``autograde`` has not seen is added first)."""
    from nbgrader.api import MissingEntry

    try:
        gradebook.find_submission(assignment, student)
    except MissingEntry:
        with warnings.catch_warnings():  # nbgrader 0.9.6's add_submission trips SQLAlchemy's autoflush warnings
            warnings.filterwarnings("ignore", message="Object of type .* not in session")
            gradebook.add_submission(assignment, student)
    for mark in marks:
        grade = gradebook.find_grade(mark.grade_id, notebook, assignment, student)
        grade.manual_score, grade.needs_manual_grade = mark.score, False
        for name, text in mark.feedback.items():
            with contextlib.suppress(Exception):  # no solution cell of that name: the score alone is recorded
                gradebook.find_comment(name, notebook, assignment, student).manual_comment = text
    gradebook.db.commit()


def grade_assignment(course: Path, assignment: str, *, user: str | None = None) -> int:
    """Grade every submission of ``assignment`` in the nbgrader course ``course``; 1 if one could not be."""
    from nbgrader.api import Gradebook

    failures = 0
    with tempfile.TemporaryDirectory(prefix="lmtie-graded-") as scratch, \
            Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        write_graded_copy(Path(scratch), answers=True)
        Path(scratch).chmod(0o755)
        for path in sorted(course.glob(f"submitted/*/{assignment}/*.ipynb")):
            student = path.parent.parent.name
            source_path = course / "source" / assignment / path.name
            try:
                marks = grade_notebook(nbformat.read(source_path, as_version=4), nbformat.read(path, as_version=4),
                                       Path(scratch), user=user)
                record(gradebook, marks, path.stem, assignment, student)
            except Exception as error:  # noqa: BLE001 — one unreadable notebook must not stop the class's grading
                failures += 1
                print(f"FAIL {student} {path.name}: {type(error).__name__}: {error}")
                continue
            cells = ", ".join(f"{mark.grade_id} {mark.score:g}/{mark.points:g}" for mark in marks)
            print(f"{student} {assignment}/{path.name}: {sum(m.score for m in marks):g} / "
                  f"{sum(m.points for m in marks):g} ({cells})")
    return 1 if failures else 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("assignment")
    parser.add_argument("--course", type=Path, default=Path.cwd(), help="the nbgrader course directory")
    parser.add_argument("--runner-user", default=None,
                        help="run the answers as this user (needs root): one who cannot read the full package, but "
                             "can run this Python (a Python under /root cannot be run by another user)")
    args = parser.parse_args(argv)
    return grade_assignment(args.course.resolve(), args.assignment, user=args.runner_user)


if __name__ == "__main__":
    sys.exit(main())
