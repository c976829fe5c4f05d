"""The Chinese edition in a real JupyterLab: notebooks/zh_CN/01_embedding_lookup.ipynb runs and its toggle redraws.

The lab fixture serves a scratch copy of notebooks/, which holds zh_CN/, so the Chinese lesson is opened
by its path there (next to the other Chinese lessons its links point to). Same checks as the English
lessons (tests/platform/browser/test_jupyterlab.py; nbval compares its outputs): Run All ends without error
or stderr output, every widget renders, and clicking the tie toggle flips the box and brings a new figure,
twice. It also checks that the page speaks Chinese where a learner interacts: the title, the toggle's label
(绑定权重) and a predict question's button and feedback — so a build that silently left the package in English
would fail here.

Run: `.venv/bin/python -m pytest -q -m browser tests/platform/browser/test_chinese_lesson.py`.
"""

from __future__ import annotations

import pytest

from .test_jupyterlab import (
    LESSON_TIMEOUT_S,
    check_outputs,
    check_toggle,
    report_failure,
)

LESSON = "zh_CN/01_embedding_lookup.ipynb"
CHINESE_HEADING = "第 01 课"  # the title of the Chinese lesson (translations/zh_CN/01_embedding_lookup.po)
TIE_LABEL = "绑定权重"  # the panel's toggle (translations/zh_CN/lmtie_edu/kit.po, docs/glossary.md)
CHECK_BUTTON = "检查"  # the predict question's button starts "检查…" (kit.po)

pytestmark = pytest.mark.browser


@pytest.mark.timeout(LESSON_TIMEOUT_S, method="signal")
def test_chinese_lesson_runs_and_its_toggle_redraws(lab, pipeline, screenshots_dir):
    assert (lab.root / LESSON).is_file(), (
        f"{LESSON} is not in the lessons the browser test serves ({lab.root}): build it with `make zh`")
    screenshot = screenshots_dir / "zh_CN-01_embedding_lookup.png"
    try:
        notebook = pipeline.run(LESSON)
        check_outputs(LESSON, notebook.finished_run_state())
        state = notebook.state()
        views = sum(output["widget"] for cell in state["cells"] for output in cell["outputs"])
        notebook.wait_for_widgets_rendered(views)
        assert not notebook.widget_errors(), f"{LESSON}: {notebook.widget_errors()}"
        heading = notebook.in_tab(".jp-RenderedMarkdown h1").first.text_content()
        assert CHINESE_HEADING in heading, f"{LESSON}: the first heading is {heading!r}, not the Chinese title"

        panels = notebook.panels()
        assert panels.count() >= 1, f"{LESSON}: no TiePanel (.lmtie-panel) rendered"
        label = notebook.tie_label(panels.first).strip("\u200b")  # ipywidgets' checkbox label starts with a ZWSP
        assert label == TIE_LABEL, f"{LESSON}: the toggle says {label!r}"
        check_toggle(notebook, panels.first, f"{LESSON} panel 1 of {panels.count()}")
        question = notebook.in_tab(".lmtie-predict").first
        assert CHECK_BUTTON in question.locator("button").first.text_content(), f"{LESSON}: the Check button is not Chinese"
        feedback = notebook.answer_prediction(question)
        assert any("\u4e00" <= character <= "\u9fff" for character in feedback), f"{LESSON}: feedback {feedback!r}"
        check_outputs(LESSON, notebook.state())
        panels.first.scroll_into_view_if_needed()
        notebook.page.screenshot(path=screenshot)
    except BaseException:  # also a pytest-timeout failure
        report_failure(pipeline.open_pages.get(LESSON), lab, screenshot.with_name(screenshot.stem + "-FAILED.png"))
        raise
    finally:
        pipeline.finish(LESSON)
