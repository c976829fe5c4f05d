"""The package's language (lmtie_edu/shared/language.py) and the Chinese figures' font (figure_fonts.py)."""

from __future__ import annotations

import json
import logging
import warnings

import matplotlib
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402 — after choosing the backend

from lmtie_edu.kit import exercises, predict  # noqa: E402
from lmtie_edu.shared import figure_fonts, language  # noqa: E402
from tools.i18n import catalogue, edition, package, pofile  # noqa: E402


@pytest.fixture
def chinese():
    """Chinese for one test, English again afterwards (the other tests compare English text)."""
    language.use("zh_CN")
    yield
    language.use("en")


def test_english_is_the_default_and_its_text_is_the_message_itself():
    assert language.current() == "en"
    assert language.tr("Right.") == "Right."
    assert language.tr("{name}: {count} rows", name="W", count=3) == "W: 3 rows"
    assert language.N_("marked only") == "marked only"


def test_an_unknown_language_is_refused_with_the_choices():
    with pytest.raises(ValueError, match=r"language must be one of 'en', 'zh_CN'; got 'fr'"):
        language.use("fr")
    assert language.current() == "en"


def test_chinese_translates_the_kit_and_english_comes_back(chinese):
    before = dict(figure_fonts._english)
    assert language.current() == "zh_CN"
    right = language.tr("Right.")
    assert right != "Right." and any("\u4e00" <= ch <= "\u9fff" for ch in right)
    assert "DejaVu Sans" in matplotlib.rcParams["font.family"]
    language.use("en")
    assert language.tr("Right.") == "Right."
    assert matplotlib.rcParams["font.family"] == (before or figure_fonts._english)["font.family"]


def test_a_choice_shows_translated_options_and_accepts_either_language(chinese):
    from lmtie_edu.lesson01 import questions

    question = questions.lookup_exact
    radio = question.ask().children[1]
    labels = [label for label, _value in radio.options]
    assert [value for _label, value in radio.options] == question.options  # the values stay English
    assert labels == [language.tr(option) for option in question.options]
    chinese_answer = language.tr(question.right)
    assert chinese_answer != question.right, "the lesson 01 catalogue translates its options"
    assert question.feedback(chinese_answer).startswith(language.tr("Right."))
    assert predict.PREDICTIONS["lookup_exact"] == {"guess": question.right, "correct": True}
    assert question.feedback(question.right).startswith(language.tr("Right."))


def test_a_hint_and_a_diagnosis_are_chinese(chinese, capsys):
    from lmtie_edu.lesson01 import exercises as ex

    exercises.HINTS_SHOWN.pop("bag_of_tokens", None)
    ex.hint("bag_of_tokens")
    ex.bag_of_tokens(lambda W, ids: (ids[..., None] == __import__("torch").arange(W.shape[0])).float().mean(1) @ W)
    printed = capsys.readouterr().out
    exercises.HINTS_SHOWN.pop("bag_of_tokens", None)
    assert language.tr(exercises.REGISTRY["bag_of_tokens"].hints[0]) in printed
    assert language.tr(exercises.REGISTRY["bag_of_tokens"].mistakes["mean_not_sum"]) in printed
    assert "hint 1 of 3" not in printed and "diagnosis:" not in printed


def code_tokens(source: str) -> list[str]:
    """The tokens of ``source`` other than its comments and docstrings: the code a reader runs."""
    import io
    import tokenize

    text = {start for start, _end, _kind, _message in language.source_text(source)}
    return [token.string for token in tokenize.generate_tokens(io.StringIO(source).readline)
            if token.start not in text and token.type not in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE)]


@pytest.mark.parametrize("lesson", [f"lesson{n:02}" for n in range(1, 10)])
def test_a_worked_answer_is_the_solution_with_its_comments_in_the_lesson_language(lesson):
    import importlib
    import inspect

    solutions = importlib.import_module(f"lmtie_edu.{lesson}.solutions")
    functions = [value for value in vars(solutions).values()
                 if inspect.isfunction(value) and value.__module__ == solutions.__name__]
    assert functions
    for function in functions:
        source = inspect.getsource(function)
        assert language.in_language(source) == source  # English: the source itself, byte for byte
        language.use("zh_CN")
        try:
            shown = language.in_language(source)
        finally:
            language.use("en")
        assert code_tokens(shown) == code_tokens(source), f"{function.__name__}: the code itself changed"
        for _start, _end, kind, text in language.source_text(shown):
            assert any("\u4e00" <= ch <= "\u9fff" for ch in text), f"{function.__name__}: an English {kind}: {text!r}"


def test_a_worked_answer_without_its_catalogue_stays_english(chinese, monkeypatch):
    """A graded copy of the package leaves the worked answers' catalogue out: the answer is then English."""
    import inspect

    from lmtie_edu.lesson01 import solutions

    monkeypatch.setattr(language, "WORKED_ANSWERS_DOMAIN", "no_such_domain")
    monkeypatch.setitem(language._state, "worked_answers", None)
    source = inspect.getsource(solutions.bag_of_tokens)
    assert language.in_language(source) == source


def every_chinese_character() -> str:
    found = set()
    for path in catalogue.CATALOGUE_DIR.rglob("*.po"):
        for message in pofile.read_catalogue(path):
            # CJK and full-width characters (emoji are in printed check lines, never in figures)
            found |= {character for character in message.string or "" if 0x2E80 <= ord(character) < 0x10000}
    return "".join(sorted(found))


def test_the_shipped_font_has_every_character_the_catalogues_use(chinese):
    characters = every_chinese_character()
    assert len(characters) > 500, "the catalogues should hold the Chinese edition's text"
    missing = []

    class Catch(logging.Handler):
        def emit(self, record):
            missing.append(record.getMessage())

    handler = Catch()
    logging.getLogger("matplotlib").addHandler(handler)
    try:
        with warnings.catch_warnings(record=True) as warned:
            warnings.simplefilter("always")
            figure, axes = plt.subplots(figsize=(8, 6))
            for row in range(0, len(characters), 60):
                axes.text(0, 1 - row / len(characters), characters[row:row + 60], fontsize=6)
            axes.set_title("梯度只到达被查找的行 W (rows 2, 5) −1.5")
            figure.canvas.draw()
            plt.close(figure)
    finally:
        logging.getLogger("matplotlib").removeHandler(handler)
    missing += [str(warning.message) for warning in warned if "glyph" in str(warning.message).lower()]
    assert not missing, ("the shipped CJK font lacks characters the catalogues use: run "
                         "`python -m tools.make_cjk_font` (needs fonts-noto-cjk):\n" + "\n".join(missing[:20]))


@pytest.mark.parametrize("lesson", catalogue.english_lessons(), ids=lambda path: path.stem)
def test_no_chinese_lesson_output_reports_a_missing_glyph(lesson):
    notebook = json.loads(edition.chinese_path(lesson).read_text(encoding="utf-8"))
    text = json.dumps([cell.get("outputs", []) for cell in notebook["cells"]], ensure_ascii=False)
    assert "missing from font" not in text and "substituting with a dummy symbol" not in text


def test_the_compiled_catalogue_ships_with_the_package():
    assert package.COMPILED.is_file() and figure_fonts.CJK_FONT.is_file()
    assert (figure_fonts.CJK_FONT.parent / "LICENSE-OFL.txt").is_file()
