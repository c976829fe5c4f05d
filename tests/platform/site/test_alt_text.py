"""The figures' text alternatives (delivery/site/alt_text.py), without a browser: a made-up notebook, then every lesson."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from delivery.site import alt_text
from tools.course import notebooks

REPO = Path(__file__).resolve().parents[3]
PNG = {"image/png": "iVBORw0KGgo=", "text/plain": "<IPython.core.display.Image object>"}


def notebook(code: str, *, metadata: dict | None = None):
    figure = new_output("display_data", data=PNG, metadata=metadata or {})
    return new_notebook(cells=[
        new_code_cell("from lmtie_edu.lesson04 import figures\nfrom lmtie_edu.kit.plotting import heatmap, new_figure"),
        new_markdown_cell("## 4. The share falls with size\n\nWatch the **share** as `d` grows. Then look."),
        new_code_cell(code, outputs=[figure, new_output("display_data", data=PNG)])])


def test_titles_axes_docstring_and_section():
    nb = notebook('fig, ax = new_figure()\nheatmap(ax, m, title=f"only rows {rows} are non-zero", xlabel="dimension")\n'
                  'show(figures.memory_figure(rows))')
    text = alt_text.describe(nb, 2)
    assert text.startswith("Figure: only rows … are non-zero.")
    assert "Memory of one V×d matrix per real model" in text  # lmtie_edu/lesson04/figures.py's docstring
    assert "horizontal axis: dimension" in text and "Section: 4. The share falls with size." in text
    assert "Return ``(fig, axes)``" not in text  # new_figure is plumbing, not a description
    assert alt_text.add_alt_texts(nb) == 2
    alts = [o.metadata["alt"] for o in nb.cells[2].outputs]
    assert alts[0].endswith("(figure 1 of 2)") and alts[1].endswith("(figure 2 of 2)")


def test_markdown_before_when_the_code_names_nothing_and_a_stored_alt_wins():
    nb = notebook("show(make_it())", metadata={"alt": "A bar chart of the savings"})
    assert "Then look." in alt_text.describe(nb, 2) and "share" in alt_text.describe(nb, 2)
    alt_text.add_alt_texts(nb)
    assert nb.cells[2].outputs[0].metadata["alt"] == "A bar chart of the savings"


def test_chinese_words():
    nb = notebook('heatmap(ax, m, title="W 的行")')
    assert alt_text.describe(nb, 2, lang="zh-CN").startswith("图：W 的行。")


LESSONS = notebooks() + notebooks(chinese=True)


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.relative_to(REPO / "notebooks").as_posix())
def test_every_figure_of_every_lesson_gets_a_description(path):
    nb = nbformat.read(path, as_version=4)
    alt_text.add_alt_texts(nb, "zh-CN" if path.parent.name == "zh_CN" else "en")
    alts = [o.metadata["alt"] for c in nb.cells for o in c.get("outputs", []) if "image/png" in o.get("data", {})]
    thin = [a for a in alts if len(a) < 40 or "No description" in a]
    assert not thin, thin


def test_the_visible_caption_is_the_alt_text():
    nb = notebook("show(make_it())")
    nb.cells.append(new_markdown_cell("**Figure.** Left: the matrix W, row 2 outlined. Right: its gradient.\n\nMore."))
    assert alt_text.describe(nb, 2) == "Figure. Left: the matrix W, row 2 outlined. Right: its gradient."
    nb.cells[-1].source = "**图。** 左：矩阵 W。\n\n更多。"
    assert alt_text.describe(nb, 2, lang="zh-CN") == "图。 左：矩阵 W。"


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.relative_to(REPO / "notebooks").as_posix())
def test_every_lesson_figure_is_described_by_its_caption(path):
    """The lessons caption every figure (tests/course/test_hygiene.py); the site's alt is that caption."""
    nb = nbformat.read(path, as_version=4)
    lang = "zh-CN" if path.parent.name == "zh_CN" else "en"
    for index, cell in enumerate(nb.cells):
        if any("image/png" in o.get("data", {}) for o in cell.get("outputs", [])):
            assert alt_text.caption(nb, index, lang), f"{path.name} cell {index}: no caption for its figure"
