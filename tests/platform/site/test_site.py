"""The static site (`make site`) as a reader sees it: Debian's Chromium, the pages served over http on 127.0.0.1.

Skipped unless build/site was built (`make site`; `make test-site` builds it, then runs this file).
Offline (conftest.py): the figures, the maths and the stored widgets must show with every other host blocked.
"""

from __future__ import annotations

import re

import pytest

from .axe import assert_accessible
from .conftest import INDEXES, LESSONS, SITE, open_page, page_id

PLACEHOLDER = "No description has been provided for this image"
pytestmark = [pytest.mark.site,
              pytest.mark.skipif(not (SITE / "index.html").exists(), reason=f"no site in {SITE}: run `make site`")]


def test_every_lesson_in_both_editions():
    english = {p.name for p in LESSONS if p.parent == SITE}
    chinese = {p.name for p in LESSONS if p.parent.name == "zh_CN"}
    assert english and english == chinese, (english, chinese)
    assert len(INDEXES) == 2


@pytest.mark.parametrize("index", INDEXES, ids=page_id)
def test_index_lists_every_lesson_and_switches_language(page, server, index):
    open_page(page, server, index)
    edition = sorted(p.name for p in LESSONS if p.parent == index.parent)
    rows = page.locator("#lessons tbody tr")
    assert rows.count() == len(edition) > 0
    links = rows.locator("td:nth-child(2) a").evaluate_all("links => links.map(a => a.getAttribute('href'))")
    assert links == edition
    zh = index.parent.name == "zh_CN"
    assert page.evaluate("document.documentElement.lang") == ("zh-CN" if zh else "en")
    switch = page.locator("a.lmtie-lang")
    assert switch.count() == 1
    switch.click()
    page.wait_for_load_state("load")
    assert page.evaluate("document.documentElement.lang") == ("en" if zh else "zh-CN")
    assert not page.errors, page.errors


IMAGES = """() => Array.from(document.querySelectorAll('.jp-OutputArea-output img')).map(img => ({
    loaded: img.complete && img.naturalWidth > 0, widget: !!img.closest('.lmtie-static-widget'),
    alt: img.getAttribute('alt') || ''}))"""


@pytest.mark.parametrize("lesson", LESSONS, ids=page_id)
def test_lesson_page_figures_maths_widgets_and_axe(page, server, lesson):
    open_page(page, server, lesson)
    zh = lesson.parent.name == "zh_CN"
    assert page.title().startswith("第 " if zh else "Lesson "), page.title()
    assert page.evaluate("document.documentElement.lang") == ("zh-CN" if zh else "en")
    images = page.evaluate(IMAGES)
    assert images, f"{lesson.name}: no figure in the page (was the lesson executed before `make site`?)"
    broken = [i for i, image in enumerate(images) if not image["loaded"]]
    assert not broken, f"{lesson.name}: figure(s) {broken} of {len(images)} did not load"
    weak = [image["alt"] for image in images if len(image["alt"]) < 20 or PLACEHOLDER in image["alt"]]
    assert not weak, f"{lesson.name}: figures without a real text alternative: {weak}"
    errors = page.locator('[data-mime-type="application/vnd.jupyter.stderr"], .jp-OutputArea-output.jp-mod-error')
    assert errors.count() == 0, f"{lesson.name}: error output: {errors.first.inner_text()[:300]}"
    text = page.locator("main").inner_text()
    assert not re.search(r"\b(VBox|HBox|Image)\(children=|\bVBox\(", text), f"{lesson.name}: a widget shows as a text repr"
    for widget in page.locator(".lmtie-static-widget").all():
        if "lmtie-panel" in (widget.inner_html() or ""):
            assert widget.locator("img").count() >= 1, f"{lesson.name}: a stored panel shows no figure"
    # MathJax from the build, offline: formulas typeset, none in error, nothing fetched from elsewhere.
    assert page.locator("mjx-container").count() > 0, f"{lesson.name}: no formula typeset by MathJax"
    assert page.locator("mjx-merror").count() == 0, f"{lesson.name}: a formula failed: {page.locator('mjx-merror').first.inner_text()}"
    assert not [url for url in page.blocked if "mathjax" in url.lower()], page.blocked
    other = page.locator("nav.lmtie-bar a.lmtie-lang")
    assert other.count() == 1, f"{lesson.name}: no link to the other-language version"
    assert (lesson.parent / other.get_attribute("href")).resolve().exists()
    edition = [path for path in LESSONS if path.parent == lesson.parent]
    at = edition.index(lesson)
    for rel, neighbour in (("prev", edition[at - 1] if at else None),
                           ("next", edition[at + 1] if at + 1 < len(edition) else None)):
        hrefs = page.locator(f"nav.lmtie-bar a[rel={rel}]").evaluate_all("links => links.map(a => a.getAttribute('href'))")
        assert hrefs == ([neighbour.name] if neighbour else []), (lesson, rel, hrefs)
    launch = page.locator("nav.lmtie-bar a.lmtie-launch").evaluate_all("links => links.map(a => a.href)")
    assert [url.split("/")[2] for url in launch] == ["colab.research.google.com", "mybinder.org"], launch
    assert not page.errors, page.errors
    assert_accessible(page, lesson)  # axe-core, on this same load (tests/platform/site/axe.py)


IMG = re.compile(r"<img\b[^>]*>")
ATTR = re.compile(r"""\b(src|alt)=(?:"([^"]*)"|'([^']*)')""")


@pytest.mark.parametrize("page_file", LESSONS + INDEXES, ids=page_id)
def test_no_placeholder_alt_text_and_no_cdn(page_file):
    html = page_file.read_text(encoding="utf-8")
    assert PLACEHOLDER not in html
    for tag in IMG.findall(html):
        attrs = {name: a or b for name, a, b in ATTR.findall(tag)}
        assert attrs.get("alt"), f"{page_file.name}: an image without alt: {tag[:120]}"
        if attrs.get("src", "").startswith("data:"):  # a figure: more than a word
            assert len(attrs["alt"]) >= 20, f"{page_file.name}: figure alt too thin: {attrs['alt']!r}"
    assert not re.search(r"src=[\"']https?://[^\"']*(mathjax|cdnjs|unpkg|jsdelivr)", html, re.IGNORECASE)


SEARCHES = {"": "gradient", "zh_CN": "梯度"}  # an edition's folder under the site: a word most of its lessons use


@pytest.mark.parametrize("folder", SEARCHES, ids=lambda folder: folder or "en")
def test_search_finds_sections_offline_and_opens_them(page, server, folder):
    search = SITE / folder / "search.html"
    open_page(page, server, search)
    page.fill("#q", SEARCHES[folder])
    results = page.locator("#results li a")
    results.first.wait_for(timeout=10_000)
    hrefs = results.evaluate_all("links => links.map(a => a.getAttribute('href'))")
    pages = {href.split("#")[0] for href in hrefs}
    assert len(pages) >= 5, f"{SEARCHES[folder]!r} found sections of {sorted(pages)} only"
    target, _, anchor = hrefs[0].partition("#")
    assert (search.parent / target).exists() and anchor
    assert f'id="{anchor}"' in (search.parent / target).read_text(encoding="utf-8"), hrefs[0]
    page.fill("#q", "zzqx no such word")
    assert page.locator("#results li").count() == 0 and page.locator("#said").inner_text()
    assert not page.errors and not page.blocked, (page.errors, page.blocked)
    assert_accessible(page, search)
