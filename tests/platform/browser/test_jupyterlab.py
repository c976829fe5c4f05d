"""End-to-end: every lesson runs in a real JupyterLab in Chromium, its widgets render and its toggles work.

What only a browser can show; the outputs themselves are compared by nbval in `make test`. For each
lesson course.toml names (or its solved copy, see LMTIE_SOLVED_LESSONS in lessons.py): open it in
JupyterLab, clear and run all cells, wait until every cell has run and the kernel is idle, then assert:
no error output, no stderr, no "Error displaying widget", at least one TiePanel (``.lmtie-panel``), and for each
panel that clicking its *tie weights* checkbox flips the box and brings a different figure from the
kernel; a second click flips both back; at least three predict-then-run questions render, and answering
the first shows its explanation. One screenshot per lesson goes to tests/platform/browser/screenshots/ (not committed).

Up to three lessons run their cells at once (each in its own tab and kernel, in one JupyterLab page)
while the test checks the earliest. Time is measured, never a verdict: the summary prints each lesson's
phases and the median click → new figure latency over 5 clicks per lesson (also written to
build/browser-timings.json); the only time limits are hang guards, several times what a slow runner needs.

Run: `make test-browser`, or `.venv/bin/python -m pytest -m browser tests/platform/browser` (`-k 01_` for one lesson).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .lab_server import isolated_env
from .lesson_page import LessonPage
from .lessons import LATENCIES, TIMINGS, lesson_paths

WIDGET_MANAGER = "@jupyter-widgets/jupyterlab-manager"
LESSON_TIMEOUT_S = 600  # hang guard for one lesson (≈ 4× a loaded run; signal: the finalizers still close everything)
LATENCY_CLICKS = 9 if os.environ.get("LMTIE_BROWSER_ALONE") else 3  # more clicks on the first panel's toggle: with the 2 of check_toggle, a median over 5
LESSONS = lesson_paths()

pytestmark = pytest.mark.browser


@pytest.mark.timeout(90, method="signal")
def test_widget_manager_frontend_installed(tmp_path):
    """The ipywidgets front end is a prebuilt extension of this environment's JupyterLab (no browser needed)."""
    jupyter = Path(sys.executable).with_name("jupyter")
    listing = subprocess.run([str(jupyter), "labextension", "list"], env=isolated_env(tmp_path), capture_output=True,
                             text=True, timeout=60)
    text = listing.stdout + listing.stderr
    assert listing.returncode == 0, text
    lines = [line for line in text.splitlines() if WIDGET_MANAGER in line]
    assert lines, f"{WIDGET_MANAGER} is not installed; `jupyter labextension list` says:\n{text}"
    assert all("enabled" in line and "OK" in line for line in lines), "\n".join(lines)


@pytest.mark.timeout(LESSON_TIMEOUT_S, method="signal")
@pytest.mark.parametrize("lesson", LESSONS or [None], ids=[p.name for p in LESSONS] or ["no-lessons"])
def test_lesson_in_jupyterlab(lesson, lab, pipeline, screenshots_dir):
    assert lesson is not None, "no lessons found (course.toml)"
    for old in screenshots_dir.glob(f"{lesson.stem}*.png"):
        old.unlink()
    started = time.monotonic()
    phases = TIMINGS.setdefault(lesson.name, {})

    def phase(name: str) -> None:
        phases[name] = time.monotonic() - started - sum(phases.values())

    try:
        notebook = pipeline.run(lesson.name)
        state = notebook.finished_run_state()
        phase("run all")
        assert notebook.has_plugin(f"{WIDGET_MANAGER}:plugin"), "JupyterLab in the browser has no widget manager"
        check_outputs(lesson.name, state)
        views = sum(output["widget"] for cell in state["cells"] for output in cell["outputs"])
        notebook.wait_for_widgets_rendered(views)
        assert not notebook.widget_errors(), f"{lesson.name}: {notebook.widget_errors()}"

        panels = notebook.panels()
        assert panels.count() >= 1, f"{lesson.name}: no TiePanel (.lmtie-panel) rendered"
        phase("render")
        for number in range(panels.count()):
            check_toggle(notebook, panels.nth(number), f"{lesson.name} panel {number + 1} of {panels.count()}")
        measure_clicks(notebook, panels.first, LATENCY_CLICKS)
        LATENCIES[lesson.name] = list(notebook.click_seconds)
        phase("toggles")

        questions = notebook.predictions()
        assert questions.count() >= 3, f"{lesson.name}: {questions.count()} predict-then-run questions rendered"
        answer = notebook.answer_prediction(questions.first)
        assert answer.startswith(("Right.", "Not quite")) and "next cell" in answer, (
            f"{lesson.name}: answering the first prediction showed {answer!r}")
        questions.first.screenshot(path=screenshots_dir / f"{lesson.stem}-predict.png")

        # Clicking must not have produced errors anywhere (a failing redraw could print into a cell).
        check_outputs(lesson.name, notebook.state())
        assert not notebook.widget_errors(), f"{lesson.name}: {notebook.widget_errors()}"
        panels.first.scroll_into_view_if_needed()
        notebook.page.screenshot(path=screenshots_dir / f"{lesson.stem}.png")
    except BaseException:  # also a pytest-timeout failure
        report_failure(pipeline.open_pages.get(lesson.name), lab, screenshots_dir / f"{lesson.stem}-FAILED.png")
        raise
    finally:
        pipeline.finish(lesson.name)
        phase("screenshot+close")


def check_outputs(name: str, state: dict) -> None:
    problems = [
        f"cell [{cell['count']}] {output['type']} {output['stream'] or ''}: {output['text']}"
        for cell in state["cells"] for output in cell["outputs"]
        if output["type"] == "error" or output["stream"] == "stderr"
    ]
    assert not problems, f"{name} shows error output in JupyterLab:\n" + "\n".join(problems)


def check_toggle(notebook: LessonPage, panel, where: str) -> None:
    """Click *tie weights* twice; each click must flip the box and bring a new, different figure."""
    label = notebook.tie_label(panel)
    assert "tie" in label.lower() or "绑定" in label, f"{where}: the first control is {label!r}, not the tie-weights checkbox"
    notebook.wait_for_image(panel)
    before = notebook.panel_state(panel)
    after = notebook.click_tie(panel, before)
    assert after.checked is not before.checked, f"{where}: clicking {label!r} did not change the box"
    assert after.digest != before.digest, f"{where}: clicking {label!r} redrew the same picture"
    assert "⚠" not in panel.text_content(), f"{where}: the panel reports an error: {panel.text_content()[:300]}"
    back = notebook.click_tie(panel, after)
    assert back.checked is before.checked, f"{where}: a second click did not restore the box"
    assert back.digest != after.digest, f"{where}: a second click did not change the picture back"


def measure_clicks(notebook: LessonPage, panel, clicks: int) -> None:
    """More clicks on one toggle, each waiting for its figure: enough for a median latency."""
    state = notebook.panel_state(panel)
    for _ in range(clicks):
        new = notebook.click_tie(panel, state)
        assert new.checked is not state.checked and new.digest != state.digest, "a timed click did not redraw"
        state = new


def report_failure(notebook: LessonPage | None, lab, screenshot: Path) -> None:
    """Leave what a maintainer needs: a screenshot, the page's JavaScript errors, the server log."""
    print(f"JupyterLab log tail:\n{lab.log_tail()}")
    if notebook is None:
        return
    try:
        notebook.page.screenshot(path=screenshot, timeout=5000)
        print(f"screenshot of the failure: {screenshot}")
    except Exception as error:  # the page may be gone; the original failure matters more
        print(f"(no failure screenshot: {error})")
    if notebook.js_errors:
        print("JavaScript errors in the page:", *notebook.js_errors, sep="\n")
