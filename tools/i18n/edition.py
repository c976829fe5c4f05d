"""Build a Chinese lesson, notebooks/zh_CN/<stem>.ipynb, from the English lesson and its catalogue.

Only markdown changes: each English markdown cell is replaced by its translation. Code cells, their
outputs and execution counts, cell ids and metadata, and the notebook's metadata (with the widget state)
are the English lesson's own, so the Chinese lesson shows the same results without being re-executed.

Links: a link to another lesson (``02_x.ipynb``) keeps its file name — the Chinese lessons sit side by side
in notebooks/zh_CN/. Any other relative link is one folder deeper now (``../docs/x.md`` becomes
``../../docs/x.md``), and the README becomes the Chinese one (``../../README.zh-CN.md``). The Colab and
Binder badges open notebooks/zh_CN/<stem>.ipynb.

A translation must keep the English cell's link targets, formulas and inline code (as sets: it may reorder
them, not change them); a translation that does not is refused with the differences.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path

import nbformat

from tools.backup import keep_before_overwrite, say_kept

from .catalogue import (
    BADGE_MARKER,
    ENGLISH_DIR,
    cell_source,
    is_translatable,
    merged,
    problems,
    read_notebook,
)
from .errors import TranslationError

CHINESE_DIR = ENGLISH_DIR / "zh_CN"
CHINESE_README = "README.zh-CN.md"
# An inline link's target, ``](target``, or a reference definition's, ``[name]: target`` at a line start.
LINK_TARGET = re.compile(r"(\]\(|^ {0,3}\[[^\]]+\]:[ \t]*)([^)\s]+)", re.MULTILINE)
LESSON_FILE = re.compile(r"\d\d_[\w-]+\.ipynb(#.*)?")
ABSOLUTE = re.compile(r"[a-z][a-z0-9+.-]*:|#|/", re.IGNORECASE)
# Code spans and formulas may wrap across lines in the English source; they are compared with whitespace
# collapsed, code first (a formula sign inside code is code), then formulas in what is left.
INLINE_CODE = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)", re.DOTALL)
FORMULA = re.compile(r"\$\$.+?\$\$|\$[^$]+\$", re.DOTALL)


def _spans(pattern: re.Pattern, text: str) -> set[str]:
    return {" ".join(match.group(0).split()) for match in pattern.finditer(text)}


KEPT = {
    "link targets": lambda text: {match.group(2) for match in LINK_TARGET.finditer(text)},
    "inline code": lambda text: _spans(INLINE_CODE, text),
    "formulas": lambda text: _spans(FORMULA, INLINE_CODE.sub("", text)),
}


def chinese_path(lesson: Path) -> Path:
    return CHINESE_DIR / Path(lesson).name


def relink(markdown: str) -> str:
    """Point the relative links of a cell in notebooks/ at the same files from notebooks/zh_CN/."""

    def one(match: re.Match) -> str:
        target = match.group(2)
        if ABSOLUTE.match(target) or LESSON_FILE.fullmatch(target):
            return match.group(0)
        target = "../" + target
        if target == "../../README.md" or target.startswith("../../README.md#"):
            target = "../../" + CHINESE_README  # its headings differ: an English anchor would not resolve
        return match.group(1) + target

    return LINK_TARGET.sub(one, markdown)


def chinese_badges(english: str, notebook_name: str) -> str:
    """The badge cell of tools/colab.py with its two URLs moved to notebooks/zh_CN/<notebook>."""
    result = english
    for old, new in ((f"/notebooks/{notebook_name}", f"/notebooks/zh_CN/{notebook_name}"),
                     (f"notebooks%2F{notebook_name}", f"notebooks%2Fzh_CN%2F{notebook_name}")):
        if result.count(old) != 1:
            raise TranslationError(
                f"{notebook_name}: the badge cell should contain {old!r} exactly once (as tools/colab.py writes "
                f"it); it contains it {result.count(old)} times. Re-stamp with `python -m tools.colab`.")
        result = result.replace(old, new)
    return result


def kept_differences(english: str, chinese: str) -> list[str]:
    """What the translation changed among link targets, formulas and inline code (empty when nothing)."""
    found = []
    for what, found_in in KEPT.items():
        source, translated = found_in(english), found_in(chinese)
        if source != translated:
            missing, extra = sorted(source - translated), sorted(translated - source)
            found.append(f"{what} differ from the English: missing {missing}, not in the English {extra}")
    return found


def build_notebook(lesson: Path) -> str:
    """The text of the Chinese lesson; TranslationError naming every cell that has no usable translation."""
    lesson = Path(lesson)
    notebook = read_notebook(lesson)
    catalogue = merged(lesson, notebook)
    refused = [str(problem) for problem in problems(lesson, notebook, catalogue)]
    chinese = copy.deepcopy(notebook)
    for index, cell in enumerate(chinese["cells"]):
        english = cell_source(cell)
        if cell.get("cell_type") != "markdown":
            continue
        if BADGE_MARKER in english:
            cell["source"] = chinese_badges(english, lesson.name)
        elif is_translatable(cell) and (message := catalogue.get(english)) and message.string and not message.fuzzy:
            differences = kept_differences(english, message.string)
            refused += [f"{lesson.stem}: markdown cell {index} (id {cell.get('id', '?')}): {text}"
                        for text in differences]
            cell["source"] = relink(message.string)
    if refused:
        raise TranslationError(
            f"{lesson.stem}: cannot build the Chinese lesson ({len(refused)} problem(s)). Run `python -m tools.zh "
            f"extract`, fix each entry in translations/zh_CN/{lesson.stem}.po (and clear its fuzzy flag once "
            "reviewed), then build again:\n  " + "\n  ".join(refused))
    # nbformat writes it exactly as tools/execute_notebooks.py and tools/colab.py write the English lessons.
    return nbformat.writes(nbformat.from_dict(chinese)) + "\n"


def write(lesson: Path) -> bool:
    """Build the Chinese lesson and write it if it changed; True if written."""
    text = build_notebook(lesson)
    target = chinese_path(lesson)
    if target.exists() and target.read_text(encoding="utf-8") == text:
        return False
    target.parent.mkdir(parents=True, exist_ok=True)
    say_kept(target, keep_before_overwrite(target))  # a learner's edits of a Chinese lesson are not lost
    target.write_text(text, encoding="utf-8")
    return True


def is_current(lesson: Path) -> bool:
    """Whether the committed Chinese lesson is exactly what a build would write now.

    Raises TranslationError (naming the cells) when the lesson cannot be built at all."""
    text = build_notebook(lesson)
    target = chinese_path(lesson)
    return target.exists() and target.read_text(encoding="utf-8") == text
