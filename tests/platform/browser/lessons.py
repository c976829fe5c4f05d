"""Which lessons the browser test runs, in which order, and how long each took."""

from __future__ import annotations

import os
import time
from pathlib import Path

from tools.course import notebooks

from .lesson_page import LessonPage, open_jupyterlab

REPO = Path(__file__).resolve().parents[3]
# LMTIE_LESSONS_DIR points the test at another folder of lessons (e.g. a scratch copy while authoring).
LESSONS_DIR = Path(os.environ.get("LMTIE_LESSONS_DIR", REPO / "notebooks"))
# LMTIE_SOLVED_LESSONS: the same lessons with their exercises solved (python -m tools.make_solutions --for-nbval),
# run in their place. `make test` does not set it: the lesson suite's nbval run of the solved lessons checks them.
SOLVED_DIR = Path(os.environ["LMTIE_SOLVED_LESSONS"]) if os.environ.get("LMTIE_SOLVED_LESSONS") else None
VIEWPORT = {"width": 1400, "height": 1000}
TIMINGS: dict[str, dict[str, float]] = {}  # lesson -> phase -> seconds, printed in the terminal summary
LATENCIES: dict[str, list[float]] = {}  # lesson -> seconds from each tie click to its new figure on screen


def lesson_paths() -> list[Path]:
    return [LESSONS_DIR / path.name for path in notebooks()]


class LessonPipeline:
    """Runs up to ``parallel`` lessons at once, in test order, each in its own tab of one JupyterLab page.

    While the test checks and clicks lesson N, the following lessons already run their cells in
    background tabs, so the CPU cores stay busy (the kernels are single-threaded). One page serves
    all lessons: JupyterLab's boot costs about 9 CPU-seconds, opening a notebook in a running
    JupyterLab about 4 (measured on this project's 2-core runner), and a page per lesson paid the boot
    every time. :meth:`finish` stops a lesson's kernel and closes its tab; :meth:`close` closes whatever
    is still open (also after a failure).
    """

    def __init__(self, browser, lab, order: list[str], *, run_timeout_ms: int, redraw_timeout_ms: int,
                 parallel: int = 3):
        self.lab = lab
        self.order = order
        self.run_timeout_ms = run_timeout_ms
        self.redraw_timeout_ms = redraw_timeout_ms
        self.parallel = parallel
        self.context = browser.new_context(viewport=VIEWPORT)
        self.page = self.context.new_page()
        open_jupyterlab(self.page, lab, timeout_ms=run_timeout_ms)
        self.open_pages: dict[str, LessonPage] = {}
        self.done: set[str] = set()

    def _start(self, name: str) -> LessonPage:
        if name not in self.open_pages:
            lesson = LessonPage(self.page, self.lab, name, redraw_timeout_ms=self.redraw_timeout_ms)
            self.open_pages[name] = lesson
            lesson.start()
        return self.open_pages[name]

    def _running(self) -> list[str]:
        for name, lesson in self.open_pages.items():
            if name not in self.done and lesson.run_done():
                self.done.add(name)
        return [name for name in self.open_pages if name not in self.done]

    def _start_ahead(self, current: str) -> None:
        """Start the lessons after ``current`` while fewer than ``parallel`` are running."""
        if current not in self.order:
            return
        for upcoming in self.order[self.order.index(current) + 1:]:
            if len(self._running()) >= self.parallel:
                return
            if upcoming in self.open_pages:
                continue
            try:
                self._start(upcoming)
            except Exception as error:  # not this lesson's failure: its own test starts it again
                print(f"(starting {upcoming} ahead failed: {error})")
                self.finish(upcoming)
                return

    def run(self, name: str) -> LessonPage:
        """Start ``name`` if needed and wait until all its cells have run; meanwhile keep others going."""
        lesson = self._start(name)
        deadline = time.monotonic() + self.run_timeout_ms / 1000
        while True:
            self._start_ahead(name)
            if lesson.wait_until_run_done(timeout_ms=500):
                break
            if time.monotonic() > deadline:
                raise AssertionError(f"{name}: Run All did not finish within {self.run_timeout_ms / 1000:.0f} s; "
                                     f"last state: {lesson.state()}")
        self.done.add(name)
        self._start_ahead(name)
        lesson.activate()
        return lesson

    def finish(self, name: str) -> None:
        lesson = self.open_pages.pop(name, None)
        if lesson is not None:
            lesson.close()

    def close(self) -> None:
        try:
            for name in list(self.open_pages):
                try:
                    self.finish(name)
                except Exception as error:  # keep closing the others; the server stops the kernels anyway
                    print(f"(closing {name} failed: {error})")
        finally:
            self.context.close()
