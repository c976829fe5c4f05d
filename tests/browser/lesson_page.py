"""Drive one lesson in JupyterLab the way a learner does: open it, run it, click its toggles.

Each lesson gets its own browser page (its own JupyterLab tab). :meth:`LessonPage.start` opens the
notebook and, inside the page, clears and runs all cells without blocking Python, so the next
lessons can compute while the current one is being checked (see lessons.LessonPipeline).
Every wait is on a condition — the notebook model, the kernel status, an image's ``src`` — never a
sleep. The model is read through ``window.jupyterapp`` (the server runs with
``expose_app_in_browser``); the toggles are clicked through the real UI, as a person would.
"""

from __future__ import annotations

import secrets
import threading
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from playwright.sync_api import Locator, Page
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

WIDGET_ERROR_TEXT = "Error displaying widget"

# JavaScript run in the page. `path` is the notebook's path relative to the server root.
_FIND_PANEL = """
    const findPanel = (path) => {
        const app = window.jupyterapp;
        if (!app) return null;
        for (const widget of app.shell.widgets('main')) {
            if (widget.context && widget.context.path === path) return widget;
        }
        return null;
    };
"""

NOTEBOOK_STATE_JS = "(path) => {" + _FIND_PANEL + """
    const panel = findPanel(path);
    if (!panel || !panel.context.isReady || !panel.sessionContext.session) return null;
    const kernel = panel.sessionContext.session.kernel;
    const cells = [];
    const model = panel.content.model;
    for (let i = 0; i < model.cells.length; i++) {
        const cell = model.cells.get(i);
        if (cell.type !== 'code') continue;
        const outputs = cell.outputs.toJSON().map(o => ({
            type: o.output_type,
            stream: o.name || null,
            text: o.output_type === 'stream' ? String(o.text).slice(0, 2000)
                : o.output_type === 'error' ? `${o.ename}: ${o.evalue}` : null,
            widget: !!(o.data && o.data['application/vnd.jupyter.widget-view+json']),
        }));
        cells.push({index: i, count: cell.executionCount, state: cell.executionState || null, outputs});
    }
    return {kernel: kernel ? kernel.status : null, kernelId: kernel ? kernel.id : null, cells,
            run: window.__lmtieRun || null};
}"""

# Wait for the app, the notebook and an idle kernel; clear all outputs; run all cells. Returns at
# once: progress and errors are left in window.__lmtieRun for Python to poll.
START_RUN_JS = "(path) => {" + _FIND_PANEL + """
    const run = window.__lmtieRun = {status: 'starting', error: null};
    const until = async (condition, what, ms) => {
        const start = Date.now();
        while (!condition()) {
            if (Date.now() - start > ms) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
            await new Promise(resolve => setTimeout(resolve, 50));
        }
    };
    (async () => {
        await until(() => window.jupyterapp, 'the JupyterLab application', 90000);
        const app = window.jupyterapp;
        await app.restored;
        await until(() => findPanel(path), `the notebook tab of ${path}`, 90000);
        const panel = findPanel(path);
        await panel.context.ready;
        await panel.sessionContext.ready;
        await until(() => panel.sessionContext.session && panel.sessionContext.session.kernel
                    && panel.sessionContext.session.kernel.status === 'idle', 'an idle kernel', 90000);
        app.shell.activateById(panel.id);
        app.shell.collapseLeft();  // more room for the lesson (and its screenshot)
        await app.commands.execute('notebook:clear-all-cell-outputs');
        const cleared = () => { for (let i = 0; i < panel.content.model.cells.length; i++) {
            const cell = panel.content.model.cells.get(i);
            if (cell.type === 'code' && (cell.executionCount !== null || cell.outputs.length)) return false;
        } return true; };
        await until(cleared, 'all outputs to be cleared', 10000);
        run.status = 'running';
        await app.commands.execute('notebook:run-all-cells');
    })().catch(error => { run.error = String((error && error.stack) || error); });
}"""

# Done: the run was started, no cell is queued or running, the kernel is idle, and every code cell
# has run (or one failed, which stops Run All; the caller reports the error output).
RUN_DONE_JS = f"""(path) => {{
    const s = ({NOTEBOOK_STATE_JS})(path);
    if (window.__lmtieRun && window.__lmtieRun.error) return true;
    if (!s || !s.run || s.run.status !== 'running' || s.kernel !== 'idle') return false;
    if (s.cells.some(c => c.state === 'running')) return false;
    return s.cells.every(c => c.count !== null) || s.cells.some(c => c.outputs.some(o => o.type === 'error'));
}}"""

IMAGE_DIGEST_JS = """async (img) => {
    const bytes = new Uint8Array(await (await fetch(img.src)).arrayBuffer());
    const digest = await crypto.subtle.digest('SHA-256', bytes);
    return Array.from(new Uint8Array(digest)).map(b => b.toString(16).padStart(2, '0')).join('');
}"""

# After a click: the box flipped, a new figure arrived and is decoded, and the kernel is idle again
# (iopub keeps order: busy, the widget updates, idle — so the whole redraw has been received).
REDRAWN_JS = "([path, img, box, oldSrc, wasChecked]) => {" + _FIND_PANEL + """
    const panel = findPanel(path);
    const kernel = panel && panel.sessionContext.session && panel.sessionContext.session.kernel;
    return box.checked !== wasChecked && img.src !== oldSrc && img.complete && img.naturalWidth > 0
        && !!kernel && kernel.status === 'idle';
}"""

WIDGET_VIEWS_SHOWN_JS = f"""(expected) => [...document.querySelectorAll('.jp-OutputArea-output')].filter(
    o => o.querySelector(':scope > .jupyter-widgets') || o.textContent.includes('{WIDGET_ERROR_TEXT}')
).length >= expected"""


@dataclass
class PanelState:
    checked: bool
    src: str
    digest: str  # SHA-256 of the PNG bytes behind the blob URL


class LessonPage:
    """One lesson open in its own JupyterLab page."""

    def __init__(self, page: Page, lab, path: str, *, redraw_timeout_ms: int):
        self.page = page
        self.lab = lab
        self.path = path
        self.redraw_timeout_ms = redraw_timeout_ms
        self.js_errors: list[str] = []
        self.click_seconds: list[float] = []  # each tie click until its new figure was on screen
        page.on("pageerror", lambda error: self.js_errors.append(str(error)))

    # -- the notebook ----------------------------------------------------------------------------
    def start(self) -> None:
        """Open the lesson and start Run All inside the page; returns without waiting for the run.

        Each page uses its own, new workspace: the default one would also restore (and start kernels
        for) the notebooks other pages have open.
        """
        workspace = f"browser-test-{Path(self.path).stem}-{secrets.token_hex(4)}"
        self.page.goto(self.lab.url(f"lab/workspaces/{workspace}/tree/{self.path}"), wait_until="domcontentloaded")
        self.page.evaluate(START_RUN_JS, self.path)

    def state(self) -> dict:
        return self.page.evaluate(NOTEBOOK_STATE_JS, self.path)

    def run_done(self) -> bool:
        return self.page.evaluate(RUN_DONE_JS, self.path)

    def wait_until_run_done(self, timeout_ms: int) -> bool:
        """Wait up to ``timeout_ms`` for the run to finish; False if it has not yet."""
        try:
            self.page.wait_for_function(RUN_DONE_JS, arg=self.path, timeout=timeout_ms, polling=100)
        except PlaywrightTimeoutError:
            return False
        return True

    def finished_run_state(self) -> dict:
        """The notebook after Run All; raises if the page could not run it."""
        state = self.state()
        run = (state or {}).get("run") or {}
        if run.get("error"):
            raise AssertionError(f"{self.path}: could not run the notebook in JupyterLab: {run['error']}")
        return state

    def has_plugin(self, plugin_id: str) -> bool:
        return self.page.evaluate("(id) => window.jupyterapp.hasPlugin(id)", plugin_id)

    def shutdown_kernel(self) -> None:
        """Ask the server to stop this lesson's kernel, without waiting (frees CPU and memory)."""
        state = self.state()
        kernel_id = state and state.get("kernelId")
        if kernel_id:
            request = urllib.request.Request(self.lab.url(f"api/kernels/{kernel_id}"), method="DELETE")
            threading.Thread(target=_quietly_open, args=(request,), daemon=True).start()

    # -- widgets ---------------------------------------------------------------------------------
    def wait_for_widgets_rendered(self, expected_views: int) -> None:
        """Every widget output of the model shows a view in the page (or an error text, checked next)."""
        self.page.wait_for_function(WIDGET_VIEWS_SHOWN_JS, arg=expected_views, timeout=self.redraw_timeout_ms)

    def widget_errors(self) -> list[str]:
        return [text.strip()[:300] for text in self.page.locator(".jp-OutputArea-output").all_inner_texts()
                if WIDGET_ERROR_TEXT in text]

    def panels(self) -> Locator:
        return self.page.locator(".lmtie-panel")

    def predictions(self) -> Locator:
        return self.page.locator(".lmtie-predict")

    def answer_prediction(self, question: Locator) -> str:
        """Choose the first option (or type 1 in the number box), click *Check*, return the feedback text."""
        question.scroll_into_view_if_needed()
        radio = question.locator("input[type=radio]")
        if radio.count():
            radio.first.check()
        else:
            box = question.locator(".widget-text input").first
            box.fill("1")
            box.press("Enter")  # ipywidgets' Text syncs its value on Enter or blur
        question.locator("button", has_text="Check my prediction").click()
        feedback = question.locator(".lmtie-predict-feedback")
        feedback.wait_for(timeout=self.redraw_timeout_ms)
        return feedback.inner_text()

    @staticmethod
    def tie_checkbox(panel: Locator) -> Locator:
        """The panel's first control: the *tie weights* checkbox (TiePanel puts it first)."""
        return panel.locator(".widget-checkbox").first.locator("input[type=checkbox]")

    @staticmethod
    def tie_label(panel: Locator) -> str:
        return panel.locator(".widget-checkbox").first.inner_text().strip()

    def wait_for_image(self, panel: Locator) -> None:
        self.page.wait_for_function(
            "(img) => img.complete && img.naturalWidth > 0 && img.src.startsWith('blob:')",
            arg=panel.locator("img").first.element_handle(timeout=self.redraw_timeout_ms),
            timeout=self.redraw_timeout_ms,
        )

    def panel_state(self, panel: Locator) -> PanelState:
        image = panel.locator("img").first
        return PanelState(self.tie_checkbox(panel).is_checked(), image.get_attribute("src"),
                          image.evaluate(IMAGE_DIGEST_JS))

    def click_tie(self, panel: Locator, before: PanelState) -> PanelState:
        """Click the toggle like a person, then wait until the kernel has sent the redrawn figure."""
        box = self.tie_checkbox(panel)
        box.scroll_into_view_if_needed()
        clicked = time.monotonic()
        box.click()  # checks it is visible, enabled and not covered
        try:
            self.page.wait_for_function(
                REDRAWN_JS,
                arg=[self.path, panel.locator("img").first.element_handle(), box.element_handle(), before.src,
                     before.checked],
                timeout=self.redraw_timeout_ms,
            )
        except PlaywrightTimeoutError:
            now = self.panel_state(panel)
            hint = (" (the kernel sends nothing when the new PNG equals the old one: does the figure depend on"
                    " the tie at all?)" if now.checked != before.checked and now.src == before.src else "")
            raise AssertionError(
                f"{self.path}: {self.redraw_timeout_ms / 1000:.0f} s after clicking the tie toggle, the box "
                f"{'changed' if now.checked != before.checked else 'did NOT change'} and the figure "
                f"{'was' if now.src != before.src else 'was NOT'} redrawn{hint}; "
                f"panel text: {panel.inner_text()[:300]!r}"
            ) from None
        self.click_seconds.append(time.monotonic() - clicked)  # what a learner feels: click → new figure
        return self.panel_state(panel)


def _quietly_open(request: urllib.request.Request) -> None:
    try:
        urllib.request.urlopen(request, timeout=30).close()
    except Exception:  # the server may already be stopping; it shuts its kernels down anyway
        pass
