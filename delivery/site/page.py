"""The lesson page: nbconvert's lab template without CDNs, MathJax from the build, a language/PDF bar.

- MathJax 3 (npm ``mathjax``, pinned in delivery/integration.mk, installed into build/site-node/) is copied into
  build/site/mathjax/ and configured like nbconvert's MathJax 2 block ($…$, \\(…\\), $$…$$, \\[…\\], AMS
  numbering); its CHTML fonts load from the same folder, so formulas render with no network.
- Each PNG output's ``metadata.alt`` (delivery/site/alt_text.py) becomes the image's ``alt``.
- Accessibility fixes for what axe-core found (tests/platform/site/test_accessibility.py): ``lang`` per
  edition, a labelled navigation landmark, prompt contrast, underlined links (``SITE_CSS``).
"""

from __future__ import annotations

import html
import shutil
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
NODE = REPO / "build" / "site-node" / "node_modules"
MATHJAX_FILES = ["tex-chtml-full.js", "output/chtml/fonts/woff-v2", "a11y", "ui"]

TEMPLATE = """{%- extends 'index.html.j2' -%}
{%- block html_head_js_requirejs -%}{%- endblock html_head_js_requirejs -%}
{% block jupyter_widgets %}{% endblock jupyter_widgets %}
{%- block html_head_js_mermaidjs -%}{%- endblock html_head_js_mermaidjs -%}
{%- block html_head_js_mathjax -%}
<script>
window.MathJax = {
  tex: {inlineMath: [['$', '$'], ['\\\\(', '\\\\)']], displayMath: [['$$', '$$'], ['\\\\[', '\\\\]']],
        processEscapes: true, processEnvironments: true, tags: 'ams'},
  chtml: {displayAlign: 'center'},
  options: {menuOptions: {settings: {assistiveMml: true}}}
};
</script>
<script defer id="MathJax-script" src="{{ resources.lmtie.root }}mathjax/tex-chtml-full.js"></script>
{%- endblock html_head_js_mathjax -%}
{% block data_png scoped %}
<div class="jp-RenderedImage jp-OutputArea-output {{ extra_class }}">
<img src="data:image/png;base64,{{ output.data['image/png'] | escape_html }}"
 alt="{{ output.metadata.get('alt', '') | escape_html }}"
{%- set width=output | get_metadata('width', 'image/png') -%}
{%- if width is not none %} width={{ width | escape_html }}{%- endif %}
{%- set height=output | get_metadata('height', 'image/png') -%}
{%- if height is not none %} height={{ height | escape_html }}{%- endif %}
>
</div>
{%- endblock data_png %}
"""

# Appended at the end of <head>, after JupyterLab's theme and index.css, so these win at equal specificity.
# The contrast and link rules fix what axe-core found (tests/platform/site/test_accessibility.py): the
# cell prompts are grey-700 at 50 % opacity (2.3:1 on white; now 7:1); the code colours of JupyterLab's
# light theme below 4.5:1 on the code background (#f5f5f5: #a2f 4.4, #080 4.3, #408080 4.2, ...) are
# the same hues darkened to 4.8:1; links in running text were told from the text around them by colour
# alone (1.9:1; now underlined).
SITE_CSS = """<style>
:root { --jp-cell-prompt-not-active-opacity: 1; --jp-cell-prompt-not-active-font-color: #595959;
        --jp-mirror-editor-atom-color: #6161b7; --jp-mirror-editor-number-color: #007d00;
        --jp-mirror-editor-variable-3-color: #007a4c; --jp-mirror-editor-operator-color: #9f1fef;
        --jp-mirror-editor-comment-color: #3a7575; --jp-mirror-editor-meta-color: #9f1fef;
        --jp-mirror-editor-bracket-color: #6b6b53; --jp-mirror-editor-quote-color: #007d00;
        --jp-mirror-editor-error-color: #db0000; --jp-mirror-editor-hr-color: #6b6b6b; }
.jp-RenderedHTMLCommon a:link, .jp-RenderedHTMLCommon a:visited { text-decoration: underline; }
.lmtie-static-widget { border-left: 3px solid #bbb; padding: 0.3em 0.6em; }
.lmtie-static-widget .lmtie-note { color: #555; font-size: 0.85em; margin-bottom: 0.3em; }
.lmtie-w-box { display: flex; gap: 0.4em 1.2em; }
.lmtie-w-control { font-size: 0.9em; }
nav.lmtie-bar { font-family: system-ui, sans-serif; padding: 0.5em 1em; border-bottom: 1px solid #ddd;
                display: flex; gap: 1.2em; flex-wrap: wrap; }
nav.lmtie-bar a { color: #0b57a4; }
@media print {
  nav.lmtie-bar { display: none; }
  .jp-InputArea-editor pre, .jp-OutputArea-output pre { white-space: pre-wrap; overflow-wrap: anywhere; }
}
</style>"""

NAV = {"en": {"label": "Course", "index": "All lessons", "other": "中文版", "pdf": "PDF (print version)",
              "previous": "← Previous lesson", "next": "Next lesson →", "search": "Search",
              "colab": "Open in Colab", "binder": "Launch Binder"},
       "zh-CN": {"label": "课程", "index": "全部课程", "other": "English", "pdf": "PDF（打印版）",
                 "previous": "← 上一课", "next": "下一课 →", "search": "搜索",
                 "colab": "在 Colab 中打开", "binder": "在 Binder 中启动"}}


def vendor_mathjax(out: Path) -> Path:
    """Copy MathJax's browser bundle and fonts from build/site-node into ``out``/mathjax."""
    source = NODE / "mathjax" / "es5"
    if not (source / "tex-chtml-full.js").exists():
        raise SystemExit(f"{source} is missing: run `make site` (it installs the npm package mathjax into "
                         "build/site-node/), or: npm install --prefix build/site-node mathjax@<pin in delivery/integration.mk>")
    target = out / "mathjax"
    shutil.rmtree(target, ignore_errors=True)
    for name in MATHJAX_FILES:
        if (source / name).is_dir():
            shutil.copytree(source / name, target / name)
        else:
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source / name, target / name)
    shutil.copy2(source.parent / "LICENSE", target / "LICENSE")
    return target


def nav_bar(lang: str, stem: str, *, has_other: bool, pdf: bool,
            neighbours: tuple[str | None, str | None] = (None, None), ref: str = "main") -> str:
    """The bar above a lesson: the index, the previous and next lessons of its edition, the search, the
    other-language version, the PDF, and the lesson in Colab and Binder at ``ref`` (the links its badges open)."""
    from delivery.colab import binder_link, colab_link
    from delivery.repository import repository_url

    words = NAV[lang]
    zh = lang == "zh-CN"
    before, after = neighbours
    links = [f"<a href='index.html'>{words['index']}</a>"]
    links += [f"<a rel='prev' href='{before}.html'>{words['previous']}</a>"] if before else []
    links += [f"<a rel='next' href='{after}.html'>{words['next']}</a>"] if after else []
    links.append(f"<a href='search.html'>{words['search']}</a>")
    if has_other:
        other, other_lang = (f"../{stem}.html", "en") if zh else (f"zh_CN/{stem}.html", "zh-CN")
        links.append(f"<a class='lmtie-lang' href='{other}' lang='{other_lang}' hreflang='{other_lang}'>"
                     f"{words['other']}</a>")
    if pdf:
        links.append(f"<a class='lmtie-pdf' href='{'../' if zh else ''}pdf/{'zh_CN/' if zh else ''}{stem}.pdf'>"
                     f"{words['pdf']}</a>")
    url, _ = repository_url()
    notebook = f"{'zh_CN/' if zh else ''}{stem}.ipynb"
    links += [f"<a class='lmtie-launch' href='{html.escape(colab_link(url, ref, notebook))}'>{words['colab']}</a>",
              f"<a class='lmtie-launch' href='{html.escape(binder_link(url, ref, notebook))}'>{words['binder']}</a>"]
    return f"<nav class='lmtie-bar' aria-label='{words['label']}'>{' '.join(links)}</nav>"


def finish(body: str, lang: str, nav: str) -> str:
    """Set the page's language, add the contrast fixes and the bar before <main>."""
    body = body.replace('<html lang="en">', f'<html lang="{lang}">', 1)
    body = body.replace("</head>", SITE_CSS + "\n</head>", 1)
    return body.replace("<main>", nav + "\n<main>", 1)
