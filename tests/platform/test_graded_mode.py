"""A graded lab does not leak its solutions and cannot be fooled from the student's cells.

- In a graded copy of the package (delivery/graded_package.py), a student's kernel gets every hint tier of every
  exercise without a worked answer, cannot import or print a reference solution, and a correct answer is
  told it is checked when submitted.
- ``LMTIE_GRADED=1`` withholds the worked answer where the solutions are installed.
- The autograded cells' :func:`lmtie_edu.kit.autograde.grade` scores 0, loudly, when the student's cells replaced
  a checker (the one-line override) or a function the checks rely on.
"""

import importlib
import inspect
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from delivery import graded_package
from lmtie_edu.kit import autograde, feedback
from lmtie_edu.kit.exercises import REGISTRY
from tools.course import LESSONS as COURSE

REPO = Path(__file__).resolve().parents[2]
LESSONS = [f"lesson{lesson.number}" for lesson in COURSE]
for _lesson in LESSONS:
    importlib.import_module(f"lmtie_edu.{_lesson}.exercises")

STUDENT = """
import importlib, inspect, io, json, sys, contextlib
import lmtie_edu
lessons, real_solutions = json.loads(sys.argv[1]), json.loads(sys.argv[2])
report = {"package": lmtie_edu.__file__, "hints": {}, "checks": {}, "solutions": {}}
registry = importlib.import_module("lmtie_edu.kit.exercises").REGISTRY
for lesson in lessons:
    ex = importlib.import_module(f"lmtie_edu.{lesson}.exercises")
    solutions = importlib.import_module(f"lmtie_edu.{lesson}.solutions")
    report["solutions"][lesson] = inspect.getsource(solutions)
    written = {}
    exec(real_solutions[lesson], written)  # what a student who solved every exercise has typed in
    for name in [n for n, c in registry.items() if c.solution.__module__ == solutions.__name__]:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            for _ in range(len(registry[name].hints) + 2):
                ex.hint(name)
        report["hints"][name] = out.getvalue()
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            getattr(ex, name)(written[name])
        report["checks"][name] = out.getvalue()
print(json.dumps(report))
"""


@pytest.fixture(scope="module")
def student_report(tmp_path_factory):
    target = tmp_path_factory.mktemp("graded")
    graded_package.write(target)
    real = {lesson: (REPO / "lmtie_edu" / lesson / "solutions.py").read_text(encoding="utf-8") for lesson in LESSONS}
    env = dict(os.environ, PYTHONPATH=str(target))
    done = subprocess.run([sys.executable, "-c", STUDENT, json.dumps(LESSONS), json.dumps(real)],
                          capture_output=True, text=True, env=env, cwd=target, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return target, json.loads(done.stdout.splitlines()[-1])


def test_the_student_kernel_runs_the_graded_copy(student_report):
    target, report = student_report
    assert Path(report["package"]).resolve().is_relative_to(target.resolve())
    assert sorted(report["hints"]) == sorted(REGISTRY)


def test_no_hint_tier_shows_a_solution(student_report):
    _, report = student_report
    for name, shown in report["hints"].items():
        body = inspect.getsource(REGISTRY[name].solution).splitlines()[1:]  # the solution's code, not its name
        leaked = [line for line in body if line.strip() and len(line.strip()) > 12 and line.strip() in shown]
        assert not leaked, f"{name}: a hint tier shows the solution: {leaked[:2]}"
        assert "worked answer is not shown" in shown, shown


def test_solutions_cannot_be_imported_or_printed(student_report):
    _, report = student_report
    for lesson, source in report["solutions"].items():
        assert "def " not in source and "WITHHELD = True" in source, f"{lesson}: {source[:200]}"


def test_a_correct_answer_is_told_it_is_graded_when_submitted(student_report):
    """A check that needs the reference says so; one that checks properties alone still gives its verdict."""
    _, report = student_report
    for name, printed in report["checks"].items():
        assert printed.startswith((f"⏳ {name}: this is a graded lab", f"✅ {name}: correct")), printed
    assert sum(p.startswith("⏳") for p in report["checks"].values()) >= len(report["checks"]) - 3


def test_graded_environment_variable_withholds_the_worked_answer(monkeypatch, capsys):
    monkeypatch.setenv("LMTIE_GRADED", "1")
    from lmtie_edu.kit.exercises import HINTS_SHOWN, hint

    name = "bag_of_tokens"
    HINTS_SHOWN.pop(name, None)
    for _ in range(len(REGISTRY[name].hints) + 1):
        hint(name)
    HINTS_SHOWN.pop(name, None)
    out = capsys.readouterr().out
    assert "worked answer is not shown" in out and "def bag_of_tokens" not in out


def test_grade_passes_the_solution_and_fails_a_stub(capsys):
    assert autograde.grade("lesson01", "bag_of_tokens", REGISTRY["bag_of_tokens"].solution)

    def stub(W, ids):
        raise NotImplementedError

    assert not autograde.grade("lesson01", "bag_of_tokens", stub)


def test_the_one_line_override_scores_zero(monkeypatch, capsys):
    import lmtie_edu.lesson01.exercises as checks

    def stub(W, ids):
        raise NotImplementedError

    monkeypatch.setattr(checks, "bag_of_tokens", lambda f: True)  # what a student's cell can do
    monkeypatch.setattr(checks.bag_of_tokens, "__module__", "__main__")  # as a lambda typed in a notebook is
    assert autograde.grade("lesson01", "bag_of_tokens", stub) is False
    assert "not graded — the grading code was changed" in capsys.readouterr().out


def test_a_patched_helper_of_the_checks_scores_zero(monkeypatch, capsys):
    def lenient(*args, **kwargs):
        return None

    lenient.__module__ = "__main__"
    monkeypatch.setattr(feedback, "expect_close", lenient)
    assert autograde.grade("lesson01", "bag_of_tokens", REGISTRY["bag_of_tokens"].solution) is False
    assert "lmtie_edu.kit.feedback.expect_close was replaced" in capsys.readouterr().out


def test_an_untouched_kernel_shows_no_tampering():
    assert autograde.tampering() == []
