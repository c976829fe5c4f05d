"""Print the site's pages to PDF with Chromium (Playwright's ``page.pdf()``), after MathJax has typeset them.

The pages are served over http on 127.0.0.1 (MathJax loads its fonts from build/site/mathjax/); every
request for another host is aborted, so a PDF shows what the offline site shows. Chromium needs a CJK
font for the Chinese edition (Debian: ``apt-get install fonts-wqy-microhei``); without one its PDFs would
print blank boxes, so that is refused here.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import shutil
import subprocess
import threading
import time
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]
MIN_BYTES = 20_000  # a lesson with figures prints to several hundred KB; a blank page to a few KB
TYPESET = "() => window.MathJax && MathJax.startup && MathJax.startup.promise.then(() => true)"


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@contextlib.contextmanager
def serve(folder: Path):
    """``folder`` over http on a free port of 127.0.0.1; yields the base URL."""
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(folder)))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


def has_cjk_font() -> bool:
    if not shutil.which("fc-list"):
        return False
    return bool(subprocess.run(["fc-list", ":lang=zh"], capture_output=True, text=True).stdout.strip())


def print_pages(site: Path, jobs: list[tuple[Path, Path, str]]) -> int:
    """Print each (page, pdf path, title); return the number of problems (each one printed)."""
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        print(f"make pdf: {CHROMIUM} is missing (delivery/install-chromium.sh)")
        return 1
    if any("zh_CN" in page.parts for page, _, _ in jobs) and not has_cjk_font():
        print("make pdf: no Chinese font for Chromium (fc-list :lang=zh is empty): "
              "apt-get install -y fonts-wqy-microhei (or fonts-noto-cjk)")
        return 1
    problems = 0
    with serve(site) as base, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        context = browser.new_context()
        context.route("**/*", lambda route: route.continue_() if route.request.url.startswith(base) else route.abort())
        tab = context.new_page()
        for page, pdf, title in jobs:
            started = time.perf_counter()
            tab.goto(f"{base}/{page.relative_to(site).as_posix()}", wait_until="load")
            tab.wait_for_function(TYPESET, timeout=60_000)
            tab.emulate_media(media="print")
            pdf.parent.mkdir(parents=True, exist_ok=True)
            tab.pdf(path=str(pdf), format="A4", print_background=True, outline=True, tagged=True,
                    margin={"top": "12mm", "bottom": "12mm", "left": "10mm", "right": "10mm"})
            size = pdf.stat().st_size
            bad = size < MIN_BYTES
            problems += bad
            print(f"{pdf.relative_to(site.parent) if pdf.is_relative_to(site.parent) else pdf}: {size // 1024} KiB, "
                  f"{time.perf_counter() - started:.1f} s" + (f"; TOO SMALL for '{title}'" if bad else ""))
        browser.close()
    return problems
