"""The code cells of a Chinese lesson: the English code with its comments and printed text in Chinese.

``translations/zh_CN/code/<stem>.po`` holds, for each code cell of the English lesson, its comments and its
string literals that contain words (msgid = the comment's text after ``#``, or the literal as written,
quotes and ``f`` prefix included; the location is the cell's index). A translation replaces exactly that
token; everything else in the cell stays the English code. A one-word literal counts only where it is shown
(``print("tied")``, ``xlabel="dimension"``), chosen as a label (``"yes" if ok else "no"``, ``name or "saved"``)
or given to a loop's variable that the loop only prints (``for name, model in (("tied", tied), …):
print(f"{name}: …")``). A literal the code compares or looks up (a dictionary key, an option value, a file name)
is kept by translating it as itself (msgstr = msgid).

A translated f-string must keep the English one's ``{expressions}`` (words in their quoted string parts
may change, and so may format specs such as ``:>8``, for the width of Chinese characters).

The set-up cell's ``setup_lesson(...)`` gains ``language="zh_CN"``: that call chooses Chinese for all the
package shows (lmtie_edu/shared/language.py).
"""

from __future__ import annotations

import ast
import io
import re
import tokenize

from babel.messages.catalog import Catalog

from .catalogue import CATALOGUE_DIR, cell_source
from .errors import TranslationError
from .pofile import LOCALE, PROJECT, read_catalogue, render, without_format_flags

CODE_CATALOGUES = CATALOGUE_DIR / "code"
WORDS = re.compile(r"[A-Za-z]{2,}")
# A literal without a space that is a name, a path, a URL or a flag — code, never prose.
NAME_LIKE = re.compile(r"[rRbBuU]?[\"']{1,3}[\w.\-/:@=+\[\]<>]*[\"']{1,3}")
LANGUAGE_ARGUMENT = 'language="zh_CN"'


def catalogue_path(lesson) -> object:
    return CODE_CATALOGUES / f"{lesson.stem}.po"


def _tokens(source: str) -> list[tokenize.TokenInfo]:
    try:
        return list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError):
        return []  # a cell that is not valid Python (an exercise stub is): nothing to translate in it


# Where a one-word literal is text a learner reads (a printed word, a title, an axis label), not a key.
SHOWN_BY = {"print", "set_title", "set_xlabel", "set_ylabel", "suptitle", "text", "annotate", "Progress"}
SHOWN_AS = {"title", "xlabel", "ylabel", "label", "labels", "description", "placeholder"}


def _only_shown(name: str, body: list[ast.stmt]) -> bool:
    """Whether a loop's variable ``name`` is only shown in ``body``: each use an f-string's field or an argument
    of print(), never compared, looked up, passed on or assigned."""
    parents, uses = {}, []
    for statement in body:
        for node in ast.walk(statement):
            for child in ast.iter_child_nodes(node):
                parents[child] = node
            if isinstance(node, ast.Name) and node.id == name:
                uses.append(node)

    def shown(use: ast.Name) -> bool:
        parent = parents.get(use)
        if isinstance(parent, ast.FormattedValue) and parent.value is use:
            return True
        return isinstance(parent, ast.Call) and getattr(parent.func, "id", None) == "print" and use in parent.args

    return bool(uses) and all(isinstance(use.ctx, ast.Load) and shown(use) for use in uses)


def _loop_labels(loop: ast.For) -> list[ast.expr]:
    """The literals a loop over a written-out sequence gives a variable that the loop only shows:
    ``for name, model in (("tied", tied), ("untied", untied)): print(f"{name}: …")`` shows "tied" and "untied"."""
    if not isinstance(loop.iter, ast.Tuple | ast.List):
        return []
    targets = loop.target.elts if isinstance(loop.target, ast.Tuple) else [loop.target]
    labels = []
    for position, target in enumerate(targets):
        if not (isinstance(target, ast.Name) and _only_shown(target.id, loop.body)):
            continue
        for item in loop.iter.elts:
            if not isinstance(loop.target, ast.Tuple):
                labels.append(item)
            elif isinstance(item, ast.Tuple | ast.List) and len(item.elts) == len(targets):
                labels.append(item.elts[position])
    return labels


def shown_positions(source: str) -> set[tuple[int, int]]:
    """(line, character column) of each literal that is shown: print("tied"), xlabel="dimension", a label
    chosen by ``if … else``, a loop's literal that the loop only prints (:func:`_loop_labels`)"""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    lines = source.splitlines()
    shown = []
    for node in ast.walk(tree):
        if isinstance(node, ast.For):
            shown += _loop_labels(node)
        if isinstance(node, ast.Call):
            name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
            shown += node.args if name in SHOWN_BY else []
            shown += [keyword.value for keyword in node.keywords if keyword.arg in SHOWN_AS]
        elif isinstance(node, ast.IfExp):  # "yes" if ok else "no", "tied" if tie else "untied": labels
            shown += [node.body, node.orelse]
        elif isinstance(node, ast.BoolOp):  # name or "saved"
            shown += node.values
    literals = []
    for node in shown:
        items = node.elts if isinstance(node, ast.List | ast.Tuple) else [node]
        literals += [item for item in items if isinstance(item, ast.Constant | ast.JoinedStr)]
    return {(item.lineno, len(lines[item.lineno - 1].encode()[:item.col_offset].decode(errors="ignore")))
            for item in literals}


def translatable(token: tokenize.TokenInfo, shown: set[tuple[int, int]] = frozenset()) -> str | None:
    """The message of a comment or a wordy string literal; None for any other token."""
    if token.type == tokenize.COMMENT:
        text = token.string.lstrip("#").strip()
        return text if WORDS.search(text) and not text.startswith(("noqa", "type:", "!")) else None
    if token.type == tokenize.STRING and WORDS.search(token.string) and (
            not NAME_LIKE.fullmatch(token.string) or token.start in shown):
        return token.string
    return None


def messages(source: str) -> list[tuple[tokenize.TokenInfo, str]]:
    shown = shown_positions(source)
    return [(token, text) for token in _tokens(source) if (text := translatable(token, shown))]


def template(lesson, notebook: dict) -> Catalog:
    result = Catalog(locale=LOCALE, project=PROJECT, fuzzy=False)
    for index, cell in enumerate(notebook["cells"]):
        if cell.get("cell_type") == "code":
            for _token, text in messages(cell_source(cell)):
                if text not in result:
                    result.add(text, locations=[(f"notebooks/{lesson.name}", index)])
    without_format_flags(result)
    return result


def merged(lesson, notebook: dict) -> Catalog:
    catalogue = read_catalogue(catalogue_path(lesson))
    catalogue.update(template(lesson, notebook), update_creation_date=False)
    catalogue.obsolete.clear()
    return catalogue


def extract(lesson, notebook: dict) -> bool:
    path, text = catalogue_path(lesson), render(merged(lesson, notebook))
    if path.exists() and path.read_bytes() == text:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text)
    return True


def _expressions(literal: str) -> list[str] | None:
    """The replacement fields of an f-string, with the text of string constants inside them blanked."""
    try:
        node = ast.parse(literal, mode="eval").body
    except SyntaxError:
        return None
    if not isinstance(node, ast.JoinedStr):
        return []

    class Blank(ast.NodeTransformer):
        def visit_Constant(self, constant):  # noqa: N802 — ast's method name
            return ast.Constant("") if isinstance(constant.value, str) else constant

    return [ast.unparse(Blank().visit(value.value)) for value in node.values if isinstance(value, ast.FormattedValue)]


def refusal(english: str, chinese: str, is_comment: bool) -> str | None:
    """Why ``chinese`` cannot replace ``english`` in code, or None when it can."""
    if is_comment:
        return "a comment's translation must be one line" if "\n" in chinese else None
    if _expressions(chinese) is None:
        return "the translation is not a valid Python string literal"
    if ast.parse(chinese, mode="eval").body.__class__ is not ast.parse(english, mode="eval").body.__class__:
        return "the translation changes the kind of literal (f-string or not)"
    if _expressions(chinese) != _expressions(english):
        return f"the f-string's fields {_expressions(chinese)} are not the English {_expressions(english)}"
    return None


def translate(source: str, catalogue: Catalog, where: str) -> tuple[str, list[str]]:
    """The cell with its comments and literals translated; the problems (untranslated, fuzzy, refused)."""
    lines = source.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    edits, found = [], []
    for token, text in messages(source):
        message = catalogue.get(text)
        if message is None or not message.string or message.fuzzy:
            state = "untranslated" if message is None or not message.string else "fuzzy (the English changed)"
            found.append(f"{where}: {state}: {text[:70]!r}")
            continue
        is_comment = token.type == tokenize.COMMENT
        if reason := refusal(text, message.string, is_comment):
            found.append(f"{where}: {reason}: {text[:70]!r}")
            continue
        start = offsets[token.start[0] - 1] + token.start[1]
        end = offsets[token.end[0] - 1] + token.end[1]
        edits.append((start, end, "# " + message.string if is_comment else message.string))
    for start, end, replacement in sorted(edits, reverse=True):
        source = source[:start] + replacement + source[end:]
    return source, found


def choose_chinese(source: str) -> str:
    """``setup_lesson(...)`` with ``language="zh_CN"`` added (the cell that sets the lesson up)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return source
    calls = [node for node in ast.walk(tree) if isinstance(node, ast.Call)
             and getattr(node.func, "id", None) == "setup_lesson"]
    if not calls:
        return source
    if len(calls) > 1:
        raise TranslationError("a cell calls setup_lesson() more than once; the Chinese build expects one call")
    call = calls[0]
    lines = source.splitlines(keepends=True)
    line, column = call.end_lineno - 1, call.end_col_offset - 1  # the closing parenthesis
    separator = ", " if call.args or call.keywords else ""
    lines[line] = lines[line][:column] + separator + LANGUAGE_ARGUMENT + lines[line][column:]
    return "".join(lines)


def uses_chinese(notebook: dict) -> bool:
    return any(LANGUAGE_ARGUMENT in cell_source(cell) for cell in notebook["cells"] if cell.get("cell_type") == "code")
