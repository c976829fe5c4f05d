"""A graded lab from release to grade export, with nbgrader itself: ``python -m delivery.graded_term``.

What ``python -m delivery.graded_labs check`` does not: the path a lab takes through a term. For lesson 01, in a
scratch folder (default ``build/nbgrader-term``):

1. the instructor builds the course, imports the four students (``db student import``),
   ``generate_assignment`` and ``release_assignment`` into a local exchange (nbgrader's own file-system
   exchange, as on a JupyterHub);
2. three students on the hub, each in a home of their own, ``fetch_assignment`` it; alice solves it (the
   reference solutions), bob hands it in untouched, mallory hands in wrong answers with the one-line attacks on
   the grading code (:data:`ATTACKS`) in her answer cells; all ``submit``;
3. a third student, carol, hands in through a learning-management system: her solved notebook arrives in the
   zip file an LMS download gives (``downloaded/lesson01/archive/``), and ``zip_collect`` files it by name;
4. the instructor ``collect``\\ s the exchange, ``autograde``\\ s (mallory's attacks fool the autograder: it
   gives her full marks), runs the grading step that runs the answers in a process apart
   (``delivery.grade_submissions``: mallory 0), ``generate_feedback``\\ s, ``release_feedback``\\ s to the exchange
   students, and ``export``\\ s the grades (``grades.csv``);
5. alice ``fetch_feedback``\\ es, and reads her own score.

Every step is checked; the exit status is 1 when one is wrong. Run it with the python that has nbgrader
(``make test-nbgrader`` makes ``build/nbgrader-venv`` and runs it beside the per-lesson check).
"""

from __future__ import annotations

import argparse
import csv
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import nbformat

from delivery.grade_submissions import grade_assignment
from delivery.graded_labs import ROOT, build, lessons, nbgrader

COURSE_ID = "lmtie_edu"
ASSIGNMENT = "lesson01"
LMS_FILE_NAME = re.compile(r".*/(?P<student_id>[a-z]+)__(?P<file_id>[0-9]{2}_\w+\.ipynb)")  # carol__01_….ipynb


# mallory's answer cells: wrong answers, and in them every one-line attack on the grading code that a student's
# kernel allows (each works on nbgrader's autograder, which runs her cells before the locked ones)
ATTACKS = {
    "bag_of_tokens": """def bag_of_tokens(W, ids):
    return torch.zeros(ids.shape[0], W.shape[1], dtype=W.dtype)

import sys, types
import lmtie_edu.kit.exercises, lmtie_edu.kit.feedback as fb
lmtie_edu.kit.exercises.Verdict.__bool__ = lambda self: True
fb._close.__code__ = (lambda a, b, atol: True).__code__.replace(co_filename=fb.__file__)
torch.allclose = lambda *args, **kwargs: True
fake = types.ModuleType("lmtie_edu.kit.autograde")
fake.grade = lambda *args: True
sys.modules["lmtie_edu.kit.autograde"] = fake""",
    "sgd_step_on_lookup": "def sgd_step_on_lookup(W, ids, lr):\n    return W",
    "rows_reached": "from lmtie_edu.lesson01.solutions import rows_reached  # the graded copy has none",
}


def with_attacks(path: Path) -> None:
    """mallory's notebook: :data:`ATTACKS` in place of her answer cells."""
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        name = cell.metadata.get("nbgrader", {}).get("grade_id")
        if cell.metadata.get("nbgrader", {}).get("solution") and name in ATTACKS:
            cell.source = ATTACKS[name]
    nbformat.write(nb, path)


def hub_student(home: Path, exchange: Path, student: str, *args: str) -> str:
    """An nbgrader command as a hub student runs it, in a home of their own (nbgrader keeps each submission's
    secret in the student's home, and finds their feedback by it). On a hub the OS user is ``jovyan`` and
    nbgrader takes the student's name from ``JUPYTERHUB_USER``; here every command runs as this machine's one
    user, so ``--student`` gives nbgrader the same name."""
    env = {**os.environ, "HOME": str(home), "JUPYTERHUB_USER": student}
    command = [str(Path(sys.executable).parent / "nbgrader"), *args, "--course", COURSE_ID,
               f"--Exchange.root={exchange}", f"--student={student}"]
    run = subprocess.run(command, cwd=home, env=env, capture_output=True, text=True)
    if run.returncode:
        raise RuntimeError(f"{student}: {' '.join(args)} failed:\n{run.stdout[-2000:]}\n{run.stderr[-2000:]}")
    return run.stdout + run.stderr


def term(workdir: Path) -> list[str]:
    """Run the lab through the term; the problems found (empty: every step did what it should)."""
    shutil.rmtree(workdir, ignore_errors=True)
    course, exchange, lesson = workdir / "course", workdir / "exchange", lessons()[0]
    exchange.mkdir(parents=True)
    build(course, [lesson])
    with open(course / "nbgrader_config.py", "a", encoding="utf-8") as config:
        config.write(f"c.Exchange.root = {str(exchange)!r}\n"
                     f"c.FileNameCollectorPlugin.named_regexp = {LMS_FILE_NAME.pattern!r}\n")
    (course / "students.csv").write_text("id\nalice\nbob\ncarol\nmallory\n")
    nbgrader(course, "db", "student", "import", "students.csv")
    nbgrader(course, "generate_assignment", ASSIGNMENT, "--force")
    nbgrader(course, "release_assignment", ASSIGNMENT)
    solved = course / "source" / ASSIGNMENT / lesson.name  # the source notebook holds the reference solutions
    for student in ("alice", "bob", "mallory"):
        home = workdir / "home" / student
        home.mkdir(parents=True)
        hub_student(home, exchange, student, "fetch_assignment", ASSIGNMENT)
        if student == "alice":
            shutil.copy(solved, home / ASSIGNMENT / lesson.name)
        if student == "mallory":
            with_attacks(home / ASSIGNMENT / lesson.name)
        hub_student(home, exchange, student, "submit", ASSIGNMENT)
    nbgrader(course, "collect", ASSIGNMENT)
    archive = course / "downloaded" / ASSIGNMENT / "archive"
    archive.mkdir(parents=True)
    with zipfile.ZipFile(archive / "lms-download.zip", "w") as download:
        download.write(solved, f"carol__{lesson.name}")
    nbgrader(course, "zip_collect", ASSIGNMENT)
    nbgrader(course, "autograde", ASSIGNMENT, "--force")
    fooled = autograded(course, "mallory")
    if grade_assignment(course, ASSIGNMENT):
        raise RuntimeError("delivery.grade_submissions could not grade a submission")
    nbgrader(course, "generate_feedback", ASSIGNMENT)
    # carol's feedback goes back through the LMS (feedback/carol/…html), the others' through the exchange
    nbgrader(course, "release_feedback", ASSIGNMENT, "--CourseDirectory.student_id_exclude=carol")
    nbgrader(course, "export")
    hub_student(workdir / "home" / "alice", exchange, "alice", "fetch_feedback", ASSIGNMENT)
    print(f"     the autograder alone gave mallory {fooled:g} (her attacks on the grading code in her kernel)")
    return problems(workdir, lesson.name)


def autograded(course: Path, student: str) -> float:
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        return gradebook.find_submission(ASSIGNMENT, student).score


def problems(workdir: Path, notebook: str) -> list[str]:
    course, found = workdir / "course", []
    with open(course / "grades.csv", encoding="utf-8") as table:
        rows = {row["student_id"]: row for row in csv.DictReader(table)}
    full = float(rows["alice"]["max_score"]) if "alice" in rows else 0.0
    expected = {"alice": full, "bob": 0.0, "carol": full, "mallory": 0.0}
    for student, score in expected.items():
        got = float(rows[student]["score"]) if student in rows else None
        if full <= 0 or got != score:
            found.append(f"grades.csv: {student} has {got}, expected {score:g} of {full:g}")
    for student in expected:
        if not (course / "feedback" / student / ASSIGNMENT / notebook.replace(".ipynb", ".html")).is_file():
            found.append(f"no feedback written for {student}")
    mallory = course / "feedback" / "mallory" / ASSIGNMENT / notebook.replace(".ipynb", ".html")
    if mallory.is_file() and "your code raised SolutionWithheld" not in mallory.read_text(encoding="utf-8"):
        found.append("mallory's feedback does not show the grading step's verdict (its comment on her answer)")
    fetched = list((workdir / "home" / "alice" / ASSIGNMENT / "feedback").glob("*/*.html"))
    if len(fetched) != 1:
        found.append(f"alice fetched {len(fetched)} feedback files, expected 1")
    elif f"Score: {full:.1f} / {full:.1f}" not in fetched[0].read_text(encoding="utf-8"):
        found.append("the feedback alice fetched does not show her full score (someone else's?)")
    return found


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workdir", type=Path, default=ROOT / "build" / "nbgrader-term")
    args = parser.parse_args(argv)
    # nbgrader runs `alembic` by name, and its feedback needs nbconvert's templates: both from this venv and,
    # for a venv layered over the course's .venv (make test-nbgrader), from the one beneath it.
    os.environ["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    shares = [str(Path(path).parent.parent.parent / "share" / "jupyter") for path in sys.path
              if path.endswith("site-packages")]
    os.environ["JUPYTER_PATH"] = os.pathsep.join(filter(None, [*shares, os.environ.get("JUPYTER_PATH", "")]))
    found = term(args.workdir.resolve())
    for problem in found:
        print("PROBLEM:", problem)
    print(f"{'FAIL' if found else 'ok  '} lesson01 through a term: release, fetch, submit, collect, zip_collect, "
          f"autograde, grade_submissions, generate_feedback, release_feedback, export, fetch_feedback")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
