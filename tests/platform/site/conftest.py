"""Fixtures of the site tests: the built site served on 127.0.0.1, Debian's Chromium, a tab that is offline.

Every request that is not for the local server is aborted (and recorded in ``page.blocked``): the pages
must show their figures, their maths (MathJax from build/site/mathjax/) and the stored state of their
widgets offline; only the README's badge images are then missing.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from delivery.site.pdf import ARGS, CHROMIUM, serve
from tools.course import LESSONS as COURSE

REPO = Path(__file__).resolve().parents[3]
SITE = Path(os.environ.get("LMTIE_SITE_DIR", REPO / "build" / "site"))
AXE = REPO / "build" / "site-node" / "node_modules" / "axe-core" / "axe.min.js"
LESSONS = [page for folder in (SITE, SITE / "zh_CN") for page in (folder / f"{lesson.stem}.html" for lesson in COURSE)
           if page.exists()]
INDEXES = [p for p in (SITE / "index.html", SITE / "zh_CN" / "index.html") if p.exists()]
TYPESET = "() => window.MathJax && MathJax.startup && MathJax.startup.promise.then(() => true)"


def page_id(path: Path) -> str:
    return path.relative_to(SITE).with_suffix("").as_posix()


@pytest.fixture(scope="session")
def server():
    with serve(SITE) as base:
        yield base


@pytest.fixture(scope="session")
def browser():
    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} not installed (delivery/install-chromium.sh)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        yield browser
        browser.close()


@pytest.fixture
def page(browser, server):
    context = browser.new_context(viewport={"width": 1300, "height": 900})
    blocked = []

    def local_only(route):
        if route.request.url.startswith(server):
            route.continue_()
        else:
            blocked.append(route.request.url)
            route.abort()

    context.route("**/*", local_only)
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda error: page.errors.append(str(error)))
    page.blocked = blocked
    yield page
    context.close()


def open_page(page, server, path: Path) -> None:
    """Load a page of the site and wait until MathJax (if the page has it) has typeset it."""
    page.goto(f"{server}/{path.relative_to(SITE).as_posix()}", wait_until="load")
    if page.evaluate("() => !!document.getElementById('MathJax-script')"):
        page.wait_for_function(TYPESET, timeout=60_000)
