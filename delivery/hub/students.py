"""Simulated students: one Chromium context each (its own cookies = its own login) on a real hub.

A student opens the teacher's nbgitpuller link, logs in on the hub's login page, waits while the hub
starts the server and nbgitpuller copies the course into the home folder, lands in JupyterLab on the
lesson, runs all cells, and clicks the first *tie weights* toggle a few times. The notebook is read
and driven through ``window.jupyterapp`` with the JavaScript of the JupyterLab browser test
(tests/platform/browser/lab_scripts.py, imported, not copied); the toggle is clicked through the real UI.
All students of a class run at once (asyncio), as in a room where everybody clicks the link together.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from dataclasses import dataclass, field

from delivery.lab.scripts import (  # the browser test's JavaScript, shared
    FIND_PANEL,
    IMAGE_DIGEST_JS,
    NOTEBOOK_STATE_JS,
    REDRAWN_JS,
    RUN_DONE_JS,
    START_RUN_JS,
)

CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                  "--disable-sync", "--no-first-run", "--disable-dev-shm-usage"]
VIEWPORT = {"width": 1280, "height": 900}
PASSWORD = "any"  # DummyAuthenticator takes any password

# Edit a cell the way the editor does (the shared model), then save: the student's own work.
EDIT_AND_SAVE_JS = "async ([path, note]) => {" + FIND_PANEL + """
    const panel = findPanel(path);
    const model = panel.content.model;
    let index = 0;
    while (model.cells.get(index).type !== 'code') index++;
    const cell = model.cells.get(index).sharedModel;
    cell.setSource(note + '\\n' + cell.getSource());
    await panel.context.save();
    return index;
}"""

# Read a file as the student's server has it on disk (contents API, through the page's own session).
READ_FILE_JS = """async (path) => {
    const model = await window.jupyterapp.serviceManager.contents.get(path, {content: true});
    return typeof model.content === 'string' ? model.content : JSON.stringify(model.content);
}"""


CLASS_REPORT: dict = {}  # what the class test measured, printed in pytest's terminal summary (conftest)


@dataclass
class Attendance:
    """What one student's session measured."""

    name: str
    link_to_lab_s: float | None = None  # link opened → JupyterLab on the pulled lesson
    link_to_figure_s: float | None = None  # link opened → first panel figure on screen (after Run All)
    click_s: list[float] = field(default_factory=list)  # each toggle click → its new figure
    error: str | None = None
    page_errors: list[str] = field(default_factory=list)  # uncaught JavaScript errors, hub pages included
    cell_errors: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.error is None and not self.cell_errors


async def login_via_link(page, name: str, link: str, timeout_ms: int) -> None:
    """Open the link; the hub asks for a login first, then spawns, pulls and redirects into JupyterLab.

    While the server starts, the hub shows its spawn-pending page, which redirects by itself when its
    event stream says "ready". No reload here: a page that never moves on is a fault of the hub's set-up
    (the one found: RequireJS gave up on the page's scripts; deploy/jupyterhub/templates/page.html fixes
    it), and the student's recorded page errors say which.
    """
    await page.goto(link, wait_until="domcontentloaded", timeout=timeout_ms)
    if "/hub/login" in page.url:
        await page.fill("#username_input", name)
        await page.fill("#password_input", PASSWORD)
        await page.click("#login_submit", timeout=timeout_ms)
    await page.wait_for_url("**/lab/tree/**", timeout=timeout_ms, wait_until="domcontentloaded")
    await page.wait_for_function("() => !!window.jupyterapp", timeout=timeout_ms, polling=250)


async def evaluate_settled(page, script: str, arg, timeout_ms: int, attempts: int = 5):
    """Evaluate in JupyterLab once it stays put: a second tab of the same workspace makes JupyterLab
    move to an automatic workspace (a navigation), which destroys the first page context."""
    for attempt in range(attempts):
        try:
            await page.wait_for_function("() => !!window.jupyterapp", timeout=timeout_ms, polling=250)
            await page.evaluate("async () => { await window.jupyterapp.restored; }")
            return await page.evaluate(script, arg)
        except Exception as error:
            if "context was destroyed" not in str(error) or attempt == attempts - 1:
                raise
            await asyncio.sleep(1)


async def run_all(page, path: str, timeout_ms: int) -> dict:
    await page.evaluate(START_RUN_JS, path)
    await page.wait_for_function(RUN_DONE_JS, arg=path, timeout=timeout_ms, polling=250)
    return await page.evaluate(NOTEBOOK_STATE_JS, path)


def error_outputs(state: dict) -> list[str]:
    run_error = ((state or {}).get("run") or {}).get("error")
    errors = [f"could not run the notebook: {run_error}"] if run_error else []
    for cell in (state or {}).get("cells", []):
        errors += [f"cell {cell['index']}: {o['text']}" for o in cell["outputs"] if o["type"] == "error"]
    return errors


async def first_figure(page, timeout_ms: int):
    panel = page.locator(".lmtie-panel").first
    await panel.wait_for(state="visible", timeout=timeout_ms)
    image = panel.locator("img").first
    await page.wait_for_function(
        "(img) => img.complete && img.naturalWidth > 0 && img.src.startsWith('blob:')",
        arg=await image.element_handle(timeout=timeout_ms), timeout=timeout_ms, polling=250)
    return panel


async def click_tie(page, path: str, panel, timeout_ms: int) -> tuple[float, str]:
    """Click the first checkbox of the panel; seconds until the kernel's new figure is on screen."""
    box = panel.locator(".widget-checkbox").first.locator("input[type=checkbox]")
    image = panel.locator("img").first
    await box.scroll_into_view_if_needed()
    old_src, was_checked = await image.get_attribute("src"), await box.is_checked()
    clicked = time.monotonic()
    await box.click()
    await page.wait_for_function(
        REDRAWN_JS, arg=[path, await image.element_handle(), await box.element_handle(), old_src, was_checked],
        timeout=timeout_ms, polling="raf")
    seconds = time.monotonic() - clicked
    return seconds, await image.evaluate(IMAGE_DIGEST_JS)


async def attend(browser, name: str, link: str, path: str, *, clicks: int, timeout_ms: int,
                 keep_open: bool = False, at_first_figure=None) -> tuple[Attendance, object]:
    """One student's lesson, start to end; never raises (failures are recorded). Returns the context.
    ``at_first_figure(name)``, if given, is called the moment the first figure is on screen (a benchmark
    samples the student's CPU there)."""
    record = Attendance(name)
    context = await browser.new_context(viewport=VIEWPORT)
    context.set_default_timeout(timeout_ms)  # a login form under a whole class's load: slow, not failed
    page = await context.new_page()
    page.on("pageerror", lambda error: record.page_errors.append(f"{page.url.split('?')[0]}: {str(error)[:200]}"))
    started = time.monotonic()
    try:
        await login_via_link(page, name, link, timeout_ms)
        record.link_to_lab_s = time.monotonic() - started
        state = await run_all(page, path, timeout_ms)
        record.cell_errors = error_outputs(state)
        panel = await first_figure(page, timeout_ms)
        record.link_to_figure_s = time.monotonic() - started
        if at_first_figure is not None:
            at_first_figure(name)
        digests = set()
        for _ in range(clicks):
            seconds, digest = await click_tie(page, path, panel, timeout_ms)
            record.click_s.append(seconds)
            digests.add(digest)
        if clicks >= 2 and len(digests) < 2:
            record.error = "the tie toggle brought no different figure"
    except Exception as error:  # a failure of this student, reported with the others
        record.error = (f"{type(error).__name__}: {str(error).splitlines()[0][:300]} (at {page.url}); "
                        f"page errors: {record.page_errors or 'none'}")
    if not keep_open:
        await context.close()
        context = None
    return record, context


async def attend_class(browser, names: list[str], link: str, path: str, *, clicks: int, timeout_ms: int,
                       keep_open: bool = False, at_first_figure=None):
    """All students at once, like a room clicking the same link in the same minute."""
    return await asyncio.gather(*(attend(browser, name, link, path, clicks=clicks, timeout_ms=timeout_ms,
                                         keep_open=keep_open, at_first_figure=at_first_figure)
                                  for name in names))


def summary(records: list[Attendance]) -> dict:
    firsts = sorted(r.link_to_figure_s for r in records if r.link_to_figure_s is not None)
    clicks = sorted(s for r in records for s in r.click_s)

    def pct(values, q):
        return values[min(len(values) - 1, round(q * (len(values) - 1)))] if values else None

    return {
        "students": len(records),
        "failures": sum(not r.ok for r in records),
        "link_to_figure_s": {"median": statistics.median(firsts) if firsts else None, "max": firsts[-1] if firsts else None},
        "click_to_figure_ms": {"median": 1000 * statistics.median(clicks) if clicks else None,
                               "p95": 1000 * pct(clicks, 0.95) if clicks else None, "clicks": len(clicks)},
    }
