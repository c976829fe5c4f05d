"""Running a lesson's section first: the NameError names the section and cell that make what is missing."""

import os
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from lmtie_edu.shared.cell_order import definitions, message
from tools.course import notebooks

LESSONS = Path(__file__).resolve().parents[2] / "notebooks"


def test_every_lesson_knows_where_its_names_are_made():
    for path in notebooks():
        known = definitions(path)
        assert "setup_lesson" in known and len(known) > 10, path.name  # the smallest, new_lesson's skeleton: 17


def test_the_message_names_the_section_and_the_cell():
    known = definitions(LESSONS / "04_parameter_savings.ipynb")
    said = message("rows", known)
    assert "in “2. Real architectures on the meta device”" in said and "`rows = {}`" in said
    assert "Run All Above Selected Cell" in said
    assert "If it comes from an earlier cell" in message("no_such_name_anywhere", known)


def test_a_kernel_running_the_last_section_first_is_told_what_to_run(tmp_path, monkeypatch):
    lesson = LESSONS / "04_parameter_savings.ipynb"
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("from lmtie_edu.shared.notebook import setup_lesson\n\nsetup_lesson(seed=0)"),
        nbformat.v4.new_code_cell("print(rows['GPT-2 XL'])"),  # a later cell, run before the one making `rows`
        nbformat.v4.new_code_cell("print(undefined_elsewhere)"),
        nbformat.v4.new_code_cell("print('the kernel goes on')"),
    ])
    monkeypatch.setenv("JPY_SESSION_NAME", str(lesson))  # what a Jupyter server tells the kernel
    NotebookClient(nb, timeout=120, kernel_name="python3", allow_errors=True,
                   resources={"metadata": {"path": str(tmp_path)}}).execute(env=dict(os.environ))
    said = "".join(o.get("text", "") for o in nb.cells[1].outputs)
    assert "name 'rows' is not defined yet" in said and "2. Real architectures on the meta device" in said, said
    assert not any(o.get("output_type") == "error" for o in nb.cells[1].outputs)  # no traceback
    assert "If it comes from an earlier cell" in "".join(o.get("text", "") for o in nb.cells[2].outputs)
    assert nb.cells[3].outputs[0]["text"] == "the kernel goes on\n"
