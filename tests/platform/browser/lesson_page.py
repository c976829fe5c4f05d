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

from delivery.lab.scripts import (
    ACTIVATE_JS,
    CLOSE_TAB_JS,
    IMAGE_DIGEST_JS,
    NOTEBOOK_STATE_JS,
    REDRAWN_JS,
    RUN_DONE_JS,
    START_RUN_JS,
    WIDGET_ERROR_TEXT,
    WIDGET_VIEWS_SHOWN_JS,
)


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
        question.locator("button").first.click()  # its one button, "Check my prediction" in the lesson's language
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
