"""delivery/graded_labs.py: the nbgrader source notebooks it writes (nbgrader itself grades them in
`make test-nbgrader`; here, without nbgrader, the structure it relies on)."""

import ast
import re
from pathlib import Path

import nbformat
import pytest

from delivery import graded_labs

REPO = Path(__file__).resolve().parents[2]

LESSONS = graded_labs.lessons()


@pytest.mark.parametrize("path", LESSONS, ids=[p.name for p in LESSONS])
def test_each_exercise_is_a_solution_cell_and_each_check_a_graded_test(tmp_path, path):
    root = tmp_path
    points = graded_labs.build(root, [path])
    nb = nbformat.read(root / "source" / f"lesson{path.name[:2]}" / path.name, as_version=4)
    marked = [c for c in nb.cells if "nbgrader" in c.metadata]
    solutions = [c for c in marked if c.metadata.nbgrader["solution"]]
    tests = [c for c in marked if c.metadata.nbgrader["grade"]]
    assert len(solutions) == len(tests) == points[path.name] >= 2
    ids = [c.metadata.nbgrader["grade_id"] for c in marked]
    assert len(set(ids)) == len(ids), "nbgrader needs unique grade ids"
    for cell in solutions:
        assert not cell.metadata.nbgrader["locked"] and "points" not in cell.metadata.nbgrader
        source = cell.source
        begin, end = source.index("### BEGIN SOLUTION"), source.index("### END SOLUTION")
        assert begin < end and "NotImplementedError" not in source
        # what nbgrader releases: the region replaced by its stub; it must still be valid Python
        released = source[:begin] + "# YOUR CODE HERE\n    raise NotImplementedError()" + source[end + len("### END SOLUTION"):]
        ast.parse(source)
        ast.parse(released)
        assert re.search(r"^def \w+\(", released, re.MULTILINE), "the stub's signature is kept"
    for cell in tests:
        meta = cell.metadata.nbgrader
        assert meta["locked"] and meta["points"] >= 1 and not meta["solution"]
        assert re.search(r"^assert grade\(\"lesson\d\d\", \"\w+\", \w+\), ", cell.source, re.MULTILINE)
        assert "from lmtie_edu.kit.autograde import grade" in cell.source
    assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code")
    assert (root / "nbgrader_config.py").read_text().count("ExecutePreprocessor.timeout = 300") == 1


def test_a_check_cell_without_a_check_call_is_refused(tmp_path):
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("print('hello')")
    cell.outputs = [nbformat.v4.new_output("stream", text="✅ something: correct.\n")]
    nb.cells = [cell]
    path = tmp_path / "01_fake.ipynb"
    nbformat.write(nb, path)
    with pytest.raises(SystemExit, match="has no `ex.name"):
        graded_labs.source_notebook(path)


def _term_folder(tmp_path, rows, feedback=("alice", "bob", "carol", "mallory"), fetched_score="3.0 / 3.0",
                 mallory_feedback="❌ rows_reached: your code raised SolutionWithheld: rows_reached"):
    from delivery.graded_term import ASSIGNMENT

    course = tmp_path / "course"
    course.mkdir()
    lines = ["assignment,student_id,score,max_score"] + [f"{ASSIGNMENT},{s},{score},3.0" for s, score in rows]
    (course / "grades.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    for student in feedback:
        folder = course / "feedback" / student / ASSIGNMENT
        folder.mkdir(parents=True)
        (folder / "01_embedding_lookup.html").write_text(mallory_feedback if student == "mallory" else "x",
                                                         encoding="utf-8")
    fetched = tmp_path / "home" / "alice" / ASSIGNMENT / "feedback" / "2026-12-04 10:00:00 UTC"
    fetched.mkdir(parents=True)
    (fetched / "01_embedding_lookup.html").write_text(f"Score: {fetched_score}", encoding="utf-8")
    return tmp_path


def test_a_term_that_went_right_has_no_problem(tmp_path):
    from delivery.graded_term import problems

    folder = _term_folder(tmp_path, [("alice", 3.0), ("bob", 0.0), ("carol", 3.0), ("mallory", 0.0)])
    assert problems(folder, "01_embedding_lookup.ipynb") == []


def test_each_wrong_step_of_a_term_is_named(tmp_path):
    from delivery.graded_term import problems

    folder = _term_folder(tmp_path, [("alice", 3.0), ("bob", 3.0), ("mallory", 3.0)],
                          feedback=("alice", "mallory"), fetched_score="0.0 / 3.0",
                          mallory_feedback="✅ bag_of_tokens: correct (the autograder's, fooled)")
    assert problems(folder, "01_embedding_lookup.ipynb") == [
        "grades.csv: bob has 3.0, expected 0 of 3", "grades.csv: carol has None, expected 3 of 3",
        "grades.csv: mallory has 3.0, expected 0 of 3", "no feedback written for bob",
        "no feedback written for carol",
        "mallory's feedback does not show the grading step's verdict (its comment on her answer)",
        "the feedback alice fetched does not show her full score (someone else's?)"]
