"""Drive lessons in JupyterLab the way a learner does: open them, run them, click their toggles.

All lessons share one browser page, one JupyterLab, as a learner's tabs do: booting JupyterLab costs
more CPU than opening a notebook in it, so one boot serves every lesson. :meth:`LessonPage.start`
opens a lesson in a background tab (it does not take the focus from the lesson being checked) and,
inside the page, clears and runs all its cells without blocking Python, so the next lessons compute
while the current one is checked (see lessons.LessonPipeline). :meth:`LessonPage.activate` brings a
lesson to the front before it is checked; every locator is scoped to that lesson's tab. Every wait
is on a condition — the notebook model, the kernel status, an image's ``src`` — never a sleep. The
model is read through ``window.jupyterapp`` (the server runs with ``expose_app_in_browser``); the
toggles are clicked through the real UI, as a person would.
"""

from __future__ import annotations

import secrets
import threading
import time
import urllib.request
from dataclasses import dataclass

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
            run: (window.__lmtieRuns || {})[path] || null};
}"""

# Open the notebook in a background tab (or find it, if it is open already), wait for an idle kernel,
# clear all outputs, run all cells: commands aimed at this notebook's tab by id, so the tab the learner
# (or the test) is looking at keeps the focus. Returns at once: progress and errors are left in
# window.__lmtieRuns[path] for Python to poll.
START_RUN_JS = "(path) => {" + _FIND_PANEL + """
    const runs = window.__lmtieRuns = window.__lmtieRuns || {};
    const run = runs[path] = {status: 'starting', error: null};
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
        if (!findPanel(path)) {
            await app.commands.execute('docmanager:open', {path, options: {mode: 'tab-after', activate: false}});
        }
        await until(() => findPanel(path), `the notebook tab of ${path}`, 90000);
        const panel = findPanel(path);
        await panel.context.ready;
        await panel.sessionContext.ready;
        await until(() => panel.sessionContext.session && panel.sessionContext.session.kernel
                    && panel.sessionContext.session.kernel.status === 'idle', 'an idle kernel', 90000);
        const target = {widgetId: panel.id, activate: false};
        await app.commands.execute('notebook:clear-all-cell-outputs', target);
        const cleared = () => { for (let i = 0; i < panel.content.model.cells.length; i++) {
            const cell = panel.content.model.cells.get(i);
            if (cell.type === 'code' && (cell.executionCount !== null || cell.outputs.length)) return false;
        } return true; };
        await until(cleared, 'all outputs to be cleared', 10000);
        run.status = 'running';
        await app.commands.execute('notebook:run-all-cells', target);
    })().catch(error => { run.error = String((error && error.stack) || error); });
}"""

# Bring a lesson's tab to the front (the left sidebar folded away: more room for the lesson and its
# screenshot); returns the tab's DOM id, which scopes every locator to this lesson.
ACTIVATE_JS = "(path) => {" + _FIND_PANEL + """
    const app = window.jupyterapp;
    const panel = findPanel(path);
    app.shell.collapseLeft();
    app.shell.activateById(panel.id);
    return panel.node.id;
}"""

# Close a lesson's tab without the "save your changes?" dialog (the run made it dirty; the copy is scratch).
CLOSE_TAB_JS = "(path) => {" + _FIND_PANEL + """
    const panel = findPanel(path);
    if (panel) { panel.context.model.dirty = false; panel.dispose(); }
}"""

# Done: the run was started, no cell is queued or running, the kernel is idle, and every code cell
# has run (or one failed, which stops Run All; the caller reports the error output). Polled while a
# lesson runs, so it reads the model without copying outputs (a figure is tens of kB of base64).
RUN_DONE_JS = "(path) => {" + _FIND_PANEL + """
    const run = (window.__lmtieRuns || {})[path];
    if (run && run.error) return true;
    const panel = findPanel(path);
    const kernel = panel && panel.sessionContext.session && panel.sessionContext.session.kernel;
    if (!run || run.status !== 'running' || !kernel || kernel.status !== 'idle') return false;
    let allRun = true, failed = false;
    const cells = panel.content.model.cells;
    for (let i = 0; i < cells.length; i++) {
        const cell = cells.get(i);
        if (cell.type !== 'code') continue;
        if (cell.executionState === 'running') return false;
        if (cell.executionCount === null) allRun = false;
        for (let j = 0; j < cell.outputs.length; j++) failed = failed || cell.outputs.get(j).type === 'error';
    }
    return allRun || failed;
}"""

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

WIDGET_VIEWS_SHOWN_JS = f"""([tabId, expected]) => [...document.getElementById(tabId).querySelectorAll('.jp-OutputArea-output')].filter(
    o => o.querySelector(':scope > .jupyter-widgets') || o.textContent.includes('{WIDGET_ERROR_TEXT}')
).length >= expected"""


@dataclass
class PanelState:
    checked: bool
    src: str
    digest: str  # SHA-256 of the PNG bytes behind the blob URL


def open_jupyterlab(page: Page, lab, timeout_ms: int) -> None:
    """Load JupyterLab once in ``page``, in a new, empty workspace (the default one would restore, and
    start kernels for, whatever an earlier session had open)."""
    page.goto(lab.url(f"lab/workspaces/browser-test-{secrets.token_hex(4)}"), wait_until="domcontentloaded")
    page.wait_for_function("() => !!window.jupyterapp", timeout=timeout_ms)
    page.evaluate("async () => { await window.jupyterapp.restored; }")


class LessonPage:
    """One lesson, open in its own tab of the shared JupyterLab page."""

    def __init__(self, page: Page, lab, path: str, *, redraw_timeout_ms: int):
        self.page = page
        self.lab = lab
        self.path = path
        self.redraw_timeout_ms = redraw_timeout_ms
        self.js_errors: list[str] = []  # the page's JavaScript errors while this lesson was open
        self.click_seconds: list[float] = []  # each tie click until its new figure was on screen
        self.tab: Locator | None = None  # this lesson's tab, once activated
        page.on("pageerror", self._record_error)

    def _record_error(self, error) -> None:
        self.js_errors.append(str(error))

    # -- the notebook ----------------------------------------------------------------------------
    def start(self) -> None:
        """Open the lesson in a background tab and start Run All inside the page; returns at once."""
        self.page.evaluate(START_RUN_JS, self.path)

    def activate(self) -> None:
        """Bring this lesson's tab to the front; from now on every locator looks inside it only."""
        tab_id = self.page.evaluate(ACTIVATE_JS, self.path)
        self.tab = self.page.locator(f"#{tab_id}")
        self.tab.wait_for(state="visible", timeout=self.redraw_timeout_ms)

    def close(self) -> None:
        """Stop the kernel (without waiting) and close the tab; a broken page must not hide a test's failure."""
        try:
            self.shutdown_kernel()
            self.page.evaluate(CLOSE_TAB_JS, self.path)
        except Exception as error:  # the server stops its kernels when it stops
            print(f"(closing {self.path} failed: {error})")
        finally:
            self.page.remove_listener("pageerror", self._record_error)

    def state(self) -> dict:
        return self.page.evaluate(NOTEBOOK_STATE_JS, self.path)

    def run_done(self) -> bool:
        return self.page.evaluate(RUN_DONE_JS, self.path)

    def wait_until_run_done(self, timeout_ms: int) -> bool:
        """Wait up to ``timeout_ms`` for the run to finish; False if it has not yet."""
        try:
            self.page.wait_for_function(RUN_DONE_JS, arg=self.path, timeout=timeout_ms, polling=250)
        except PlaywrightTimeoutError:
            return False
        return True

    def finished_run_state(self) -> dict:
        """The notebook after Run All; raises if the page could not run it."""
        error = self.page.evaluate("(path) => ((window.__lmtieRuns || {})[path] || {}).error || null", self.path)
        if error:
            raise AssertionError(f"{self.path}: could not run the notebook in JupyterLab: {error}")
        return self.state()

    def executed_notebook(self) -> dict:
        """The notebook as JupyterLab holds it after the run: cells with their new outputs (nbformat JSON)."""
        return self.page.evaluate("(path) => {" + _FIND_PANEL + " return findPanel(path).content.model.toJSON(); }",
                                  self.path)

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
        self.page.wait_for_function(WIDGET_VIEWS_SHOWN_JS, arg=[self._tab_id(), expected_views],
                                    timeout=self.redraw_timeout_ms)

    def widget_errors(self) -> list[str]:
        return [text.strip()[:300] for text in self.in_tab(".jp-OutputArea-output").all_text_contents()
                if WIDGET_ERROR_TEXT in text]

    def in_tab(self, selector: str) -> Locator:
        """``selector`` inside this lesson's tab (other lessons may be open in the same page)."""
        assert self.tab is not None, f"{self.path}: activate() the lesson before looking into it"
        return self.tab.locator(selector)

    def _tab_id(self) -> str:
        return self.tab.get_attribute("id")

    def panels(self) -> Locator:
        return self.in_tab(".lmtie-panel")

    def predictions(self) -> Locator:
        return self.in_tab(".lmtie-predict")

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
        return feedback.text_content().strip()

    @staticmethod
    def tie_checkbox(panel: Locator) -> Locator:
        """The panel's first control: the *tie weights* checkbox (TiePanel puts it first)."""
        return panel.locator(".widget-checkbox").first.locator("input[type=checkbox]")

    @staticmethod
    def tie_label(panel: Locator) -> str:
        return panel.locator(".widget-checkbox").first.text_content().strip()

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
                f"panel text: {panel.text_content()[:300]!r}"
            ) from None
        self.click_seconds.append(time.monotonic() - clicked)  # what a learner feels: click → new figure
        return self.panel_state(panel)


def _quietly_open(request: urllib.request.Request) -> None:
    try:
        urllib.request.urlopen(request, timeout=30).close()
    except Exception:  # the server may already be stopping; it shuts its kernels down anyway
        pass
