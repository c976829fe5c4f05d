"""The browser test's output comparison (tests/browser/stored_outputs.py) follows nbval's rules.

`make test` runs each lesson once, in JupyterLab, and compares that run with the stored notebook through
this module, so it must fail where nbval fails and pass where nbval passes.
"""

from __future__ import annotations

import copy
import sys
from pathlib import Path

import nbformat
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "browser"))
from stored_outputs import differences  # noqa: E402

LESSON = Path(__file__).resolve().parents[1] / "notebooks" / "03_gradient_flow.ipynb"


def stored():
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell("# text"),
        nbformat.v4.new_code_cell("print('a'); print('b')", execution_count=1, outputs=[
            nbformat.v4.new_output("stream", name="stdout", text="a\nb\n")]),
        nbformat.v4.new_code_cell("model", execution_count=2, outputs=[
            nbformat.v4.new_output("execute_result", execution_count=2,
                                   data={"text/plain": "<Model at 0x7f00aa>", "image/png": "iVBORw0KGgo="})]),
        nbformat.v4.new_code_cell("panel", execution_count=3, metadata={"tags": ["nbval-ignore-output"]}, outputs=[
            nbformat.v4.new_output("display_data", data={"text/plain": "Panel(tie=True)"})]),
        nbformat.v4.new_code_cell("# NBVAL_SKIP\nrandom()", execution_count=4, outputs=[
            nbformat.v4.new_output("stream", name="stdout", text="0.1\n")]),
    ]
    return nb


def run_of(nb) -> dict:
    """What JupyterLab hands over: plain JSON, streams split as they arrived, new addresses and counts."""
    run = copy.deepcopy(dict(nb))
    run["cells"][1]["outputs"] = [{"output_type": "stream", "name": "stdout", "text": "a\n"},
                                  {"output_type": "stream", "name": "stdout", "text": ["b\n"]}]
    result = run["cells"][2]["outputs"][0]
    result.update(execution_count=7, data={"text/plain": ["<Model at ", "0x55bb01>"], "image/png": "other"})
    return run


def test_same_outputs_pass_by_nbvals_rules():
    """Split streams, list-of-lines text, other addresses, counts and PNG bytes are not differences."""
    assert differences(stored(), run_of(stored())) == []


@pytest.mark.parametrize(("cell", "change", "where"), [
    (1, lambda c: c["outputs"].__setitem__(0, {"output_type": "stream", "name": "stdout", "text": "A\n"}), "stdout"),
    (2, lambda c: c["outputs"][0]["data"].__setitem__("text/plain", "<Model 2 at 0x1>"), "text/plain"),
    (2, lambda c: c["outputs"][0]["data"].__setitem__("text/html", "<b>new</b>"), "text/html"),
    (2, lambda c: c["outputs"].append({"output_type": "stream", "name": "stderr", "text": "warning\n"}), "stderr"),
    (2, lambda c: c.__setitem__("outputs", []), "text/plain"),
])
def test_a_changed_output_is_reported_with_both_versions(cell, change, where):
    run = run_of(stored())
    change(run["cells"][cell])
    problems = differences(stored(), run)
    assert len(problems) == 1 and f"({where})" in problems[0], problems
    assert "<<< stored" in problems[0] and ">>> this run" in problems[0]


def test_ignored_skipped_and_unrun_cells_are_not_compared():
    run = run_of(stored())
    run["cells"][3]["outputs"] = [{"output_type": "display_data", "data": {"text/plain": "Panel(tie=False)"},
                                   "metadata": {}}]
    run["cells"][4]["outputs"] = [{"output_type": "stream", "name": "stdout", "text": "0.7\n"}]
    assert differences(stored(), run) == []
    unrun = stored()
    unrun.cells[1].execution_count = None
    changed = run_of(unrun)
    changed["cells"][1]["outputs"] = []
    assert differences(unrun, changed) == []


def test_a_different_number_of_code_cells_is_reported():
    run = run_of(stored())
    run["cells"].append({"cell_type": "code", "source": "", "outputs": [], "metadata": {}, "execution_count": None})
    assert differences(stored(), run) == ["the notebook has 4 code cells, the run in JupyterLab 5"]


def test_a_lesson_compared_with_itself_passes_and_a_changed_digit_fails():
    lesson = nbformat.read(LESSON, as_version=4)
    run = copy.deepcopy(dict(lesson))
    assert differences(lesson, run) == []
    for cell in run["cells"]:
        texts = [o for o in cell.get("outputs", []) if o.get("output_type") == "stream"]
        if cell["cell_type"] == "code" and texts and "nbval-ignore-output" not in cell["metadata"].get("tags", []):
            texts[0]["text"] = texts[0]["text"].replace("6", "7", 1) if "6" in texts[0]["text"] else "changed"
            break
    assert len(differences(lesson, run)) == 1
