"""The grading step over submitted notebooks (delivery/grade_submissions.py), without nbgrader: what it takes from a
submission, what from the instructor's source, and the marks it gives. ``make test-nbgrader`` runs it with
nbgrader itself (delivery/graded_labs.py for every lesson, delivery/graded_term.py through a term)."""

import contextlib
import copy
import io
from pathlib import Path

import nbformat
import pytest

from delivery import graded_labs, graded_package
from delivery.grade_submissions import answer_cells, grade_notebook, preamble
from lmtie_edu.kit.answer_process import AnswerProcess

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def lesson01(tmp_path_factory):
    root = tmp_path_factory.mktemp("grading")
    graded_package.write(root / "graded", answers=True)
    lesson = sorted((REPO / "notebooks").glob("01_*.ipynb"))[0]
    graded_labs.build(root / "course", [lesson])
    source = nbformat.read(root / "course" / "source" / "lesson01" / lesson.name, as_version=4)
    return source, root / "graded"


def _answer(nb, name: str):
    return next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == name
                and c.metadata["nbgrader"]["solution"])


def test_the_solutions_score_full_marks(lesson01):
    source, graded = lesson01
    marks = grade_notebook(source, source, graded)
    assert [(m.score, m.points) for m in marks] == [(1.0, 1.0)] * 3
    assert all(text.startswith("✅") for m in marks for text in m.feedback.values())


def test_only_the_answer_cells_of_the_submission_run(lesson01):
    source, graded = lesson01
    submitted = copy.deepcopy(source)
    # a cell of the student's that is not an answer cell: in nbgrader's kernel it makes every check pass
    cheat = nbformat.v4.new_code_cell("import lmtie_edu.kit.exercises as e\ne.Verdict.__bool__ = lambda self: True\n"
                                      "def bag_of_tokens(W, ids):\n    return W[:ids.shape[0]]")
    cheat.metadata["nbgrader"] = {"solution": True, "grade_id": "not_an_exercise_of_the_source"}
    submitted.cells.insert(0, cheat)
    _answer(submitted, "bag_of_tokens").source = "def bag_of_tokens(W, ids):\n    return W[:ids.shape[0]]"
    assert cheat.source not in answer_cells(submitted, {"bag_of_tokens", "sgd_step_on_lookup", "rows_reached"})
    marks = {m.grade_id: m for m in grade_notebook(source, submitted, graded)}
    assert marks["check_bag_of_tokens"].score == 0.0
    assert marks["check_bag_of_tokens"].feedback["bag_of_tokens"].startswith("❌ bag_of_tokens")
    assert marks["check_rows_reached"].score == 1.0


def test_answer_cells_that_never_finish_score_zero_with_a_reason(lesson01):
    source, graded = lesson01
    submitted = copy.deepcopy(source)
    _answer(submitted, "rows_reached").source = "while True:\n    pass"
    marks = grade_notebook(source, submitted, graded, limit=2)
    assert [m.score for m in marks] == [0.0] * 3
    assert all("your answer cells could not be run" in text for m in marks for text in m.feedback.values())


def test_the_preamble_is_the_instructors_imports_only(lesson01):
    source, _ = lesson01
    text = preamble(source)
    assert "import torch" in text and "from lmtie_edu.lesson01 import exercises as ex" in text
    assert "def " not in text and "setup_lesson(" not in text


CALLS_THE_LESSONS_OWN_ANSWER = """
from lmtie_edu.lesson07 import pitfalls

def not_in_optimiser(model, optimiser):
    helper = getattr(pitfalls, "in_" + "optimiser")  # past the check that reads the answer's code
    return sorted(name for name, p in model.named_parameters() if not helper(p, optimiser))
"""


def test_an_answer_that_calls_the_lessons_own_answer_gets_nothing_from_it(lesson01):
    _, graded = lesson01
    from lmtie_edu.lesson07 import exercises as ex

    written = {}
    exec(CALLS_THE_LESSONS_OWN_ANSWER, written)  # noqa: S102 — the student's cell, in a kernel
    assert ex.not_in_optimiser(written["not_in_optimiser"])  # the full package computes it for them
    process = AnswerProcess([CALLS_THE_LESSONS_OWN_ANSWER], "", ["not_in_optimiser"], package=graded)
    printed = io.StringIO()
    try:
        with contextlib.redirect_stdout(printed):
            assert not ex.not_in_optimiser(process.function("not_in_optimiser"))
    finally:
        process.close()
    assert "SolutionWithheld: in_optimiser computes an exercise's answer" in printed.getvalue()


def test_every_function_an_exercise_names_as_computing_its_answer_is_withheld(lesson01):
    _, graded = lesson01
    helpers = graded_package.answer_helpers()
    assert len(helpers) >= 3
    for dotted in helpers:
        module, _, function = dotted.rpartition(".")
        text = (graded / (module.replace(".", "/") + ".py")).read_text(encoding="utf-8")
        assert f'raise SolutionWithheld("{function} computes' in text, dotted


def test_an_answer_process_that_cannot_start_stops_the_grading_instead_of_giving_zeros(lesson01):
    from lmtie_edu.kit.answer_process import RunnerUnavailable

    source, graded = lesson01
    with pytest.raises(RunnerUnavailable, match="as user 'no-such-user-lmtie'"):
        grade_notebook(source, source, graded, user="no-such-user-lmtie")
