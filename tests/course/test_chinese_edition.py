"""A Chinese lesson speaks Chinese: no English sentence outside code identifiers, library output and citations.

Everything a learner of notebooks/zh_CN/ reads is searched for English: the markdown (code spans, formulas,
link targets and italic titles aside), the comments and string literals of the code cells, the printed
outputs (HTML tags aside) and the widgets' labels and options in the stored widget state. A run of four or
more English words counts as an English sentence; in a printed output, a run of one to three English words
(a table's row label, ``train:``, a dict's key) counts as an English label. What is left on purpose — a library's own message, a paper
title, a quoted documentation line — is listed with its reason in translations/zh_CN/english_kept.txt
(``lesson<TAB>regular expression<TAB>reason``); anything else fails, listed.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest

from tools.i18n import catalogue, code_cells, edition

REPO = Path(__file__).resolve().parents[2]
KEPT = REPO / "translations" / "zh_CN" / "english_kept.txt"
LESSONS = catalogue.english_lessons()
ENGLISH_RUN = re.compile(r"[A-Za-z][A-Za-z'’-]*(?:[ ,;:]+(?:[A-Za-z][A-Za-z'’-]*|\d+)){3,}")
# An identifier-like word (snake_case, dotted, CamelCase with digits) is code, not English.
CODE_WORD = re.compile(r"\S*[_.()\[\]=/<>@`]\S*|\S*[a-z][A-Z]\S*")
FIELD = re.compile(r"\{[^{}]*\}")
MARKDOWN_NOT_PROSE = [re.compile(pattern, re.DOTALL) for pattern in (
    r"```.*?```", r"(?<!`)(`+)(?!`).+?(?<!`)\1(?!`)", r"\$\$.+?\$\$", r"\$[^$]+\$", r"\]\([^)]*\)",
    r"https?://\S+", r"<[^>]+>", r"(?<![*\w])\*(?!\s)[^*\n]+?\*(?!\*)")]


def english_runs(text: str) -> list[str]:
    words_only = " ".join(word for word in text.split() if not CODE_WORD.fullmatch(word))
    # four or more words with lower-case letters: model names and acronyms (BERT-base MLM, GPT-2 XL) are not prose
    return [run for run in ENGLISH_RUN.findall(words_only) if len(re.findall(r"\b[A-Za-z]?[a-z]{2,}", run)) >= 4]


LABEL_RUN = re.compile(r"(?<![A-Za-z0-9-])[A-Za-z][A-Za-z'’-]*(?:[ ,]+[A-Za-z][A-Za-z'’-]*)*(?![A-Za-z0-9])")


def english_labels(text: str) -> list[str]:
    """Runs of one to three English words in printed text, each run with a lower-case word (a table's row label,
    ``train:``); longer runs are sentences (:func:`english_runs`); identifiers and numbers (``fp32``) are code."""
    found = []
    for line in text.splitlines():
        words_only = " ".join("|" if CODE_WORD.fullmatch(word) else word for word in line.split())
        for run in LABEL_RUN.findall(words_only):
            run = run.strip(" ,'’-")
            if len(run.replace(",", " ").split()) <= 3 and re.search(r"\b[a-z][a-z'’-]+", run) and not english_runs(run):
                found.append(run)
    return found


def markdown_prose(source: str) -> str:
    for pattern in MARKDOWN_NOT_PROSE:
        source = pattern.sub(" ", source)
    return source


def output_text(output: dict) -> str:
    if "application/vnd.jupyter.widget-view+json" in output.get("data", {}):
        return ""  # a widget: its text/plain is a repr the learner never sees (its labels: widget_texts)
    if output.get("output_type") == "stream":
        return "".join(output.get("text", ""))
    data = output.get("data", {})
    if "text/html" in data:
        return html.unescape(re.sub(r"<[^>]+>", " ", "".join(data["text/html"])))
    return "".join(data.get("text/plain", ""))


def widget_texts(notebook: dict) -> list[str]:
    state = notebook.get("metadata", {}).get("widgets", {}).get("application/vnd.jupyter.widget-state+json", {})
    texts = []
    for model in state.get("state", {}).values():
        values = model.get("state", {})
        for key in ("description", "placeholder", "_options_labels"):
            value = values.get(key)
            texts += value if isinstance(value, list) else [value] if isinstance(value, str) else []
        if model.get("model_name") == "HTMLModel":
            texts.append(html.unescape(re.sub(r"<[^>]+>", " ", values.get("value", ""))))
    return texts


def what_a_learner_reads(notebook: dict) -> list[tuple[str, str]]:
    """(where, text) for every piece of text of a built Chinese lesson."""
    found = []
    for index, cell in enumerate(notebook["cells"]):
        source = catalogue.cell_source(cell)
        if cell["cell_type"] == "markdown":
            found.append((f"markdown cell {index}", markdown_prose(source)))
        elif cell["cell_type"] == "code":
            found += [(f"code cell {index}", FIELD.sub(" ", text).strip("\"'f"))  # an f-string's {code} is code
                      for _token, text in code_cells.messages(source)]
            found += [(f"output of cell {index}", output_text(output)) for output in cell.get("outputs", [])]
    found += [("a widget", text) for text in widget_texts(notebook)]
    return found


def kept_patterns(stem: str) -> list[re.Pattern]:
    patterns = []
    for line in KEPT.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            lesson, pattern, _reason = line.split("\t")
            if lesson in ("*", stem[:2]):
                patterns.append(re.compile(pattern))
    return patterns


def english_left(lesson: Path) -> list[str]:
    notebook = json.loads(edition.chinese_path(lesson).read_text(encoding="utf-8"))
    kept = kept_patterns(lesson.stem)
    return [f"{where}: {run!r}" for where, text in what_a_learner_reads(notebook) for run in english_runs(text)
            if not any(pattern.search(run) or pattern.search(text) for pattern in kept)]


def english_labels_left(lesson: Path) -> list[str]:
    """The English labels of a Chinese lesson's printed outputs, other than those kept on purpose (a kept
    pattern matches the label itself, ``^…$`` for a single word, or the line it is printed on)."""
    notebook = json.loads(edition.chinese_path(lesson).read_text(encoding="utf-8"))
    kept = kept_patterns(lesson.stem)
    return [f"{where}: {run!r}" for where, text in what_a_learner_reads(notebook) if where.startswith("output")
            for line in text.splitlines() for run in english_labels(line)
            if not any(pattern.search(run) or pattern.search(line) for pattern in kept)]


@pytest.mark.parametrize("lesson", LESSONS, ids=[lesson.stem for lesson in LESSONS])
def test_a_chinese_lesson_shows_no_english_sentence(lesson):
    left = english_left(lesson)
    assert not left, (f"{len(left)} English sentence(s) left in notebooks/zh_CN/{lesson.name} — translate them "
                      f"(translations/zh_CN/…), or list a library's own text in {KEPT.relative_to(REPO)}:\n"
                      + "\n".join(left))


@pytest.mark.parametrize("lesson", LESSONS, ids=[lesson.stem for lesson in LESSONS])
def test_a_chinese_lesson_prints_no_english_label(lesson):
    left = english_labels_left(lesson)
    assert not left, (f"{len(left)} English label(s) printed in notebooks/zh_CN/{lesson.name} — print a Chinese "
                      "label (a key the code compares stays the key: show tr(key) or a label chosen in the cell), or "
                      f"list a library's own word in {KEPT.relative_to(REPO)}:\n" + "\n".join(left))


def test_the_detector_finds_english_and_leaves_code_alone():
    assert english_runs("损失 the loss goes down slowly 下降") == ["the loss goes down slowly"]
    assert english_runs("model.head.weight is model.embedding.weight") == []
    assert english_runs("torch 2.13 梯度 (V, d) = (10, 4)") == []
    assert markdown_prose("见 `the head is the embedding` 与 $\\text{through the lookup}$").split() == ["见", "与"]
    assert english_labels("  tied, deeper   69.3 ± 4.6 | train: -9.8 | 'never seen': 3") == ["tied, deeper", "train",
                                                                                             "never seen"]
    assert english_labels("model.head.weight is_tied=True GPT-2 XL (V, d) 形状") == []
