"""tools/graded_labs.py: the nbgrader source notebooks it writes (nbgrader itself grades them in
`make test-nbgrader`; here, without nbgrader, the structure it relies on)."""

import ast
import re
from pathlib import Path

import nbformat
import pytest

from tools import graded_labs

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
