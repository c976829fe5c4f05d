"""The static site (`make site`) as a reader sees it: Debian's Chromium, the pages served over http on 127.0.0.1.

Skipped unless build/site was built (`make site`; `make test-site` builds it, then runs this file).
Every request that is not for the local server is aborted: the pages must show their figures and
the stored state of their widgets offline (MathJax, from a CDN, and the badge images are then missing,
which is allowed: formulas show as TeX).
"""

from __future__ import annotations

import functools
import http.server
import os
import re
import threading
from pathlib import Path

import pytest

SITE = Path(os.environ.get("LMTIE_SITE_DIR", Path(__file__).resolve().parents[3] / "build" / "site"))
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]
PAGES = sorted(SITE.glob("[0-9][0-9]_*.html"))

pytestmark = [pytest.mark.site,
              pytest.mark.skipif(not (SITE / "index.html").exists(), reason=f"no site in {SITE}: run `make site`")]


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def server():
    handler = functools.partial(QuietHandler, directory=str(SITE))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture(scope="module")
def browser():
    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} not installed (tools/install-chromium.sh)")
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


def test_index_lists_every_lesson(page, server):
    page.goto(f"{server}/index.html", wait_until="load")
    rows = page.locator("#lessons tbody tr")
    assert rows.count() == len(PAGES) > 0
    links = rows.locator("a").evaluate_all("links => links.map(a => a.getAttribute('href'))")
    assert links == [p.name for p in PAGES]
    for row in rows.all_inner_texts():
        assert re.search(r"Lesson|\w", row)
    assert not page.errors, page.errors


IMAGES = """() => Array.from(document.querySelectorAll('.jp-OutputArea-output img')).map(img => ({
    loaded: img.complete && img.naturalWidth > 0, widget: !!img.closest('.lmtie-static-widget'),
    width: img.naturalWidth}))"""


@pytest.mark.parametrize("lesson", PAGES, ids=[p.stem for p in PAGES])
def test_lesson_page_shows_figures_and_stored_widgets(page, server, lesson):
    page.goto(f"{server}/{lesson.name}", wait_until="load")
    assert page.title().startswith("Lesson "), page.title()
    images = page.evaluate(IMAGES)
    assert images, f"{lesson.name}: no figure in the page (was the lesson executed before `make site`?)"
    broken = [i for i, image in enumerate(images) if not image["loaded"]]
    assert not broken, f"{lesson.name}: figure(s) {broken} of {len(images)} did not load"
    errors = page.locator('[data-mime-type="application/vnd.jupyter.stderr"], .jp-OutputArea-output.jp-mod-error')
    assert errors.count() == 0, f"{lesson.name}: error output: {errors.first.inner_text()[:300]}"
    text = page.locator("body").inner_text()
    assert not re.search(r"\b(VBox|HBox|Image)\(children=|\bVBox\(", text), f"{lesson.name}: a widget shows as a text repr"
    for widget in page.locator(".lmtie-static-widget").all():
        if "lmtie-panel" in (widget.inner_html() or ""):
            assert widget.locator("img").count() >= 1, f"{lesson.name}: a stored panel shows no figure"
    assert not page.errors, page.errors
