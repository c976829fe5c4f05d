"""Render every lesson, as committed (executed), to a static web page, plus an index: build/site/.

- build/site/NN_name.html: nbconvert's HTML exporter (lab template), figures inline as data: URIs.
- Widgets show their stored state with no JavaScript and no CDN. nbconvert would otherwise load
  @jupyter-widgets/html-manager (embed-amd.js from unpkg, require.js from cdnjs: see
  ``HTMLExporter.jupyter_widgets_base_url``/``require_js_url``); no installed Python package ships that
  bundle. Instead each widget output is replaced by static HTML built from the notebook's saved widget
  state (``metadata.widgets``): an ImageModel becomes an ``<img>`` with its stored PNG, an HTML
  widget its HTML, a checkbox/slider/dropdown a disabled control showing its value.
- Links between lessons (``](04_x.ipynb)``) point to the pages (``04_x.html``).
- MathJax still comes from its CDN (formulas show as TeX source offline); nothing else is fetched.
- build/site/index.html: the lesson table, titles and study times read from each lesson's first
  markdown cell (``# Lesson NN — Title``, ``**Study time:** ...``), tolerant of lessons in mid-rewrite.

Usage: python -m tools.make_site [--out build/site] [notebooks ...]
"""

from __future__ import annotations

import argparse
import html
import re
import sys
import time
from pathlib import Path

import nbformat
from jinja2 import DictLoader
from nbconvert import HTMLExporter

REPO = Path(__file__).resolve().parents[1]
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
# The lab template without its JavaScript from CDNs (require.js, widget manager, mermaid).
TEMPLATE = """{%- extends 'index.html.j2' -%}
{%- block html_head_js_requirejs -%}{%- endblock html_head_js_requirejs -%}
{% block jupyter_widgets %}{% endblock jupyter_widgets %}
{%- block html_head_js_mermaidjs -%}{%- endblock html_head_js_mermaidjs -%}
{% block extra_css %}<style>
.lmtie-static-widget { border-left: 3px solid #bbb; padding: 0.3em 0.6em; }
.lmtie-static-widget .lmtie-note { color: #666; font-size: 0.85em; margin-bottom: 0.3em; }
.lmtie-w-box { display: flex; gap: 0.4em 1.2em; }
.lmtie-w-control { font-size: 0.9em; }
</style>{% endblock extra_css %}
"""
STATIC_NOTE = ("Stored state of an interactive panel; open the lesson in JupyterLab, Colab or Binder "
               "to change its controls.")


def _label(state: dict) -> str:
    return html.escape(state.get("description") or "")


def render_widget(model_id: str, models: dict) -> str:
    """Static HTML for one widget of the saved state (recursively for boxes)."""
    model = models.get(model_id.removeprefix("IPY_MODEL_"))
    if model is None:
        return "<span class='lmtie-w-missing'>(widget state not saved)</span>"
    name, state = model["model_name"], model["state"]
    buffers = {tuple(b["path"]): b["data"] for b in model.get("buffers", [])}
    classes = " ".join(state.get("_dom_classes", []))
    if name in ("VBoxModel", "HBoxModel", "BoxModel", "GridBoxModel"):
        direction = "column" if name == "VBoxModel" else "row"
        children = "".join(render_widget(child, models) for child in state.get("children", []))
        return (f"<div class='lmtie-w-box {classes}' style='flex-direction:{direction};"
                f"flex-wrap:{'nowrap' if direction == 'column' else 'wrap'}'>{children}</div>")
    if name == "ImageModel":
        data = buffers.get(("value",)) or state.get("value") or ""
        if not data:
            return ""
        return (f"<img class='lmtie-w-image' alt='{_label(state) or 'figure'}' style='max-width:100%' "
                f"src='data:image/{html.escape(state.get('format', 'png'))};base64,{data}'>")
    if name in ("HTMLModel", "HTMLMathModel"):
        return f"<div class='lmtie-w-html'>{state.get('value', '')}</div>"  # our own package's HTML, from the notebook
    if name == "LabelModel":
        return f"<span class='lmtie-w-label'>{html.escape(str(state.get('value', '')))}</span>"
    if name in ("CheckboxModel", "ToggleButtonModel"):
        checked = " checked" if state.get("value") else ""
        return f"<label class='lmtie-w-control'><input type='checkbox' disabled{checked}> {_label(state)}</label>"
    if "options" in str(state.get("_options_labels", "")) or "_options_labels" in state:
        labels, index = state.get("_options_labels", []), state.get("index")
        chosen = set(index if isinstance(index, list) else [index])
        options = "".join(f"<option{' selected' if i in chosen else ''}>{html.escape(str(label))}</option>"
                          for i, label in enumerate(labels))
        return f"<label class='lmtie-w-control'>{_label(state)} <select disabled>{options}</select></label>"
    if name.endswith("SliderModel") or name.endswith(("TextModel", "ProgressModel")):
        value = state.get("value")
        shown = html.escape(", ".join(map(str, value)) if isinstance(value, list) else str(value))
        if name.endswith("ProgressModel"):
            return f"<progress value='{value}' max='{state.get('max', 100)}'></progress>"
        return f"<label class='lmtie-w-control'>{_label(state)} <output>{shown}</output></label>"
    return f"<span class='lmtie-w-unknown'>({html.escape(name)})</span>"


def static_widgets(nb) -> int:
    """Replace every widget output by its stored state as static HTML; return how many."""
    models = nb.metadata.get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    count = 0
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            view = output.get("data", {}).get(WIDGET_VIEW)
            if not view:
                continue
            body = render_widget(view["model_id"], models)
            output["data"] = {"text/html": f"<div class='lmtie-static-widget'><div class='lmtie-note'>"
                                           f"{STATIC_NOTE}</div>{body}</div>"}
            count += 1
    nb.metadata.pop("widgets", None)
    return count


def lesson_links_to_pages(nb) -> None:
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source = re.sub(r"\]\((\d\d_[\w-]+)\.ipynb\)", r"](\1.html)", cell.source)


def lesson_info(nb, path: Path) -> dict:
    """Title and study time from the first markdown cell; fall back to the file name."""
    first = next((c.source for c in nb.cells if c.cell_type == "markdown"), "")
    title = re.search(r"^#\s*Lesson\s*(\d+)\s*[—–-]\s*(.+)$", first, re.MULTILINE)
    study = re.search(r"\*\*Study time:?\*\*:?\s*(.+?)(?:\n\s*\n|\n\*\*|\Z)", first, re.DOTALL)
    minutes = re.search(r"(\d+)\s*min", study.group(1)) if study else None
    detail = re.sub(r"^about\s+\d+\s*min\w*\s*[.;,:—–-]*\s*", "", " ".join(study.group(1).split())) if study else ""
    return {"number": title.group(1) if title else path.name[:2],
            "title": title.group(2).strip() if title else path.stem[3:].replace("_", " ").capitalize(),
            "study": detail[:1].upper() + detail[1:],
            "minutes": int(minutes.group(1)) if minutes else None}


def errors_in(nb) -> list[str]:
    return [f"{o.get('ename', 'stderr')}" for c in nb.cells for o in c.get("outputs", [])
            if o.get("output_type") == "error" or (o.get("output_type") == "stream" and o.get("name") == "stderr")]


def index_page(rows: list[dict]) -> str:
    def cell(text: str) -> str:
        return html.escape(text)
    body = "\n".join(
        f"<tr><td>{cell(r['number'])}</td><td><a href='{cell(r['page'])}'>{cell(r['title'])}</a></td>"
        f"<td>{'about ' + str(r['minutes']) + ' min' if r['minutes'] else '—'}</td><td>{cell(r['study'])}</td></tr>"
        for r in rows)
    total = sum(r["minutes"] or 0 for r in rows)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Weight tying in neural language models — lessons</title>
<style>body{{font-family:system-ui,sans-serif;max-width:60em;margin:2em auto;padding:0 1em;line-height:1.45}}
table{{border-collapse:collapse;width:100%}}td,th{{border-bottom:1px solid #ddd;padding:.4em .6em;text-align:left;
vertical-align:top}}th{{background:#f4f4f4}}td:nth-child(4){{color:#555;font-size:.9em}}</style></head>
<body><h1>Weight tying in neural language models</h1>
<p>{len(rows)} lessons, each an executed Jupyter notebook shown with its stored outputs: the figures, and the
interactive panels in the state they were saved in. To run them and move the controls, see
<em>Where to run it</em> in the course README (JupyterLab, Colab or Binder).</p>
<table id="lessons"><thead><tr><th>#</th><th>Lesson</th><th>Study time</th><th>Core and optional parts</th></tr></thead>
<tbody>
{body}
</tbody></table>
<p>Total: about {total} minutes.</p>
</body></html>
"""


def build(paths: list[Path], out: Path) -> int:
    out.mkdir(parents=True, exist_ok=True)
    exporter = HTMLExporter(template_name="lab", extra_loaders=[DictLoader({"site.html.j2": TEMPLATE})],
                            template_file="site.html.j2")
    rows, problems = [], 0
    for path in paths:
        started = time.perf_counter()
        nb = nbformat.read(path, as_version=4)
        info = lesson_info(nb, path)
        errors = errors_in(nb)
        widgets = static_widgets(nb)
        lesson_links_to_pages(nb)
        nb.metadata["title"] = f"Lesson {info['number']} — {info['title']}"
        body, _ = exporter.from_notebook_node(nb, resources={"metadata": {"name": path.stem}})
        page = out / f"{path.stem}.html"
        page.write_text(body, encoding="utf-8")
        figures = sum(1 for c in nb.cells for o in c.get("outputs", []) if "image/png" in o.get("data", {}))
        rows.append(info | {"page": page.name})
        executed = any(c.get("outputs") for c in nb.cells if c.cell_type == "code")
        problems += bool(errors)
        print(f"{page.relative_to(REPO) if page.is_relative_to(REPO) else page}: {figures} figure(s), "
              f"{widgets} widget(s) shown in their stored state, {len(body) // 1024} KiB, "
              f"{time.perf_counter() - started:.1f} s" + (f"; ERROR OUTPUTS {errors}" if errors else "")
              + ("" if executed else "; WARNING: no stored outputs (execute the lesson first)"))
    (out / "index.html").write_text(index_page(rows), encoding="utf-8")
    print(f"{out / 'index.html'}: {len(rows)} lessons")
    return 1 if problems else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("notebooks", nargs="*", type=Path)
    parser.add_argument("--out", type=Path, default=REPO / "build" / "site")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    code = build(args.notebooks or sorted((REPO / "notebooks").glob("[0-9]*.ipynb")), args.out)
    print(f"site built in {time.perf_counter() - started:.0f} s")
    return code


if __name__ == "__main__":
    sys.exit(main())
