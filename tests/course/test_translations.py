"""The Chinese edition (tools/zh.py) cannot silently fall out of date.

For every English lesson: each markdown cell has a Chinese translation that is not fuzzy (an English cell
edited since it was translated counts as stale, as gettext's msgmerge would mark it); the committed
notebooks/zh_CN/<lesson> is what `python -m tools.zh build` writes now (its outputs are its own: strict nbval
re-executes the Chinese lessons in `make test` and compares them); its code is the English code with only
comments and string literals translated and Chinese chosen in the set-up call; the package's catalogues are
complete and compiled. The rest tests the tool itself on small notebooks: gettext update rules, links,
badges, bad input.
"""

from __future__ import annotations

import json
import re
import shutil
import tokenize
from pathlib import Path

import pytest

from delivery import colab
from tools import zh
from tools.i18n import catalogue, code_cells, edition, package, pofile
from tools.i18n.errors import TranslationError

REPO = Path(__file__).resolve().parents[2]

LESSONS = catalogue.english_lessons()
GLOSSARY = REPO / "docs" / "glossary.md"


def lesson_ids(paths):
    return [path.stem for path in paths]


# -- the committed edition ---------------------------------------------------------------------------------
def test_there_are_english_lessons_to_translate():
    assert LESSONS and LESSONS[0].name == "01_embedding_lookup.ipynb"
    assert all(path.parent == REPO / "notebooks" for path in LESSONS), "a built Chinese lesson was taken for English"


@pytest.mark.parametrize("lesson", LESSONS, ids=lesson_ids(LESSONS))
def test_every_english_markdown_cell_has_a_current_translation(lesson):
    notebook = catalogue.read_notebook(lesson)
    found = catalogue.problems(lesson, notebook, catalogue.merged(lesson, notebook))
    assert not found, (f"{len(found)} cell(s) of {lesson.name} without a current Chinese translation — run "
                       "`python -m tools.zh extract`, translate or review them in "
                       f"translations/zh_CN/{lesson.stem}.po (clear the fuzzy flag), then `make zh`:\n"
                       + "\n".join(map(str, found)))


@pytest.mark.parametrize("lesson", LESSONS, ids=lesson_ids(LESSONS))
def test_built_chinese_lesson_is_what_the_build_writes_now(lesson):
    target = edition.chinese_path(lesson)
    assert target.is_file(), f"{target.relative_to(REPO)} is missing: run `make zh`"
    try:
        current = edition.is_current(lesson)
    except TranslationError as error:
        pytest.fail(str(error), pytrace=False)
    assert current, (f"{target.relative_to(REPO)} differs from what `python -m tools.zh build` writes now (the "
                     "English lesson or a catalogue changed since it was built): run `make zh`")


def code_without_text(source: str) -> list[str]:
    """A cell's tokens other than comments and string literals (what a translation must not change)."""
    return [token.string for token in code_cells._tokens(source)
            if token.type not in (tokenize.COMMENT, tokenize.STRING, tokenize.NL, tokenize.NEWLINE)]


@pytest.mark.parametrize("lesson", LESSONS, ids=lesson_ids(LESSONS))
def test_chinese_code_is_the_english_code_with_its_text_translated(lesson):
    target = edition.chinese_path(lesson)
    if not target.is_file():
        pytest.fail(f"{target.relative_to(REPO)} is missing: run `make zh`", pytrace=False)
    english, chinese = (json.loads(path.read_text(encoding="utf-8")) for path in (lesson, target))
    assert [(c["cell_type"], c.get("id")) for c in chinese["cells"]] == \
           [(c["cell_type"], c.get("id")) for c in english["cells"]], f"{target.name}: cells differ in kind or order"
    set_up = 0
    for index, (en, zh_cell) in enumerate(zip(english["cells"], chinese["cells"], strict=True)):
        if en["cell_type"] != "code":
            continue
        zh_source = catalogue.cell_source(zh_cell)
        if code_cells.LANGUAGE_ARGUMENT in zh_source:
            set_up += 1
            zh_source = zh_source.replace(", " + code_cells.LANGUAGE_ARGUMENT, "").replace(code_cells.LANGUAGE_ARGUMENT, "")
        assert code_without_text(zh_source) == code_without_text(catalogue.cell_source(en)), (
            f"{target.name} cell {index}: the code differs from the English beyond comments and string literals")
        assert zh_cell["metadata"].get("tags") == en["metadata"].get("tags"), f"{target.name} cell {index}: tags differ"
    assert set_up == 1, f"{target.name}: expected one set-up call choosing Chinese ({code_cells.LANGUAGE_ARGUMENT})"


def test_make_test_checks_the_chinese_lessons_with_strict_nbval():
    """Their outputs are their own: `make test` must run strict nbval over notebooks/zh_CN as over the English."""
    makefile, zh_mk = ((REPO / name).read_text(encoding="utf-8") for name in ("Makefile", "zh.mk"))
    recipe = zh_mk.split("\ntest-zh-lessons:", 1)[1].split("\n\n", 1)[0]
    assert "$(NBVAL)" in recipe and "$$($(PY) -m tools.course --chinese)" in recipe, recipe
    test_recipe = makefile.split("\ntest:", 1)[1].split("\n\n", 1)[0]
    assert "lane-test-zh-lessons" in test_recipe, "make test must run it (at the end of a lane)"
    assert "\nlane-test-zh-lessons: lane-test-hub ; @$(MAKE) --no-print-directory test-zh-lessons\n" in makefile


@pytest.mark.parametrize("part", [*package.parts(), package.WORKED_ANSWERS])
def test_the_package_text_is_translated(part):
    found = package.problems(part)
    assert not found, (f"{len(found)} entries of translations/zh_CN/lmtie_edu/{part}.po the Chinese lessons "
                       "would show in English — run `python -m tools.zh extract`, translate them, then `make zh`:\n"
                       + "\n".join(found))


def test_the_compiled_catalogue_is_current():
    assert package.is_compiled_current(), (f"{package.COMPILED.relative_to(REPO)} is not what the catalogues "
                                           "compile to: run `python -m tools.zh build`")


def glossary_avoided_terms() -> dict[str, str]:
    """docs/glossary.md's last column: Chinese words not to use, each mapped to the term to use instead (an entry
    in backticks is a regular expression: an English rendering, a number style)."""
    avoided = {}
    for line in GLOSSARY.read_text(encoding="utf-8").splitlines():
        cells = [cell.strip().replace("\0", "|") for cell in line.replace("\\|", "\0").strip().strip("|").split("|")]
        if len(cells) == 4 and cells[3] and not set(cells[3]) <= set("-: ") and cells[0] != "English":
            words = [cells[3]] if cells[3].startswith("`") else re.split(r"[、,，]\s*", cells[3])
            for word in words:
                avoided[word.strip()] = cells[1]
    return avoided


NOT_TEXT = re.compile(r"`[^`\n]*`|\$[^$]+\$|\{[^{}\n]*\}|\]\([^)]*\)")  # code spans, formulas, fields, link targets


def avoided_in(text: str, avoided: dict[str, str]) -> list[tuple[str, str, str]]:
    """(term not used, the glossary's term, where) for each avoided term in ``text`` (blockquotes aside: a verbatim
    quote keeps its author's words)."""
    text = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith(">"))
    prose = NOT_TEXT.sub(" ", text)
    found = []
    for word, use in avoided.items():
        match = re.search(word[1:-1], prose) if word.startswith("`") else re.search(re.escape(word), text)
        if match:
            source = prose if word.startswith("`") else text
            found.append((word, use, source[max(0, match.start() - 25):match.end() + 25]))
    return found


def test_translations_use_the_glossary_terms():
    """Every catalogue — markdown, code cells, the package's text, the worked answers — and the Chinese instructor
    guide use docs/glossary.md's term for a concept, and no other rendering of it."""
    avoided = glossary_avoided_terms()
    assert avoided, f"{GLOSSARY} lists no terms to avoid (its table's 4th column)"
    assert "伪共享" in avoided and "`\\bstate dict\\b`" in avoided, "the glossary's terms of issue 38 are listed"
    found = []
    for path in sorted(catalogue.CATALOGUE_DIR.rglob("*.po")):
        for message in pofile.read_catalogue(path):
            if message.id and message.string:
                found += [f"{path.relative_to(catalogue.CATALOGUE_DIR)}: {word!r} (glossary: {use}) in {where!r}"
                          for word, use, where in avoided_in(message.string, avoided)]
    for path in sorted((REPO / "docs" / "zh_CN").rglob("*.md")):
        found += [f"{path.relative_to(REPO)}: {word!r} (glossary: {use}) in {where!r}"
                  for word, use, where in avoided_in(path.read_text(encoding="utf-8"), avoided)]
    assert not found, "translations use terms that docs/glossary.md replaces:\n" + "\n".join(found)


def test_the_glossary_lists_regular_expressions_that_find_what_they_name():
    avoided = glossary_avoided_terms()
    for word, text in [("`(?<![.\\w])std\\b(?!\\()`", "初始化（std 0.02）"), ("`\\d %`", "约占 22 %"),
                       ("`\\d+(?:\\.\\d+)?M ?(?:个|参数)`", "约有 12M 个参数")]:
        assert word in avoided and avoided_in(text, {word: "x"}), word
    assert not avoided_in("`init_std` 与 `x.std()` 以及 {std:>5}、SmolLM2-135M、22%", avoided)


# -- the tool on small notebooks ---------------------------------------------------------------------------
def markdown_notebook(*texts: str) -> dict:
    cells = [{"cell_type": "markdown", "id": f"c{i}", "metadata": {}, "source": text} for i, text in enumerate(texts)]
    cells.append({"cell_type": "code", "id": "code", "metadata": {}, "execution_count": 1, "source": "1 + 1",
                  "outputs": [{"output_type": "execute_result", "execution_count": 1, "metadata": {},
                               "data": {"text/plain": "2"}}]})
    return {"cells": cells, "metadata": {"widgets": {"state": "kept"}}, "nbformat": 4, "nbformat_minor": 5}


@pytest.fixture
def scratch(tmp_path, monkeypatch):
    """A lesson folder, a catalogue folder and a Chinese folder of its own, all in tmp_path."""
    monkeypatch.setattr(catalogue, "CATALOGUE_DIR", tmp_path / "po")
    monkeypatch.setattr(edition, "CHINESE_DIR", tmp_path / "zh_CN")
    (tmp_path / "en").mkdir()

    def write_lesson(*texts: str) -> Path:
        path = tmp_path / "en" / "01_toy.ipynb"
        path.write_text(json.dumps(markdown_notebook(*texts)), encoding="utf-8")
        return path

    return write_lesson


def translate_all(lesson: Path, **chinese_by_english: str) -> None:
    po = pofile.read_catalogue(catalogue.catalogue_path(lesson))
    for message in po:
        if message.id in chinese_by_english:
            message.string, message.flags = chinese_by_english[message.id], set()
    catalogue.catalogue_path(lesson).write_bytes(pofile.render(po))


def test_extract_then_build_then_an_edit_makes_the_entry_fuzzy(scratch):
    lesson = scratch("# Lesson 01 — Toy", "Tying joins two matrices of shape $(V, d)$.")
    assert catalogue.extract(lesson) and not catalogue.extract(lesson), "a second extract must change nothing"
    translate_all(lesson, **{"# Lesson 01 — Toy": "# 第 01 课 — 玩具",
                             "Tying joins two matrices of shape $(V, d)$.": "绑定连接两个形状为 $(V, d)$ 的矩阵。"})
    assert edition.write(lesson)
    built = json.loads(edition.chinese_path(lesson).read_text(encoding="utf-8"))
    assert ["".join(cell["source"]) for cell in built["cells"][:2]] == ["# 第 01 课 — 玩具", "绑定连接两个形状为 $(V, d)$ 的矩阵。"]
    code = built["cells"][2]
    assert ("".join(code["source"]), code["execution_count"], "".join(code["outputs"][0]["data"]["text/plain"])) == \
        ("1 + 1", 1, "2") and built["metadata"] == {"widgets": {"state": "kept"}}

    scratch("# Lesson 01 — Toy", "Tying joins two matrices of shape $(V, d)$, the same shape.", "A new cell.")
    with pytest.raises(TranslationError) as refused:
        edition.build_notebook(lesson)
    assert "01_toy: markdown cell 1 (id c1) changed in English since it was translated" in str(refused.value)
    assert "01_toy: markdown cell 2 (id c2) has no Chinese translation: 'A new cell.'" in str(refused.value)
    assert catalogue.extract(lesson)
    text = catalogue.catalogue_path(lesson).read_text(encoding="utf-8")
    assert "#, fuzzy\n#| msgid \"Tying joins two matrices of shape $(V, d)$.\"" in text, text
    assert 'msgid "A new cell."\nmsgstr ""' in text
    assert not catalogue.extract(lesson), "a second extract must keep the fuzzy entry and its old msgid as they are"


def test_a_removed_english_cell_leaves_no_stale_entry(scratch):
    lesson = scratch("Kept.", "Removed later, and long enough to be nothing like the kept cell.")
    catalogue.extract(lesson)
    translate_all(lesson, **{"Kept.": "保留。"})
    scratch("Kept.")
    catalogue.extract(lesson)
    po = pofile.read_catalogue(catalogue.catalogue_path(lesson))
    assert [m.id for m in po if m.id] == ["Kept."] and not po.obsolete
    assert "#~" not in catalogue.catalogue_path(lesson).read_text(encoding="utf-8")


def test_build_refuses_a_translation_that_changes_a_formula_or_a_link(scratch):
    lesson = scratch("See [lesson 02](02_next.ipynb) for $h W^\\top$.")
    catalogue.extract(lesson)
    translate_all(lesson, **{"See [lesson 02](02_next.ipynb) for $h W^\\top$.": "见[第 02 课](03_next.ipynb)：$hW$。"})
    with pytest.raises(TranslationError, match=r"01_toy: markdown cell 0 \(id c0\): link targets differ"):
        edition.build_notebook(lesson)


@pytest.mark.parametrize(("english", "chinese", "differences"), [
    ("keeps `W[ids]` and $(V, d)$", "保留 $(V, d)$ 与 `W[ids]`", []),
    ("a span `nn.Linear(d,\nV)` wrapped, ``x`y``", "换行的 `nn.Linear(d, V)`，``x`y``", []),
    (r"cost $V\cdot d$ and `$HOME`", r"代价 $V \cdot d$，`$HOME`", ["formulas"]),
    ("call `backward()`", "调用 `backward`", ["inline code"]),
])
def test_kept_differences_names_what_changed(english, chinese, differences):
    found = edition.kept_differences(english, chinese)
    assert [text.split(" differ")[0] for text in found] == differences, found


@pytest.mark.parametrize(("english", "chinese"), [
    ("[next](02_logits_as_inner_products.ipynb)", "[next](02_logits_as_inner_products.ipynb)"),
    ("[README](../README.md)", "[README](../../README.zh-CN.md)"),
    ("[where to run](../README.md#where-to-run-it)", "[where to run](../../README.zh-CN.md)"),
    ("[guide](../docs/instructor.md)", "[guide](../../docs/instructor.md)"),
    ("[figure](figures/a.png)", "[figure](../figures/a.png)"),
    ("[web](https://github.com/x/y) [here](#summary)", "[web](https://github.com/x/y) [here](#summary)"),
    ("See [the guide][g].\n\n[g]: ../docs/instructor.md", "See [the guide][g].\n\n[g]: ../../docs/instructor.md"),
])
def test_relink_from_one_folder_deeper(english, chinese):
    assert edition.relink(english) == chinese


def test_badges_open_the_chinese_lesson():
    url = "https://github.com/owner/course"
    english = colab.badge_source(url, "main", "01_embedding_lookup.ipynb")
    assert edition.chinese_badges(english, "01_embedding_lookup.ipynb") == \
        colab.badge_source(url, "main", "zh_CN/01_embedding_lookup.ipynb")
    with pytest.raises(TranslationError, match="re-stamp|Re-stamp"):
        edition.chinese_badges(english, "02_other.ipynb")


def test_editing_a_copy_of_an_english_lesson_fails_the_check(tmp_path, capsys):
    copy = tmp_path / LESSONS[0].name
    shutil.copy(LESSONS[0], copy)
    notebook = json.loads(copy.read_text(encoding="utf-8"))
    index, cell = catalogue.translatable_cells(notebook)[1]
    cell["source"] = catalogue.cell_source(cell).replace("\n", " (edited)\n", 1)
    copy.write_text(json.dumps(notebook), encoding="utf-8")
    assert zh.main(["check", str(copy)]) == 1
    assert f"markdown cell {index} (id {cell['id']}) changed in English since it was translated" in capsys.readouterr().err


@pytest.mark.parametrize(("call", "expected"), [
    (lambda tmp: catalogue.read_notebook(tmp / "notes.txt"), "expected an existing .ipynb lesson file"),
    (lambda tmp: catalogue.read_notebook(tmp / "broken.ipynb"), "not a notebook (invalid JSON"),
    (lambda tmp: pofile.read_catalogue(tmp / "broken.po"), "broken.po: not a readable gettext catalogue"),
    (lambda tmp: zh.resolve_lesson("99"), "'99' is not one lesson of"),
    (lambda tmp: zh.run("build", [str(tmp / "broken.ipynb")]), "build works on the lessons in"),
])
def test_bad_input_is_named(tmp_path, call, expected):
    (tmp_path / "notes.txt").write_text("not a notebook")
    (tmp_path / "broken.ipynb").write_text("{ not json")
    (tmp_path / "broken.po").write_text('msgid "a"\nmsgstr "b"\nthis line is not gettext\n')
    with pytest.raises(TranslationError) as error:
        call(tmp_path)
    assert expected in str(error.value)


def test_every_catalogue_header_names_its_translators_not_placeholders():
    placeholders = ("FULL NAME", "YEAR-MO-DA", "EMAIL@ADDRESS", "ORGANIZATION", "FIRST AUTHOR", "LL@li.org")
    found = [f"{path.relative_to(catalogue.CATALOGUE_DIR)}: {word}" for path in sorted(catalogue.CATALOGUE_DIR.rglob("*.po"))
             for word in placeholders if word in path.read_text(encoding="utf-8").split("\n\n", 1)[0]]
    assert not found, "run `python -m tools.zh extract` (it writes the team's header):\n" + "\n".join(found)


def test_a_message_shared_by_two_parts_of_the_package_has_one_translation():
    """gettext keeps one translation per English text: two catalogues must not disagree about it."""
    seen, found = {}, []
    for part in package.parts():
        for message in pofile.read_catalogue(package.part_catalogue(part)):
            if message.id and message.string:
                first = seen.setdefault(message.id, (part, message.string))
                if first[1] != message.string:
                    found.append(f"{message.id!r}: {first[0]} says {first[1]!r}, {part} says {message.string!r}")
    assert not found, "the compiled catalogue would keep only one of these:\n" + "\n".join(found)


# -- code cells (tools/i18n/code_cells.py) -----------------------------------------------------------------
CODE = '''setup_lesson(seed=0)  # seeds and threads
rows = 3
print(f"rows with a gradient: {rows}", "tied")
key = {"tied": 1}["tied"]
label = "yes" if rows else "no"
'''


def test_code_cell_messages_are_comments_and_shown_literals_only():
    found = [text for _token, text in code_cells.messages(CODE)]
    assert found == ["seeds and threads", 'f"rows with a gradient: {rows}"', '"tied"', '"yes"', '"no"'], found


def test_a_code_cell_is_translated_token_by_token_and_chooses_chinese():
    po = pofile.new_catalogue()
    for english, chinese in [("seeds and threads", "随机种子与线程"), ('f"rows with a gradient: {rows}"', 'f"有梯度的行：{rows}"'),
                             ('"tied"', '"绑定"'), ('"yes"', '"是"'), ('"no"', '"否"')]:
        po.add(english, chinese)
    source, problems = code_cells.translate(CODE, po, "toy")
    assert problems == []
    assert code_cells.choose_chinese(source).splitlines()[:3] == [
        'setup_lesson(seed=0, language="zh_CN")  # 随机种子与线程', "rows = 3", 'print(f"有梯度的行：{rows}", "绑定")']
    assert 'key = {"tied": 1}["tied"]' in source, "a dictionary key is code: not a message"


def test_a_translation_that_changes_an_f_string_field_or_breaks_the_literal_is_refused():
    po = pofile.new_catalogue()
    po.add('f"rows with a gradient: {rows}"', 'f"有梯度的行：{len(rows)}"')
    po.add("seeds and threads", '随机种子\n与线程')
    po.add('"tied"', '"绑定')
    _source, problems = code_cells.translate(CODE, po, "toy")
    assert any("f-string's fields" in problem for problem in problems), problems
    assert any("one line" in problem for problem in problems) and any("valid Python" in problem for problem in problems)
    assert any("untranslated" in problem and '"yes"' in problem for problem in problems)


def test_a_package_translation_must_keep_the_fields_the_code_fills():
    po = pofile.new_catalogue()
    po.add("{name}: {count} rows", "{name}：{count} 行")
    po.add("{what} must return {article} {names}", "{what} 必须返回 {names}")
    po.add("Right.", "")
    found = package.problems("kit", po)
    assert len(found) == 2, found
    assert "fields ['names', 'what'] are not the English ['article', 'names', 'what']" in found[0]
    assert "untranslated: 'Right.'" in found[1]
    assert package.fields("{loss:.3f} after {{braces}} and {steps:,}") == {"loss", "steps"}
    assert package.fields(r"a law $N_v \propto N_{nv}^{0.83}$ for {name}") == {"name"}  # TeX's braces are not fields
