"""Render every lesson, as committed (executed), to a static web page, plus an index: build/site/.

- build/site/NN_name.html (English) and build/site/zh_CN/NN_name.html (中文版, ``lang="zh-CN"``): nbconvert's
  HTML exporter (lab template, delivery/site/page.py), figures inline as data: URIs, each with a text
  alternative read from the lesson (delivery/site/alt_text.py); a bar on each page links the index, the
  other-language version and (with ``--pdf``) the PDF.
- Widgets show their stored state with no JavaScript and no CDN (delivery/site/widgets.py).
- Links between lessons (``](04_x.ipynb)``) point to the pages (``04_x.html``).
- MathJax 3 is served from build/site/mathjax/ (copied from the npm package in build/site-node/): the
  maths renders offline; nothing is fetched from another host.
- build/site/index.html and zh_CN/index.html: the lesson table, titles and study times read from each
  lesson's first markdown cell (``# Lesson NN — Title`` / ``# 第 NN 课 — 标题``, ``**Study time:**`` /
  ``**学习时间：**``), tolerant of lessons in mid-rewrite.
- ``--pdf``: also print every page with Chromium to build/site/pdf/[zh_CN/]NN_name.pdf (delivery/site/pdf.py)
  and link the PDFs from the indexes and the pages.
- build/site/[zh_CN/]search.html: search over the edition's sections, offline (delivery/site/search.py). The bar
  on each page also links the previous and the next lesson, the search, and the lesson in Colab and Binder.

Why not Jupyter Book 2 (mystmd 1.8.3, tried 2026-12-05): its site theme is published only on GitHub (not on npm
or PyPI), so it cannot be installed from the registries a course machine reaches; built from source for the
trial, its pages still loaded KaTeX, font-awesome and MathJax from CDNs, showed panels as "a Jupyter kernel
connection is required", used the output's repr as figure alt text, kept ``lang="en"`` on the Chinese pages and
failed axe on every page (scrollable code regions, region, target size), and its PDF export needs templates from
the network. Its navigation, search and launch links are what this site adds by hand (delivery/site/search.py,
delivery/site/page.py).

Usage: python -m delivery.make_site [--out build/site] [--pdf] [notebooks ...]
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
import time
from pathlib import Path

import nbformat
from jinja2 import DictLoader
from nbconvert import HTMLExporter

from delivery.colab import stamped_ref
from delivery.site import alt_text, page, search, widgets
from delivery.site.index_page import index_page
from tools.course import notebooks

REPO = Path(__file__).resolve().parents[1]
ZH = "zh_CN"
TITLE = {"en": r"^#\s*Lesson\s*(\d+)\s*[—–-]\s*(.+)$", "zh-CN": r"^#\s*第\s*(\d+)\s*课\s*[—–-]\s*(.+)$"}
STUDY = {"en": r"\*\*Study time:?\*\*:?\s*(.+?)(?:\n\s*\n|\n\*\*|\Z)",
         "zh-CN": r"\*\*学习时间[:：]?\*\*[:：]?\s*(.+?)(?:\n\s*\n|\n\*\*|\Z)"}
ABOUT = {"en": r"^about\s+\d+\s*min\w*\s*[.;,:—–-]*\s*", "zh-CN": r"^约\s*\d+\s*分钟\s*[。；，：—–-]*\s*"}
MINUTES = {"en": r"(\d+)\s*min", "zh-CN": r"(\d+)\s*分钟"}
PAGE_TITLE = {"en": "Lesson {n} — {t}", "zh-CN": "第 {n} 课 — {t}"}


def lesson_links_to_pages(nb) -> None:
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source = re.sub(r"\]\((\d\d_[\w-]+)\.ipynb\)", r"](\1.html)", cell.source)


def lesson_info(nb, path: Path, lang: str = "en") -> dict:
    """Title and study time from the first markdown cell; fall back to the file name."""
    first = next((c.source for c in nb.cells if c.cell_type == "markdown"), "")
    title = re.search(TITLE[lang], first, re.MULTILINE)
    study = re.search(STUDY[lang], first, re.DOTALL)
    minutes = re.search(MINUTES[lang], study.group(1)) if study else None
    detail = re.sub(ABOUT[lang], "", " ".join(study.group(1).replace("`", "").split())) if study else ""
    return {"number": title.group(1) if title else path.name[:2],
            "title": title.group(2).strip() if title else path.stem[3:].replace("_", " ").capitalize(),
            "study": detail[:1].upper() + detail[1:],
            "minutes": int(minutes.group(1)) if minutes else None}


def errors_in(nb) -> list[str]:
    return [f"{o.get('ename', 'stderr')}" for c in nb.cells for o in c.get("outputs", [])
            if o.get("output_type") == "error" or (o.get("output_type") == "stream" and o.get("name") == "stderr")]


def edition_of(path: Path) -> str:
    return "zh-CN" if path.parent.name == ZH else "en"


def render(path: Path, out: Path, exporter: HTMLExporter, *, pdf: bool,
           neighbours: tuple[str | None, str | None]) -> tuple[dict, list[str]]:
    """Write one lesson's page (``neighbours``: the stems of the lessons before and after it in its edition);
    return its index row and its error outputs."""
    started, lang = time.perf_counter(), edition_of(path)
    nb = nbformat.read(path, as_version=4)
    info, ref = lesson_info(nb, path, lang), stamped_ref(nb)
    errors = errors_in(nb)
    names = alt_text.imports(nb)
    count = widgets.static_widgets(nb, lang, lambda i: alt_text.describe(nb, i, lang=lang, panel=True, names=names))
    figures = alt_text.add_alt_texts(nb, lang)
    lesson_links_to_pages(nb)
    nb.metadata["title"] = PAGE_TITLE[lang].format(n=info["number"], t=info["title"])
    other = (path.parent.parent if lang == "zh-CN" else path.parent / ZH) / path.name
    resources = {"metadata": {"name": path.stem}, "lmtie": {"root": "../" if lang == "zh-CN" else ""}}
    body, _ = exporter.from_notebook_node(nb, resources=resources)
    nav = page.nav_bar(lang, path.stem, has_other=other.exists(), pdf=pdf, neighbours=neighbours, ref=ref)
    target = out / (f"{ZH}/" if lang == "zh-CN" else "") / f"{path.stem}.html"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(page.finish(body, lang, nav), encoding="utf-8")
    executed = any(c.get("outputs") for c in nb.cells if c.cell_type == "code")
    print(f"{target.relative_to(REPO) if target.is_relative_to(REPO) else target}: {figures} figure(s), "
          f"{count} widget(s) shown in their stored state, {target.stat().st_size // 1024} KiB, "
          f"{time.perf_counter() - started:.1f} s" + (f"; ERROR OUTPUTS {errors}" if errors else "")
          + ("" if executed else "; WARNING: no stored outputs (execute the lesson first)"))
    pdf_name = f"pdf/{ZH + '/' if lang == 'zh-CN' else ''}{path.stem}.pdf"
    return info | {"page": target.name, "lang": lang, "html": target, "pdf": pdf_name}, errors


def build(paths: list[Path], out: Path, *, pdf: bool = False) -> int:
    out.mkdir(parents=True, exist_ok=True)
    page.vendor_mathjax(out)
    if not pdf:
        shutil.rmtree(out / "pdf", ignore_errors=True)  # no stale PDFs beside pages that do not link them
    exporter = HTMLExporter(template_name="lab", extra_loaders=[DictLoader({"site.html.j2": page.TEMPLATE})],
                            template_file="site.html.j2")
    rows, problems = [], 0
    for path in paths:
        edition = [other.stem for other in paths if edition_of(other) == edition_of(path)]
        at = edition.index(path.stem)
        neighbours = (edition[at - 1] if at else None, edition[at + 1] if at + 1 < len(edition) else None)
        row, errors = render(path, out, exporter, pdf=pdf, neighbours=neighbours)
        rows.append(row)
        problems += bool(errors)
    if pdf:
        from delivery.site.pdf import print_pages

        problems += print_pages(out, [(r["html"], out / r["pdf"], r["title"]) for r in rows])
    for lang in ("en", "zh-CN"):
        edition = [r for r in rows if r["lang"] == lang]
        if not edition:
            continue
        folder = out / ZH if lang == "zh-CN" else out
        for row in edition:  # the PDF's path from the edition's index
            row["pdf"] = ("../" if lang == "zh-CN" else "") + row["pdf"]
        other = any(r["lang"] != lang for r in rows)
        (folder / "index.html").write_text(index_page(edition, lang, pdf=pdf, other=other), encoding="utf-8")
        indexed = search.write(folder, [row["html"] for row in edition], lang)
        print(f"{folder / 'index.html'}: {len(edition)} lessons ({lang}); search.html: {indexed} sections")
    return 1 if problems else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("notebooks", nargs="*", type=Path)
    parser.add_argument("--out", type=Path, default=REPO / "build" / "site")
    parser.add_argument("--pdf", action="store_true", help="also print each page to PDF (Chromium) and link it")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    lessons = notebooks() + notebooks(chinese=True)
    code = build(args.notebooks or lessons, args.out, pdf=args.pdf)
    print(f"site built in {time.perf_counter() - started:.0f} s")
    return code


if __name__ == "__main__":
    sys.exit(main())
