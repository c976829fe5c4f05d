"""The lesson index of one edition (build/site/index.html, build/site/zh_CN/index.html)."""

from __future__ import annotations

import html

WORDS = {
    "en": {"title": "Weight tying in neural language models — lessons", "h1": "Weight tying in neural language models",
           "intro": "{n} lessons, each an executed Jupyter notebook shown with its stored outputs: the figures, "
                    "and the interactive panels in the state they were saved in. To run them and move the "
                    "controls, see <em>Where to run it</em> in the course README (JupyterLab, Colab or Binder).",
           "columns": ["#", "Lesson", "Study time", "Core and optional parts"], "pdf": "PDF",
           "minutes": "about {m} min", "total": "Total: about {m} minutes.", "other": "中文版（Chinese edition）",
           "other_href": "zh_CN/index.html", "other_lang": "zh-CN", "nav": "Editions",
           "search": "Search the lessons"},
    "zh-CN": {"title": "神经语言模型中的权重绑定 — 课程", "h1": "神经语言模型中的权重绑定",
              "intro": "共 {n} 课，每一课都是执行过的 Jupyter 笔记本，连同保存的输出一起展示：图，以及交互面板保存时的"
                       "状态。要运行它们并操作控件，请参阅课程 README 中的“在哪里运行”（JupyterLab、Colab 或 Binder）。",
              "columns": ["#", "课程", "学习时间", "核心与选学部分"], "pdf": "PDF",
              "minutes": "约 {m} 分钟", "total": "合计：约 {m} 分钟。", "other": "English edition",
              "other_href": "../index.html", "other_lang": "en", "nav": "版本",
              "search": "搜索课程"},
}
CSS = """body{font-family:system-ui,sans-serif;max-width:62em;margin:2em auto;padding:0 1em;line-height:1.45;
color:#1a1a1a}table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #ddd;padding:.4em .6em;
text-align:left;vertical-align:top}th{background:#f4f4f4}td.detail{color:#4d4d4d;font-size:.9em}a{color:#0b57a4}
nav{margin-bottom:1em}"""


def index_page(rows: list[dict], lang: str, *, pdf: bool, other: bool) -> str:
    """``rows``: number, title, page, study, minutes (and pdf, the PDF's path relative to the index)."""
    words, cell = WORDS[lang], html.escape
    pdf_head = f"<th scope='col'>{words['pdf']}</th>" if pdf else ""
    body = "\n".join(
        f"<tr><td>{cell(r['number'])}</td><td><a href='{cell(r['page'])}'>{cell(r['title'])}</a></td>"
        f"<td>{words['minutes'].format(m=r['minutes']) if r['minutes'] else '—'}</td>"
        f"<td class='detail'>{cell(r['study'])}</td>"
        + (f"<td><a href='{cell(r['pdf'])}' aria-label='{words['pdf']}: {cell(r['title'])}'>{words['pdf']}</a></td>"
           if pdf else "") + "</tr>"
        for r in rows)
    columns = "".join(f"<th scope='col'>{name}</th>" for name in words["columns"]) + pdf_head
    switch = (f" · <a class='lmtie-lang' href='{words['other_href']}' lang='{words['other_lang']}' "
              f"hreflang='{words['other_lang']}'>{words['other']}</a>" if other else "")
    switch = f"<nav aria-label='{words['nav']}'><a href='search.html'>{words['search']}</a>{switch}</nav>"
    total = sum(r["minutes"] or 0 for r in rows)
    return f"""<!DOCTYPE html>
<html lang="{lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{words['title']}</title>
<style>{CSS}</style></head>
<body><header>{switch}<h1>{words['h1']}</h1></header>
<main>
<p>{words['intro'].format(n=len(rows))}</p>
<table id="lessons"><thead><tr>{columns}</tr></thead>
<tbody>
{body}
</tbody></table>
<p>{words['total'].format(m=total)}</p>
</main>
</body></html>
"""
