"""Search over one edition of the site, offline: build/site/[zh_CN/]search.html and its search-index.js.

The index is read from the written lesson pages: one entry per section (each ``<h2>``, with the id nbconvert gave
it, and the lesson's text up to the next one), so a result opens the page at that section. The page's script is
a few lines of plain JavaScript with no library and no request: the index is a script file beside the page, so
it also works opened from the disk (a ``fetch`` of a local JSON file would not). A query matches a section when
every word of it occurs in the section's title or text (case ignored; Chinese has no spaces, so a run of Chinese
characters is matched as a substring); sections whose title matches come first, then the most occurrences.
"""

from __future__ import annotations

import html
import json
import re
from html.parser import HTMLParser
from pathlib import Path

WORDS = {
    "en": {"title": "Search the lessons", "label": "Search", "placeholder": "for example: gradient, weight decay",
           "none": "No section contains every word of the query.", "found": "{n} section(s)",
           "back": "All lessons"},
    "zh-CN": {"title": "搜索课程", "label": "搜索", "placeholder": "例如：梯度、权重衰减",
              "none": "没有哪一节同时包含查询中的每个词。", "found": "共 {n} 节", "back": "全部课程"},
}
SKIP = {"script", "style", "nav", "svg"}  # not the lesson's text


class _Sections(HTMLParser):
    """The page's <title> and its sections: (h2 id, h2 text, the text up to the next h2)."""

    def __init__(self):
        super().__init__()
        self.title, self.sections, self._in, self._skip, self._heading = "", [], None, 0, None

    def handle_starttag(self, tag, attrs):
        if tag in SKIP:
            self._skip += 1
        elif tag == "title":
            self._in = "title"
        elif tag == "h2":
            self._heading = dict(attrs).get("id", "")
            self.sections.append([self._heading, "", ""])
            self._in = "h2"

    def handle_endtag(self, tag):
        if tag in SKIP:
            self._skip = max(0, self._skip - 1)
        elif tag in ("title", "h2"):
            self._in = None

    def handle_data(self, data):
        if self._skip:
            return
        if self._in == "title":
            self.title += data
        elif self._in == "h2":
            self.sections[-1][1] += data
        elif self.sections:
            self.sections[-1][2] += data


def sections(page: Path) -> tuple[str, list[dict]]:
    """The page's title and one entry per section: anchor, heading, text (whitespace collapsed)."""
    parser = _Sections()
    parser.feed(page.read_text(encoding="utf-8"))
    return _squash(parser.title), [{"anchor": anchor, "heading": _squash(heading).rstrip("¶ "), "text": _squash(text)}
                                   for anchor, heading, text in parser.sections]


def _squash(text: str) -> str:
    """Whitespace collapsed, and no cell prompts (In [3]:, Out[3]:)."""
    return " ".join(re.sub(r"(?:In|Out)\s*\[\d*\]:", " ", text).split())


SCRIPT = """const box = document.getElementById('q'), out = document.getElementById('results'),
      said = document.getElementById('said');
function terms(query) { return query.toLowerCase().split(/[\\s,，、;；]+/).filter(t => t); }
function show() {
  const words = terms(box.value);
  out.replaceChildren();
  if (!words.length) { said.textContent = ''; return; }
  const hits = [];
  for (const e of LMTIE_SEARCH) {
    const head = e.heading.toLowerCase(), text = e.text.toLowerCase();
    if (!words.every(w => head.includes(w) || text.includes(w))) continue;
    const count = words.reduce((n, w) => n + text.split(w).length - 1, 0);
    hits.push([words.some(w => head.includes(w)) ? 1 : 0, count, e]);
  }
  hits.sort((a, b) => b[0] - a[0] || b[1] - a[1]);
  said.textContent = hits.length ? FOUND.replace('{n}', hits.length) : NONE;
  for (const [, , e] of hits.slice(0, 50)) {
    const item = document.createElement('li'), link = document.createElement('a');
    link.href = e.page + (e.anchor ? '#' + e.anchor : '');
    link.textContent = e.lesson + ' — ' + e.heading;
    const at = e.text.toLowerCase().indexOf(words[0]), snippet = document.createElement('p');
    snippet.textContent = (at > 60 ? '…' : '') + e.text.slice(Math.max(0, at - 60), at + 140) + '…';
    item.append(link, snippet);
    out.append(item);
  }
}
box.addEventListener('input', show);
const given = new URLSearchParams(location.search).get('q');
if (given) { box.value = given; }
show();
"""
CSS = """body{font-family:system-ui,sans-serif;max-width:62em;margin:2em auto;padding:0 1em;line-height:1.45;
color:#1a1a1a}a{color:#0b57a4}input{font-size:1.1em;width:100%;max-width:30em;padding:.3em}
#results p{color:#4d4d4d;font-size:.9em;margin:.2em 0 .8em}"""


def write(folder: Path, pages: list[Path], lang: str) -> int:
    """Write ``folder``/search-index.js and search.html for the edition's ``pages``; return the sections indexed."""
    entries = []
    for page in pages:
        title, found = sections(page)
        entries += [{"page": page.name, "lesson": title, **section} for section in found]
    (folder / "search-index.js").write_text("const LMTIE_SEARCH = " + json.dumps(entries, ensure_ascii=False)
                                            + ";\n", encoding="utf-8")
    words = WORDS[lang]
    (folder / "search.html").write_text(f"""<!DOCTYPE html>
<html lang="{lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{words['title']}</title><style>{CSS}</style></head>
<body><header><nav aria-label="{words['label']}"><a href="index.html">{words['back']}</a></nav>
<h1>{words['title']}</h1></header>
<main>
<label for="q">{words['label']}</label><br>
<input id="q" type="search" placeholder="{html.escape(words['placeholder'])}" autocomplete="off">
<p id="said" role="status"></p>
<ol id="results"></ol>
</main>
<script src="search-index.js"></script>
<script>const FOUND = {json.dumps(words['found'], ensure_ascii=False)}, NONE = {json.dumps(words['none'], ensure_ascii=False)};
{SCRIPT}</script>
</body></html>
""", encoding="utf-8")
    return len(entries)

