"""Text alternatives for the lessons' figures, read from the notebook itself (no re-execution).

A stored figure is a bare PNG: ``lmtie_edu.kit.plotting.show`` displays ``Image(png)``, whose text/plain is
``<IPython.core.display.Image object>``. If an output carries an ``alt`` in its metadata (``metadata.alt``
or ``metadata["image/png"].alt``) that text is used as it is; next comes the figure's visible caption (the
``**Figure.** …`` paragraph opening the first markdown cell after it — the lessons' convention, since
JupyterLab reads no alt metadata and a caption serves every reader). Otherwise it is composed from what the
lesson says about the figure:

- the titles and axis labels written in the cell's code (``title=``/``suptitle=``/``xlabel=``/``ylabel=``
  keywords, ``set_title``/``suptitle``/``set_xlabel``/``set_ylabel`` calls; in an f-string each
  ``{expression}`` becomes "…", its value being known only at run time);
- the first sentence of the docstring of the course function that draws it (``figures.memory_figure``,
  a panel, ...), found by following the notebook's ``from lmtie_edu... import`` lines to the source file;
- the section it is in (the nearest preceding markdown heading) and, when the code names nothing, the
  last sentence of the markdown just before the cell.
"""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TITLE_KEYWORDS = {"title": "title", "suptitle": "title", "xlabel": "x", "ylabel": "y"}
TITLE_METHODS = {"set_title": "title", "suptitle": "title", "set_suptitle": "title",
                 "set_xlabel": "x", "set_ylabel": "y"}
DRAWING = re.compile(r"figure|plot|panel|heatmap|draw|explorer", re.IGNORECASE)
GENERIC = {"new_figure", "show", "figure_to_png"}  # lmtie_edu.kit.plotting's plumbing: says nothing of the figure
WORDS = {"en": {"figure": "Figure", "panel": "Figure of the interactive panel, in its stored state",
                "x": "horizontal axis", "y": "vertical axis", "section": "Section", "of": "figure {k} of {n}"},
         "zh-CN": {"figure": "图", "panel": "交互面板保存时的图", "x": "横轴", "y": "纵轴", "section": "所在小节",
                   "of": "第 {k} 幅，共 {n} 幅"}}


def _code(source: str) -> ast.Module | None:
    """The cell parsed as Python, IPython magics and shell lines blanked; None if it does not parse."""
    lines = ["" if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines()]
    try:
        return ast.parse("\n".join(lines))
    except SyntaxError:
        return None


def _text(node: ast.AST) -> str | None:
    """A string literal, an f-string with "…" for its fields, or a + of those; None for anything else."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(part.value if isinstance(part, ast.Constant) else "…" for part in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _text(node.left), _text(node.right)
        return None if left is None or right is None else left + right
    return None


def _dotted(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return base and f"{base}.{node.attr}"
    return None


def imports(nb) -> dict[str, str]:
    """Local name -> dotted lmtie_edu name, from every code cell's imports."""
    names = {}
    for cell in nb.cells:
        tree = _code(cell.source) if cell.cell_type == "code" else None
        for node in ast.walk(tree) if tree else ():
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("lmtie_edu"):
                names.update({a.asname or a.name: f"{node.module}.{a.name}" for a in node.names})
            elif isinstance(node, ast.Import):
                names.update({a.asname: a.name for a in node.names if a.asname and a.name.startswith("lmtie_edu")})
    return names


@functools.cache
def docstring(dotted: str, depth: int = 0) -> str:
    """First sentence of the docstring of the lmtie_edu function ``dotted``, read from its source file."""
    parts = dotted.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        base = REPO.joinpath(*parts[:cut])
        path = base.with_suffix(".py") if base.with_suffix(".py").exists() else base / "__init__.py"
        if not path.exists():
            continue
        name, tree = parts[cut], ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            if isinstance(node, ast.FunctionDef | ast.ClassDef) and node.name == name:
                text = " ".join((ast.get_docstring(node) or "").split("\n\n")[0].split())
                return plain(re.split(r"(?<=[.;])\s", text)[0]).rstrip(".;")
            if isinstance(node, ast.ImportFrom) and depth < 3 and any(
                    (a.asname or a.name) == name for a in node.names):
                package = ".".join(parts[:cut] if path.name == "__init__.py" else parts[:cut - 1])
                module = node.module or ""
                if node.level:
                    module = ".".join(package.split(".")[:len(package.split(".")) - node.level + 1] + [module])
                real = next(a.name for a in node.names if (a.asname or a.name) == name)
                return docstring(f"{module.strip('.')}.{real}", depth + 1)
        return ""
    return ""


def labels_in(source: str, names: dict[str, str]) -> tuple[list[tuple[str, str]], list[str]]:
    """(kind, text) of the titles/axis labels in the code, and the docstrings of the course's drawing calls."""
    tree = _code(source)
    labels, docs = [], []
    for node in ast.walk(tree) if tree else ():
        if not isinstance(node, ast.Call):
            continue
        for keyword in node.keywords:
            if keyword.arg in TITLE_KEYWORDS and (text := _text(keyword.value)):
                labels.append((TITLE_KEYWORDS[keyword.arg], text))
        method = node.func.attr if isinstance(node.func, ast.Attribute) else None
        if method in TITLE_METHODS and node.args and (text := _text(node.args[0])):
            labels.append((TITLE_METHODS[method], text))
        called = _dotted(node.func) or ""
        head, _, tail = called.partition(".")
        last = called.rsplit(".", 1)[-1]
        if head in names and DRAWING.search(last) and last not in GENERIC:
            doc = docstring(names[head] + (f".{tail}" if tail else ""))
            if doc and doc not in docs:
                docs.append(doc)
    unique = list(dict.fromkeys((kind, " ".join(text.split())) for kind, text in labels if text.strip()))
    return unique, docs


def plain(markdown: str) -> str:
    """Markdown as one line of plain text: no emphasis, code ticks, link targets or TeX dollars."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", markdown)
    text = re.sub(r"<[^>]+>", "", text)
    text = re.sub(r"(?<!\w)_(\S.*?)_(?!\w)", r"\1", text)
    text = re.sub(r"[*`]+|\$+|^#+\s*|^>\s*", "", text, flags=re.MULTILINE)
    return " ".join(text.replace("\\", "").split())


def last_sentence(markdown: str) -> str:
    sentences = [s for s in re.split(r"(?<=[.!?:])\s+|(?<=[。！？：])", plain(markdown)) if len(s) > 3]
    return sentences[-1] if sentences else ""


CAPTION = {"en": "**Figure", "zh-CN": "**图"}


def caption(nb, index: int, lang: str = "en") -> str:
    """The visible caption of the figure(s) of cell ``index``: the paragraph that opens the first markdown cell
    after it with ``**Figure…**`` (``**图…**``), as plain text; "" when there is none."""
    for following in nb.cells[index + 1:]:
        if following.cell_type == "markdown":
            first = following.source.strip().split("\n\n")[0]
            return plain(first) if first.startswith(CAPTION[lang]) else ""
    return ""


def describe(nb, index: int, *, lang: str = "en", panel: bool = False, names: dict | None = None) -> str:
    """The text alternative for the figure(s) of cell ``index``: its visible caption, or one composed from
    the code's titles and labels, the drawing function's docstring and the section."""
    if found := caption(nb, index, lang):
        return found
    words, cell = WORDS[lang], nb.cells[index]
    labels, docs = labels_in(cell.source, imports(nb) if names is None else names)
    heading, before = "", ""
    for previous in reversed(nb.cells[:index]):
        if previous.cell_type != "markdown":
            continue
        before = before or previous.source
        found = [line for line in previous.source.splitlines() if line.startswith("#")]
        if found:
            heading = plain(found[-1])
            break
    zh = lang == "zh-CN"
    sep, colon, stop = ("；", "：", "。") if zh else ("; ", ": ", ". ")
    titles = sep.join(text for kind, text in labels if kind == "title")
    axes = ("，" if zh else ", ").join(f"{words[kind]}{colon}{text}" for kind, text in labels if kind != "title")
    what = words["panel" if panel else "figure"]
    parts = [f"{what}{colon}{titles}" if titles else what]
    parts += [doc for doc in docs[:2]] + ([axes] if axes else [])
    if not titles and not docs:
        parts.append(last_sentence(before))
    if heading:
        parts.append(f"{words['section']}{colon}{heading}")
    text = " ".join(p if p[-1] in ".?!。？！" else p + stop.strip() for p in (q.strip() for q in parts) if p)
    text = text.replace("。 ", "。").replace("？ ", "？")
    return text[:600] + ("…" if len(text) > 600 else "")


def stored_alt(output) -> str:
    """An alt text the output itself carries, if any."""
    metadata = output.get("metadata", {})
    return str(metadata.get("alt") or metadata.get("image/png", {}).get("alt") or "")


def add_alt_texts(nb, lang: str = "en") -> int:
    """Write ``metadata.alt`` on every PNG output (k of n when a cell shows several); return how many."""
    names, count = imports(nb), 0
    for index, cell in enumerate(nb.cells):
        images = [o for o in cell.get("outputs", []) if "image/png" in o.get("data", {})]
        for k, output in enumerate(images, start=1):
            text = stored_alt(output) or describe(nb, index, lang=lang, names=names)
            if len(images) > 1 and not stored_alt(output):
                text += f" ({WORDS[lang]['of'].format(k=k, n=len(images))})"
            output.setdefault("metadata", {})["alt"] = text
            count += 1
    return count
