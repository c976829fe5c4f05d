"""The PDFs of `make pdf` (delivery/site/pdf.py: Chromium's print-to-PDF of each page of the site).

Each lesson of both editions has build/site/pdf/[zh_CN/]NN_name.pdf, linked from its index; each is a real
document (more than a few pages, several hundred KB with its figures) whose text, extracted by poppler's
pdftotext, holds the lesson's title, in Chinese for the Chinese edition (so a CJK font was embedded).
Run by `make test-site` and `make test-pdf` (each builds the site with its PDFs first); skipped if the site has none.
"""

from __future__ import annotations

import html
import re
import shutil
import subprocess

import pytest

from .conftest import INDEXES, LESSONS, SITE, page_id

PDF = SITE / "pdf"
pytestmark = [pytest.mark.site, pytest.mark.skipif(not PDF.is_dir(), reason=f"no {PDF}: run `make pdf`")]


def pdf_of(lesson):
    return PDF / ("zh_CN" if lesson.parent.name == "zh_CN" else "") / f"{lesson.stem}.pdf"


def title_of(lesson) -> str:
    found = re.search(r"<title>(.*?)</title>", lesson.read_text(encoding="utf-8"), re.DOTALL)
    return html.unescape(found.group(1)).strip()


@pytest.mark.parametrize("index", INDEXES, ids=page_id)
def test_index_links_every_pdf(index):
    links = re.findall(r"href='([^']+\.pdf)'", index.read_text(encoding="utf-8"))
    edition = [p for p in LESSONS if p.parent == index.parent]
    assert len(links) == len(edition) > 0
    assert all((index.parent / link).resolve() == pdf_of(lesson).resolve() for link, lesson in zip(links, edition, strict=True))


@pytest.mark.parametrize("lesson", LESSONS, ids=page_id)
def test_pdf_exists_and_holds_the_title(lesson):
    pdf = pdf_of(lesson)
    assert pdf.exists(), f"{pdf} missing"
    data = pdf.read_bytes()
    assert data.startswith(b"%PDF-") and len(data) > 100_000, f"{pdf}: {len(data)} bytes"
    if not shutil.which("pdftotext"):
        pytest.fail("pdftotext missing: apt-get install -y poppler-utils")
    pages = int(re.search(r"Pages:\s+(\d+)", subprocess.run(["pdfinfo", pdf], capture_output=True, text=True,
                                                              check=True).stdout).group(1))
    assert pages >= 3, f"{pdf}: {pages} page(s)"
    text = subprocess.run(["pdftotext", "-l", "3", pdf, "-"], capture_output=True, text=True, check=True).stdout
    title = title_of(lesson)
    squeezed = re.sub(r"\s+", "", text)  # a title wrapped over two lines, CJK with no spaces
    assert re.sub(r"\s+", "", title) in squeezed, f"{pdf}: title {title!r} not in its first pages: {text[:300]!r}"
