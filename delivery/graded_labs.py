"""Graded labs for nbgrader: one source notebook per lesson, autograded by the lesson's own checks.

``python -m delivery.graded_labs build [DIR]`` writes an nbgrader course (default ``build/nbgrader``):
``source/lessonNN/NN_topic.ipynb`` for each lesson, where

- each exercise cell keeps the stub's signature and comments, and holds the reference solution (from
  ``lmtie_edu.solutions``) between ``### BEGIN SOLUTION`` / ``### END SOLUTION`` (an nbgrader solution cell);
- each check cell becomes a locked, autograded test cell worth 1 point:
  ``assert grade("lessonNN", "name", name)`` — the very checker the learner runs, taken from the package (not
  from the kernel's ``ex``), scoring 0 when a module of the package was patched from the student's cells;
- everything else is the lesson as committed (nbgrader clears the outputs when it releases the assignment).

``python -m delivery.graded_labs check`` validates the course with nbgrader itself, one course per lesson:
the students are added and the assignment generated through nbgrader's Python API (what its formgrader calls;
one process instead of nbgrader's 4 s of imports per command), then the submissions — the source notebook with
the solutions, the released notebook untouched, and (lesson 01) the released notebook with one line that replaces
the first exercise's checker by ``lambda f: True`` — ``nbgrader autograde`` of lesson 01's three submissions (its
command line, in a process of its own while the other lessons are graded), then the grading step that runs the
answers in a process apart (``delivery.grade_submissions``) over every submission of every lesson. Every lesson
must give full marks to the solutions and zero to the others, after the grading step and, for lesson 01, from the
autograder too. Autograde runs one lesson: its locked cells are the same generated line in every lesson, and
running another lesson's whole notebook again would check what the lesson suite's run of the solved lessons
already does (the cell timeout, 300 s, is far above any lesson's longest cell). Run it with the python that has
nbgrader (``make test-nbgrader`` makes ``build/nbgrader-venv``).
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import io
import os
import re
import shutil
import subprocess
import sys
import textwrap
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat

from delivery.grade_submissions import grade_assignment
from tools.course import notebooks
from tools.make_solutions import STUB_NAME, solution_source, stored_verdicts

ROOT = Path(__file__).resolve().parent.parent
CHECK_CALL = re.compile(r"^ex\.(\w+)\((.*)\)\s*$", re.MULTILINE)
CONFIG = """c = get_config()
c.CourseDirectory.course_id = "lmtie_edu"
c.ExecutePreprocessor.timeout = 300   # the training lessons have cells of several seconds
c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\\nraise NotImplementedError()"}
"""


def lessons() -> list[Path]:
    return notebooks()


def solution_cell_source(stub_source: str, lesson: str) -> tuple[str, str]:
    """The stub's text up to its body, then the solution's body inside the solution markers."""
    match = STUB_NAME.search(stub_source)
    name = match.group(1)
    solution = ast.parse(solution_source(lesson, name)).body[0]
    lines = solution_source(lesson, name).splitlines()
    body = solution.body[1:] if ast.get_docstring(solution) else solution.body
    body_text = textwrap.dedent("\n".join(lines[body[0].lineno - 1:]))
    stub_lines = stub_source[match.start():].splitlines()
    header = [line for line in stub_lines if not line.strip().startswith("raise NotImplementedError")]
    marked = ["    ### BEGIN SOLUTION", textwrap.indent(body_text, "    "), "    ### END SOLUTION"]
    return name, stub_source[:match.start()] + "\n".join(header + marked)


def nbgrader_cell(cell, grade_id: str, *, solution: bool, points: int = 0) -> None:
    cell.metadata["nbgrader"] = {"grade": not solution, "grade_id": grade_id, "locked": not solution,
                                 "solution": solution, "schema_version": 3, **({"points": points} if points else {})}


def source_notebook(path: Path):
    """The nbgrader source version of one lesson (see module docstring)."""
    lesson = path.name[:2]
    nb = nbformat.read(path, as_version=4)
    solutions, checks = set(), set()
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        if "exercise" in cell.metadata.get("tags", []):
            name, cell.source = solution_cell_source(cell.source, lesson)
            nbgrader_cell(cell, name, solution=True)
            solutions.add(name)
        elif stored_verdicts(cell):
            calls = CHECK_CALL.findall(cell.source)
            if not calls:
                raise SystemExit(f"lesson {lesson}: a check cell has no `ex.name(...)` line:\n{cell.source}")
            # the locked cell takes its checker from the package, not from the `ex` the student's cells could
            # rebind, and scores 0 when the package was patched in the kernel (lmtie_edu.kit.autograde.grade)
            cell.source = "from lmtie_edu.kit.autograde import grade\n\n" + CHECK_CALL.sub(
                lambda m: f"assert grade(\"lesson{lesson}\", \"{m.group(1)}\", {m.group(2)}), "
                          f"\"the check of {m.group(1)} did not pass\"", cell.source)
            for name, _ in calls:
                checks.add(name)
            nbgrader_cell(cell, f"check_{'_'.join(n for n, _ in calls)}", solution=False, points=len(calls))
        cell.outputs, cell.execution_count = [], None
    if solutions != checks:
        raise SystemExit(f"lesson {lesson}: exercises {sorted(solutions)} but checks {sorted(checks)}")
    nb.metadata.pop("widgets", None)
    return nb, len(checks)


def build(course: Path, only: list[Path] | None = None) -> dict[str, int]:
    """Write the course directory: nbgrader_config.py and source/lessonNN/NN_topic.ipynb."""
    points = {}
    course.mkdir(parents=True, exist_ok=True)
    (course / "nbgrader_config.py").write_text(CONFIG)
    for path in only or lessons():
        nb, n = source_notebook(path)
        target = course / "source" / f"lesson{path.name[:2]}" / path.name
        target.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, target)
        points[path.name] = n
    return points


def nbgrader(course: Path, *args: str) -> None:
    command = [str(Path(sys.executable).parent / "nbgrader"), *args]
    run = subprocess.run(command, cwd=course, capture_output=True, text=True)
    if run.returncode:
        raise RuntimeError(f"{' '.join(command[1:])} failed in {course}:\n{run.stdout[-3000:]}\n{run.stderr[-3000:]}")


def nbgrader_api(course: Path):
    """nbgrader's own Python API (the one its formgrader calls) on the course, with the course's config file:
    the same apps as its command line, without a process (and nbgrader's 4 s of imports) per call."""
    from nbgrader.apps import NbGraderAPI
    from nbgrader.coursedir import CourseDirectory
    from traitlets.config.loader import PyFileConfigLoader

    config = PyFileConfigLoader("nbgrader_config.py", path=str(course)).load_config()
    config.CourseDirectory.root = str(course)
    return NbGraderAPI(coursedir=CourseDirectory(config=config), config=config)


def succeeded(result: dict, what: str, course: Path) -> None:
    if not result["success"]:
        raise RuntimeError(f"nbgrader {what} failed in {course}:\n{result.get('log', '')[-3000:]}\n"
                           f"{result.get('error', '')[-3000:]}")


def submit_one(path: Path, workdir: Path) -> tuple[Path, str, list[str]]:
    """Build and release one lesson, submit for its students; return (course, assignment, students). The first
    lesson also gets the override submission (nbgrader's autograde of it: :func:`check`)."""
    from nbgrader.api import Gradebook

    course = workdir / path.stem
    shutil.rmtree(course, ignore_errors=True)
    build(course, [path])
    assignment = f"lesson{path.name[:2]}"
    first = path == lessons()[0]
    origins = {"solutions": "source", "untouched": "release", **({"override": "release"} if first else {})}
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        for student in origins:
            gradebook.update_or_create_student(student)
    succeeded(nbgrader_api(course).generate_assignment(assignment, force=True), "generate_assignment", course)
    for student, origin in origins.items():
        target = course / "submitted" / student / assignment
        target.mkdir(parents=True)
        shutil.copy(course / origin / assignment / path.name, target / path.name)
    if first:  # the other lessons' submissions are graded by the grading step alone (see the module's text)
        overridden = course / "submitted" / "override" / assignment / path.name
        nbformat.write(with_override(nbformat.read(overridden, as_version=4), assignment), overridden)
    return course, assignment, list(origins)


def scores(course: Path, assignment: str, students: list[str]) -> tuple[dict[str, float | None], float]:
    """Each student's total in the gradebook (None: not graded yet), and the assignment's maximum."""
    from nbgrader.api import Gradebook, MissingEntry

    totals = {}
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        for student in students:
            try:
                totals[student] = gradebook.find_submission(assignment, student).score
            except MissingEntry:
                totals[student] = None
        return totals, gradebook.find_assignment(assignment).max_score  # its grade cells, from generate_assignment


def with_override(nb, lesson: str):
    """The student's one-line attack: after the first exercise stub, replace its checker by ``lambda f: True``."""
    first = next(i for i, c in enumerate(nb.cells) if c.cell_type == "code" and STUB_NAME.search(c.source)
                 and "NotImplementedError" in c.source)
    name = STUB_NAME.search(nb.cells[first].source).group(1)
    attack = nbformat.v4.new_code_cell(f"import lmtie_edu.{lesson}.exercises\n\n"
                                       f"lmtie_edu.{lesson}.exercises.{name} = ex.{name} = lambda f: True")
    nb.cells.insert(first + 1, attack)
    return nb


def check(workdir: Path) -> int:
    """Release and submit every lesson, autograde lesson 01 with nbgrader's command line in a process of its own
    while the grading step grades the other lessons here, then grade lesson 01; print a line per lesson."""
    # nbgrader runs `alembic` (its database migrations) by name: this venv's bin/ must come first on PATH
    os.environ["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    released = [submit_one(path, workdir) for path in lessons()]
    first_course, first_assignment, _ = released[0]
    with ThreadPoolExecutor(max_workers=1) as pool:  # the thread only waits on nbgrader's process
        autograding = pool.submit(nbgrader, first_course, "autograde", first_assignment, "--force")
        lines = {assignment: graded_line(course, assignment, students) for course, assignment, students in released[1:]}
        autograding.result()
    lines[first_assignment] = graded_line(*released[0])
    for assignment in sorted(lines):
        print(lines[assignment])
    return 1 if any(line.startswith("FAIL") for line in lines.values()) else 0


def graded_line(course: Path, assignment: str, students: list[str]) -> str:
    """Run the grading step on one lesson's submissions; the line that says what each student got."""
    autograded, full = scores(course, assignment, students)
    with contextlib.redirect_stdout(io.StringIO()):  # its marks are read back just below
        failed = grade_assignment(course, assignment)  # in this thread: it runs the lesson's checks
    final, _ = scores(course, assignment, students)
    expected = {student: full if student == "solutions" else 0.0 for student in students}
    autograded_ok = all(autograded[student] in (score, None) for student, score in expected.items())
    ok = full > 0 and not failed and final == expected and autograded_ok
    return (f"{'ok  ' if ok else 'FAIL'} {assignment}: " + ", ".join(
        f"{student} {final[student]:g}/{full:g} (autograde "
        f"{'not run' if autograded[student] is None else format(autograded[student], 'g')})" for student in students)
        + (" — delivery.grade_submissions could not grade a submission" if failed else ""))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    build_cmd = sub.add_parser("build", help="write the nbgrader course (source notebooks)")
    build_cmd.add_argument("course", nargs="?", type=Path, default=ROOT / "build" / "nbgrader")
    check_cmd = sub.add_parser("check", help="autograde solutions and untouched stubs with nbgrader")
    check_cmd.add_argument("--workdir", type=Path, default=ROOT / "build" / "nbgrader-check")
    args = parser.parse_args(argv)
    if args.command == "build":
        for name, n in build(args.course.resolve()).items():
            print(f"{name}: {n} autograded checks")
        print(f"nbgrader course in {args.course}: run `nbgrader generate_assignment lessonNN` there")
        return 0
    return check(args.workdir.resolve())


if __name__ == "__main__":
    sys.exit(main())
