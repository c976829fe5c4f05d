"""Notebook hygiene: what nbval does not check but a learner or a reviewer trips over."""

import json
import re
from pathlib import Path

import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parent.parent / "notebooks").glob("[0-9]*.ipynb"))
MAX_BYTES = 3_000_000
MACHINE_PATH = re.compile(r"(/(root|tmp|work|home|Users|private|var/folders)/|[A-Z]:\\\\Users)")


def code_cells(nb):
    return [cell for cell in nb["cells"] if cell["cell_type"] == "code"]


@pytest.fixture(params=NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def notebook(request):
    path = request.param
    return path, json.loads(path.read_text(encoding="utf-8"))


def test_there_are_lessons():
    assert NOTEBOOKS, "no notebooks found in notebooks/"
    assert NOTEBOOKS[0].name == "01_embedding_lookup.ipynb"


def test_committed_with_outputs(notebook):
    path, nb = notebook
    cells = code_cells(nb)
    assert cells, f"{path.name} has no code cells"
    assert any(cell["outputs"] for cell in cells), f"{path.name} was committed without outputs (run `make notebooks`)"


def test_execution_counts_are_1_to_n(notebook):
    path, nb = notebook
    counts = [cell["execution_count"] for cell in code_cells(nb)]
    assert counts == list(range(1, len(counts) + 1)), (
        f"{path.name}: execution counts {counts} are not 1..n — Restart & Run All (or `make notebooks`)"
    )


def test_no_errors_or_stderr(notebook):
    path, nb = notebook
    for index, cell in enumerate(code_cells(nb), start=1):
        for output in cell["outputs"]:
            assert output["output_type"] != "error", f"{path.name} cell [{index}] stores an error: {output.get('ename')}"
            assert not (output["output_type"] == "stream" and output["name"] == "stderr"), (
                f"{path.name} cell [{index}] stores stderr output: {''.join(output['text'])[:300]}"
            )


def test_no_machine_paths_in_outputs(notebook):
    path, nb = notebook
    for index, cell in enumerate(code_cells(nb), start=1):
        for output in cell["outputs"]:
            text = json.dumps({k: v for k, v in output.items() if k != "data"} | {
                "data": {k: v for k, v in output.get("data", {}).items() if not k.startswith("image/")}})
            match = MACHINE_PATH.search(text)
            assert not match, f"{path.name} cell [{index}] output shows a machine path: {match.group(0)!r}"


def test_python3_kernelspec(notebook):
    path, nb = notebook
    assert nb["metadata"].get("kernelspec", {}).get("name") == "python3", f"{path.name}: kernelspec is not python3"


def test_size(notebook):
    path, _ = notebook
    assert path.stat().st_size <= MAX_BYTES, f"{path.name} is {path.stat().st_size:,} bytes (limit {MAX_BYTES:,})"


def test_setup_cell_first(notebook):
    path, nb = notebook
    first = "".join(code_cells(nb)[0]["source"])
    assert "setup_lesson(" in first, f"{path.name}: the first code cell must call setup_lesson() (seeds, threads)"


def test_widget_cells_are_excluded_from_comparison(notebook):
    """A cell that displays a widget has an unstable text repr; it must be tagged nbval-ignore-output."""
    path, nb = notebook
    for index, cell in enumerate(code_cells(nb), start=1):
        shows_panel = any("application/vnd.jupyter.widget-view+json" in out.get("data", {}) and
                          "lmtie-panel" in json.dumps(nb["metadata"].get("widgets", {})) and
                          "".join(out["data"].get("text/plain", "")).startswith("VBox")
                          for out in cell["outputs"])
        if shows_panel:
            assert "nbval-ignore-output" in cell["metadata"].get("tags", []), (
                f"{path.name} cell [{index}] displays a panel but is not tagged nbval-ignore-output")


def test_widget_state_is_stored(notebook):
    """Widgets render on static viewers (GitHub, nbviewer) only if their state is saved in the notebook."""
    path, nb = notebook
    has_widgets = any("application/vnd.jupyter.widget-view+json" in out.get("data", {})
                      for cell in code_cells(nb) for out in cell["outputs"])
    if has_widgets:
        state = nb["metadata"].get("widgets", {}).get("application/vnd.jupyter.widget-state+json", {})
        assert state.get("state"), f"{path.name}: widgets are displayed but no widget state is stored (`make notebooks`)"
