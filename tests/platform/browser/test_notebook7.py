"""A lesson in Notebook 7, the classic-looking front end many students open: it runs, and its toggle redraws.

Notebook 7 is built from JupyterLab's components, so the lesson page's own code drives it: a private
``jupyter notebook`` server (the ``notebook`` package of requirements-test.txt), the lesson opened at
``/notebooks/<path>`` as a student's link opens it, Run All, then the same checks as in JupyterLab: no error
or stderr output, every widget rendered, and two clicks on *tie weights* each bring a new figure.

Run: `.venv/bin/python -m pytest -q -m browser tests/platform/browser/test_notebook7.py`.
"""

from __future__ import annotations

from importlib.metadata import version

import pytest

from .lab_server import LabServer
from .lesson_page import LessonPage
from .lessons import LESSONS_DIR, SOLVED_DIR, VIEWPORT
from .test_jupyterlab import LESSON_TIMEOUT_S, check_outputs, check_toggle, report_failure

NOTEBOOK7_LESSON = "01_embedding_lookup.ipynb"  # not `LESSON`: the JupyterLab pipeline would queue it again
RUN_TIMEOUT_MS = 300_000  # hang guard, as for the JupyterLab test
REDRAW_TIMEOUT_MS = 60_000

pytestmark = pytest.mark.browser


@pytest.fixture
def notebook7(browser, tmp_path):
    server = LabServer(LESSONS_DIR, tmp_path, SOLVED_DIR, app="notebook").start()
    context = browser.new_context(viewport=VIEWPORT)
    try:
        yield server, context.new_page()
    finally:
        context.close()
        server.stop()


@pytest.mark.timeout(LESSON_TIMEOUT_S, method="signal")
def test_a_lesson_runs_in_notebook_7_and_its_toggle_redraws(notebook7, screenshots_dir):
    assert version("notebook").startswith("7."), version("notebook")
    server, page = notebook7
    lesson = None
    try:
        page.goto(server.url(f"notebooks/{NOTEBOOK7_LESSON}"), wait_until="domcontentloaded")
        page.wait_for_function("() => !!window.jupyterapp", timeout=RUN_TIMEOUT_MS)
        assert page.evaluate("() => window.jupyterapp.name") == "Jupyter Notebook"
        lesson = LessonPage(page, server, NOTEBOOK7_LESSON, redraw_timeout_ms=REDRAW_TIMEOUT_MS)
        lesson.start()
        assert lesson.wait_until_run_done(RUN_TIMEOUT_MS), f"{NOTEBOOK7_LESSON}: Run All did not finish in Notebook 7"
        lesson.activate()
        check_outputs(NOTEBOOK7_LESSON, lesson.finished_run_state())
        state = lesson.state()
        lesson.wait_for_widgets_rendered(sum(o["widget"] for cell in state["cells"] for o in cell["outputs"]))
        assert not lesson.widget_errors(), f"{NOTEBOOK7_LESSON}: {lesson.widget_errors()}"
        panels = lesson.panels()
        assert panels.count() >= 1, f"{NOTEBOOK7_LESSON}: no TiePanel (.lmtie-panel) rendered in Notebook 7"
        check_toggle(lesson, panels.first, f"{NOTEBOOK7_LESSON} in Notebook 7")
        panels.first.scroll_into_view_if_needed()
        page.screenshot(path=screenshots_dir / "notebook7-01_embedding_lookup.png")
    except BaseException:
        report_failure(lesson, server, screenshots_dir / "notebook7-01_embedding_lookup-failure.png")
        raise
    finally:
        if lesson is not None:
            lesson.close()
