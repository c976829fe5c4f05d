"""Build a Chinese lesson, notebooks/zh_CN/<stem>.ipynb, from the English lesson and its catalogues.

Each English markdown cell is replaced by its translation (translations/zh_CN/<stem>.po). Each code cell is
the English code with its comments and printed text translated (translations/zh_CN/code/<stem>.po, see
tools/i18n/code_cells.py) and the set-up call choosing Chinese. Cell ids and metadata are the English
lesson's. The Chinese lesson is then *executed* (`python -m tools.zh build` runs it when its code or the
package text it shows changed, see :func:`with_kept_outputs`):
its outputs are its own — Chinese check lines, hints and figures — and strict nbval compares them like
the English ones'. A build keeps the outputs of a code cell whose code did not change.

Links: a link to another lesson (``02_x.ipynb``) keeps its file name — the Chinese lessons sit side by side
in notebooks/zh_CN/. Any other relative link is one folder deeper now (``../docs/x.md`` becomes
``../../docs/x.md``), and the README becomes the Chinese one (``../../README.zh-CN.md``). The Colab and
Binder badges open notebooks/zh_CN/<stem>.ipynb.

A translation must keep the English cell's link targets, formulas and inline code (as sets: it may reorder
them, not change them); a translation that does not is refused with the differences. The words of a formula,
``\\text{through the lookup}`` (a phrase of several words, or already Chinese), may be translated; a
one-word name such as ``W_\\text{out}`` or ``\\text{logits}`` stays as it is.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path

import nbformat

from tools.backup import keep_before_overwrite, say_kept

from . import code_cells, package
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
# A phrase inside a formula, \text{through the lookup}, is prose: a translation may change it, not the rest.
FORMULA_WORDS = re.compile(r"\\text\{(?:[^{}$]*[^\x00-\x7f][^{}$]*|[^{}$]*[A-Za-z]+ +[A-Za-z][^{}$]*)\}")


def _spans(pattern: re.Pattern, text: str) -> set[str]:
    return {" ".join(match.group(0).split()) for match in pattern.finditer(text)}


KEPT = {
    "link targets": lambda text: {match.group(2) for match in LINK_TARGET.finditer(text)},
    "inline code": lambda text: _spans(INLINE_CODE, text),
    "formulas": lambda text: {FORMULA_WORDS.sub(r"\\text{…}", span) for span in _spans(FORMULA, INLINE_CODE.sub("", text))},
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
    """The badge cell of delivery/colab.py with its two URLs moved to notebooks/zh_CN/<notebook>."""
    result = english  # Colab's path as it is; Binder's nbgitpuller path encoded twice (delivery.colab.binder_link)
    for old, new in ((f"/notebooks/{notebook_name}", f"/notebooks/zh_CN/{notebook_name}"),
                     (f"notebooks%252F{notebook_name}", f"notebooks%252Fzh_CN%252F{notebook_name}")):
        if result.count(old) != 1:
            raise TranslationError(
                f"{notebook_name}: the badge cell should contain {old!r} exactly once (as delivery/colab.py writes "
                f"it); it contains it {result.count(old)} times. Re-stamp with `python -m delivery.colab`.")
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


def build_notebook(lesson: Path) -> dict:
    """The Chinese lesson, unexecuted; TranslationError naming every cell that has no usable translation."""
    lesson = Path(lesson)
    notebook = read_notebook(lesson)
    catalogue = merged(lesson, notebook)
    refused = [str(problem) for problem in problems(lesson, notebook, catalogue)]
    code = code_cells.merged(lesson, notebook) if code_cells.catalogue_path(lesson).exists() else None
    chinese = copy.deepcopy(notebook)
    for index, cell in enumerate(chinese["cells"]):
        english = cell_source(cell)
        if cell.get("cell_type") == "code" and code is not None:
            source, found = code_cells.translate(english, code, f"{lesson.stem}: code cell {index}")
            refused += found
            cell["source"] = code_cells.choose_chinese(source)
            cell["outputs"], cell["execution_count"] = [], None
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
            f"extract`, fix each entry in translations/zh_CN/{lesson.stem}.po or translations/zh_CN/code/"
            f"{lesson.stem}.po (and clear its fuzzy flag once reviewed), then build again:\n  " + "\n  ".join(refused))
    return chinese


def with_kept_outputs(chinese: dict, target: Path) -> tuple[dict, bool]:
    """``chinese`` with the outputs of the committed lesson's cells whose code is unchanged; and whether any
    code cell or the package text the lesson shows changed (then the lesson must be executed again)."""
    if not code_cells.uses_chinese(chinese):
        return chinese, False  # an edition with English code: the English outputs are its own
    old = read_notebook(target) if target.exists() else {"cells": [], "metadata": {}}
    old_cells = old["cells"] if len(old["cells"]) == len(chinese["cells"]) else [{}] * len(chinese["cells"])
    text = package.fingerprint(target.stem)
    chinese["metadata"].setdefault("lmtie_edu", {})["package_text"] = text
    changed = old.get("metadata", {}).get("lmtie_edu", {}).get("package_text") != text
    for cell, before in zip(chinese["cells"], old_cells, strict=True):
        if cell.get("cell_type") != "code":
            continue
        if before.get("cell_type") == "code" and cell_source(before) == cell_source(cell):
            cell["outputs"], cell["execution_count"] = before.get("outputs", []), before.get("execution_count")
            cell["metadata"] = before.get("metadata", cell["metadata"])
        else:
            changed = True
    if not changed and "widgets" in old.get("metadata", {}):  # unchanged: the executed widget state stays
        chinese["metadata"]["widgets"] = old["metadata"]["widgets"]
    return chinese, changed


def render_notebook(notebook: dict) -> str:
    # nbformat writes it exactly as tools/execute_notebooks.py and delivery/colab.py write the English lessons.
    return nbformat.writes(nbformat.from_dict(notebook)) + "\n"


def write(lesson: Path, *, execute: bool = True) -> bool:
    """Build the Chinese lesson and write it if it changed (executing it when its code or the package text it
    shows changed); True if written."""
    target = chinese_path(lesson)
    chinese, changed = with_kept_outputs(build_notebook(lesson), target)
    text = render_notebook(chinese)
    if target.exists() and target.read_text(encoding="utf-8") == text:
        return False
    target.parent.mkdir(parents=True, exist_ok=True)
    say_kept(target, keep_before_overwrite(target))  # a learner's edits of a Chinese lesson are not lost
    target.write_text(text, encoding="utf-8")
    if changed and execute:
        from tools.execute_notebooks import execute as run_notebook

        print(f"executing {target.relative_to(ENGLISH_DIR.parent)} (its code or the package text it shows "
              "changed) …", flush=True)
        run_notebook(target, keep_previous=False)  # the lesson as it stood was kept just above
    return True


def comparable(notebook: dict) -> list:
    """What a build decides in a lesson: each cell's type, id, source and metadata (not outputs)."""
    return [(cell.get("cell_type"), cell.get("id"), cell_source(cell),
             cell.get("metadata") if cell.get("cell_type") == "markdown" else None) for cell in notebook["cells"]]


def is_current(lesson: Path) -> bool:
    """Whether the committed Chinese lesson is what a build would write now (outputs aside: nbval checks them).

    Raises TranslationError (naming the cells) when the lesson cannot be built at all."""
    chinese = build_notebook(lesson)
    target = chinese_path(lesson)
    if not target.exists():
        return False
    if not code_cells.uses_chinese(chinese):
        return target.read_text(encoding="utf-8") == render_notebook(chinese)
    committed = read_notebook(target)
    text = committed.get("metadata", {}).get("lmtie_edu", {}).get("package_text")
    return comparable(committed) == comparable(chinese) and text == package.fingerprint(target.stem)
