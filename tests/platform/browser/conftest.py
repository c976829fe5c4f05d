"""Fixtures of the browser test: Debian's Chromium, a private JupyterLab, and their clean shutdown.

Without a Chromium the test fails when ``LMTIE_REQUIRE_BROWSER`` is set (CI sets it in .ci/run) and
otherwise skips with a loud reason (repeated in the terminal summary). Server, browser and pages
are closed by fixture finalizers, which run also when a test fails or times out; the server also
dies with pytest if pytest is killed (see lab_server.py).

Environment knobs: LMTIE_REQUIRE_BROWSER (missing browser = failure), LMTIE_CHROMIUM (another
Chromium executable), LMTIE_LESSONS_DIR (another folder of lessons, e.g. a scratch copy), LMTIE_SOLVED_LESSONS
(the lessons with their exercises solved, run in their place; `make test` does not set it: its nbval run
of the solved lessons checks the solutions), LMTIE_BROWSER_ALONE (one lesson at a time, nothing running
ahead, more timed clicks: `make bench-browser`). Timings are printed and
written to build/browser-timings.json (alone: build/browser-alone-timings.json); they never fail the test —
`make bench-browser` reports them against the 300 ms aim.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import time
from pathlib import Path

import pytest

from .lab_server import LabServer
from .lessons import LATENCIES, LESSONS_DIR, SOLVED_DIR, TIMINGS, LessonPipeline

SCREENSHOTS_DIR = Path(__file__).resolve().parent / "screenshots"
# Debian's package; Playwright's own browser download cannot work offline and is never attempted.
CHROMIUM_CANDIDATES = ["/usr/bin/chromium", "chromium", "chromium-browser"]
CHROMIUM_FLAGS = [
    "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
    "--disable-sync", "--disable-quic", "--no-first-run", "--disable-dev-shm-usage",
]
# Hang guards, not budgets: several times what a loaded 2-core runner needs.
RUN_TIMEOUT_MS = 300_000  # one lesson, all cells (each is ≤ 20–30 s headless)
REDRAW_TIMEOUT_MS = 60_000  # one toggle; the slowest retrains a small model (~1.5 s)
ALONE = bool(os.environ.get("LMTIE_BROWSER_ALONE"))
TIMINGS_FILE = Path(__file__).resolve().parents[3] / "build" / (
    "browser-alone-timings.json" if ALONE else "browser-timings.json")
CLICK_AIM_MS = 300  # click → new figure, median, a lesson alone (reported, never judged here)

_session = {"started": None, "finished": None, "skipped_reason": None, "order": []}


def chromium_candidates() -> list[str]:
    override = os.environ.get("LMTIE_CHROMIUM")  # another Chromium build, if a maintainer needs one
    return [override] if override else CHROMIUM_CANDIDATES


def find_chromium() -> str | None:
    for candidate in chromium_candidates():
        path = shutil.which(candidate)
        if path:
            return path
    return None


def _lesson_of(item) -> str | None:
    """The lesson a test item opens: its ``lesson`` parameter, or its module's fixed ``LESSON``."""
    lesson = getattr(getattr(item, "callspec", None), "params", {}).get("lesson")
    if lesson is not None:
        return lesson.name
    return getattr(getattr(item, "module", None), "LESSON", None)  # e.g. test_chinese_lesson.py


def pytest_collection_finish(session):
    """Remember the selected lessons in order, so the pipeline can start the next ones early."""
    here = Path(__file__).parent
    browser_items = [item for item in session.items if here in Path(item.path).parents]
    _session["order"] = [name for name in map(_lesson_of, browser_items) if name]


@pytest.fixture(scope="session")
def chromium_path() -> str:
    path = find_chromium()
    if path:
        return path
    reason = (f"BROWSER TEST NOT RUN: no Chromium found (looked for {', '.join(chromium_candidates())}). Install it with "
              "`sudo apt-get install -y chromium` or `delivery/install-chromium.sh`; CI (LMTIE_REQUIRE_BROWSER=1) "
              "fails here instead of skipping.")
    if os.environ.get("LMTIE_REQUIRE_BROWSER"):
        pytest.fail(reason.replace("BROWSER TEST NOT RUN: no", "LMTIE_REQUIRE_BROWSER is set but no"), pytrace=False)
    _session["skipped_reason"] = reason
    pytest.skip(reason)


@pytest.fixture(scope="session")
def session_clock():
    _session["started"] = time.monotonic()
    yield
    _session["finished"] = time.monotonic()


@pytest.fixture(scope="session")
def lab(chromium_path, session_clock, tmp_path_factory):
    """A JupyterLab serving a scratch copy of the lessons; stopped whatever happens."""
    if SOLVED_DIR is not None and not any(SOLVED_DIR.glob("*.ipynb")):
        pytest.fail(f"LMTIE_SOLVED_LESSONS={SOLVED_DIR} holds no notebooks: run python -m tools.make_solutions --for-nbval "
                    f"{SOLVED_DIR} first", pytrace=False)
    server = LabServer(LESSONS_DIR, tmp_path_factory.mktemp("jupyterlab"), SOLVED_DIR)
    try:
        server.start()
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def browser(chromium_path, lab):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=chromium_path, headless=True, args=CHROMIUM_FLAGS)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture(scope="session")
def pipeline(browser, lab):
    lessons = LessonPipeline(browser, lab, _session["order"], run_timeout_ms=RUN_TIMEOUT_MS,
                             redraw_timeout_ms=REDRAW_TIMEOUT_MS, parallel=1 if ALONE else 3)
    try:
        yield lessons
    finally:
        lessons.close()


@pytest.fixture(scope="session")
def screenshots_dir() -> Path:
    SCREENSHOTS_DIR.mkdir(exist_ok=True)
    return SCREENSHOTS_DIR


def pytest_terminal_summary(terminalreporter):
    if _session["skipped_reason"]:
        terminalreporter.write_sep("!", "BROWSER TEST SKIPPED", red=True, bold=True)
        terminalreporter.write_line(_session["skipped_reason"], red=True)
        terminalreporter.write_line("Set LMTIE_REQUIRE_BROWSER=1 to make this a failure (CI does).", red=True)
    if _session["started"] is None:
        return
    total = (_session["finished"] or time.monotonic()) - _session["started"]
    how = ("each lesson alone" if ALONE else "later lessons run while one is checked")
    terminalreporter.write_sep("-", f"browser test timings (measured, not judged; {how})")
    rows = {}
    for name, phases in TIMINGS.items():
        clicks = LATENCIES.get(name, [])
        median_ms = round(1000 * statistics.median(clicks)) if clicks else None
        first_ms = round(1000 * clicks[0]) if clicks else None  # the first visit of a state: never cached
        rows[name] = {"seconds": round(sum(phases.values()), 1), "click_to_figure_median_ms": median_ms,
                      "first_click_ms": first_ms, "clicks": len(clicks), "alone": ALONE,
                      **{phase: round(seconds, 1) for phase, seconds in phases.items()}}
        detail = ", ".join(f"{phase} {seconds:.1f}" for phase, seconds in phases.items())
        aim = f" ({'within' if median_ms <= CLICK_AIM_MS else 'OVER'} the {CLICK_AIM_MS} ms aim)" if clicks else ""
        latency = (f"; click → new figure median {median_ms} ms over {len(clicks)} clicks{aim if ALONE else ''}, "
                   f"first click {first_ms} ms" if clicks else "")
        terminalreporter.write_line(f"{name}: {sum(phases.values()):.1f} s ({detail}){latency}")
    terminalreporter.write_line(f"total (server + browser + {len(TIMINGS)} lessons): {total:.1f} s")
    TIMINGS_FILE.parent.mkdir(parents=True, exist_ok=True)
    TIMINGS_FILE.write_text(json.dumps({"total_seconds": round(total, 1), "lessons": rows}, indent=2))
