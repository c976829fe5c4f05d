"""The language the package speaks to the learner: English unless the lesson's set-up chooses another.

Every string the package shows a learner is written in English and marked for translation:

- ``tr("text")`` translates where the text is shown (a check line, a figure title, an axis label);
  ``tr("rows {rows} are non-zero", rows=rows)`` translates first, then fills the fields, so the
  Chinese text may put them in another order;
- ``N_("text")`` only marks text that is declared once and translated where it is shown (a predict
  question's options and explanation, an exercise's hints and diagnoses): the kit calls ``tr`` on it.

``python -m tools.zh extract`` collects both kinds with Babel into translations/zh_CN/lmtie_edu/*.po, and
``python -m tools.zh build`` compiles them into lmtie_edu/locale/zh_CN/LC_MESSAGES/lmtie_edu.mo. A Chinese
lesson's set-up cell calls ``setup_lesson(seed=0, language="zh_CN")``, which calls :func:`use`; English
needs no call and its text is the msgid itself, so English outputs never depend on a catalogue.
"""

from __future__ import annotations

import ast
import gettext
import inspect
import io
import re
import tokenize
from pathlib import Path

LANGUAGES = ("en", "zh_CN")
LOCALE_DIR = Path(__file__).resolve().parents[1] / "locale"
DOMAIN = "lmtie_edu"
# The worked answers' comments and docstrings (the reference solutions, lessonNN/solutions.py) have a catalogue
# of their own, so that a graded copy of the package, whose solutions are withheld, can leave it out too.
WORKED_ANSWERS_DOMAIN = "lmtie_edu_worked_answers"
_state = {"language": "en", "catalogue": gettext.NullTranslations(), "worked_answers": None}


def N_(text: str) -> str:  # noqa: N802 — gettext's conventional name for "mark only"
    """Mark ``text`` for the catalogue without translating it (it is translated where it is shown)."""
    return text


def tr(message: str, /, **fields) -> str:
    """``message`` in the current language, then ``str.format(**fields)`` if fields are given."""
    translated = _state["catalogue"].gettext(message) if message else message
    return translated.format(**fields) if fields else translated


def label(key: str) -> str:
    """A key the lesson's code compares (a model's name, a band of words) as a printed table shows it: the key
    itself in English, its translation in a Chinese lesson (the code goes on comparing the key)."""
    return tr(key)


def labelled_options(values) -> list:
    """A control's options with each value shown by its label in the current language: ``(label, value)``
    pairs, or the plain values in English (so the English control and its messages stay exactly as they were)."""
    labels = [tr(value) for value in values]
    return list(values) if labels == list(values) else list(zip(labels, values, strict=True))


def current() -> str:
    """The language now in use: ``"en"`` or ``"zh_CN"``."""
    return _state["language"]


def use(language: str) -> None:
    """Speak ``language`` from now on: its catalogue for text, and for figures a font that has its glyphs."""
    if language not in LANGUAGES:
        raise ValueError(f"language must be one of {', '.join(map(repr, LANGUAGES))}; got {language!r}")
    if language == "en" and current() == "en":
        return  # nothing to undo: no catalogue, and matplotlib's settings were never touched
    if language == "en":
        catalogue = gettext.NullTranslations()
    else:
        try:
            catalogue = gettext.translation(DOMAIN, LOCALE_DIR, languages=[language])
        except OSError:
            raise FileNotFoundError(
                f"the {language} catalogue {LOCALE_DIR / language / 'LC_MESSAGES' / (DOMAIN + '.mo')} is missing: "
                "a repository checkout builds it with `python -m tools.zh build`") from None
    from . import figure_fonts  # matplotlib only when a language is chosen

    figure_fonts.use_for(language)
    _state.update(language=language, catalogue=catalogue, worked_answers=None)


_WORDS = re.compile(r"[A-Za-z]{2,}")


def source_text(source: str) -> list[tuple[tuple[int, int], tuple[int, int], str, str]]:
    """The text of Python ``source`` a reader reads: (start, end, kind, message) of each comment with words
    (``kind`` "comment", the message its text after ``#``) and each docstring (``kind`` "docstring", the message
    its text without the indentation of its later lines, :func:`inspect.cleandoc`). ``start``/``end`` are the
    token's (line, column), as :mod:`tokenize` gives them. The extractor (tools/i18n/package.py) and
    :func:`in_language` both read solutions with it, so the catalogue holds exactly what is translated here."""
    try:
        tree = ast.parse(source)
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (SyntaxError, tokenize.TokenError):
        return []
    docstrings = {(node.body[0].lineno, node.body[0].col_offset) for node in ast.walk(tree)
                  if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Module)
                  and node.body and isinstance(node.body[0], ast.Expr)
                  and isinstance(node.body[0].value, ast.Constant) and isinstance(node.body[0].value.value, str)}
    found = []
    for token in tokens:
        if token.type == tokenize.COMMENT:
            text = token.string.lstrip("#").strip()
            if _WORDS.search(text) and not text.startswith(("noqa", "type:", "!")):
                found.append((token.start, token.end, "comment", text))
        elif token.type == tokenize.STRING and token.start in docstrings:
            found.append((token.start, token.end, "docstring", inspect.cleandoc(ast.literal_eval(token.string))))
    return found


def _worked_answers_catalogue() -> gettext.NullTranslations:
    if _state["worked_answers"] is None:
        try:
            _state["worked_answers"] = gettext.translation(WORKED_ANSWERS_DOMAIN, LOCALE_DIR, languages=[current()])
        except OSError:  # a graded copy leaves the catalogue out with the solutions: the answer stays English
            _state["worked_answers"] = gettext.NullTranslations()
    return _state["worked_answers"]


def in_language(source: str) -> str:
    """A reference solution's ``source`` with its comments and docstrings in the current language (the code
    as it is); in English, ``source`` itself."""
    if current() == "en":
        return source
    catalogue = _worked_answers_catalogue()
    lines = source.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    edits = []
    for start, end, kind, message in source_text(source):
        translated = catalogue.gettext(message)
        if translated == message:
            continue
        if kind == "comment":
            replacement = "# " + translated
        else:  # the docstring's own quotes; its later lines indented as the English ones are
            written = source[offsets[start[0] - 1] + start[1]:offsets[end[0] - 1] + end[1]]
            opening = re.match(r"[rRuU]?(\"\"\"|'''|\"|')", written).group(0)
            quotes, indent = opening.lstrip("rRuU"), " " * start[1]
            first, *rest = translated.splitlines()
            body = first + "".join("\n" + (indent + line if line else "") for line in rest)
            closing = "\n" + indent if rest and re.search(r"\n\s*" + quotes + "$", written) else ""
            replacement = opening + body + closing + quotes
        edits.append((offsets[start[0] - 1] + start[1], offsets[end[0] - 1] + end[1], replacement))
    for first, last, replacement in sorted(edits, reverse=True):
        source = source[:first] + replacement + source[last:]
    return source
