"""The learner's path through each Chinese lesson, in Chinese: what tests/course/test_learner_path.py walks in
English, walked again after the Chinese lesson's own set-up choice (``language="zh_CN"``), through the modules
the Chinese lesson imports. Every check line, hint tier, diagnosis and predict-question feedback a learner can
call up is Chinese: it shows the catalogue's translation and no English sentence. The worked answer is the
reference solution's code with its comments and docstrings in Chinese (translations/zh_CN/lmtie_edu/
worked_answers.po)."""

from __future__ import annotations

import pytest

from lmtie_edu.kit.exercises import HINTS_SHOWN
from lmtie_edu.kit.predict import PREDICTIONS, Choice
from lmtie_edu.shared.language import source_text, tr, use
from tools.course import notebooks
from tools.learner_path import answer_in_widget

from .test_chinese_edition import english_runs, kept_patterns
from .test_learner_path import _lesson, _stub, checked_wrong_answers

CHINESE = notebooks(chinese=True)
LESSONS = {path.name: _lesson(path) for path in CHINESE}


@pytest.fixture(autouse=True)
def chinese():
    use("zh_CN")
    yield
    use("en")


def is_chinese(text: str) -> bool:
    return any("\u4e00" <= character <= "\u9fff" for character in text)


def english(text: str, notebook: str) -> list[str]:
    """English sentences in ``text`` other than those kept on purpose (a library's quoted message, …)."""
    kept = kept_patterns(notebook)
    return [run for run in english_runs(text) if not any(pattern.search(run) for pattern in kept)]


def assert_chinese(text: str, where: str) -> None:
    assert is_chinese(text) and not english(text, where), f"{where}: {text!r}"


@pytest.mark.parametrize("notebook", LESSONS)
def test_each_stub_and_every_hint_tier_speak_chinese(notebook, capsys):
    lesson = LESSONS[notebook]
    ex = lesson["ex"]
    assert lesson["stubs"] and len(lesson["stubs"]) == len(lesson["checked"]), notebook
    for source in lesson["stubs"]:
        name, stub = _stub(source)
        HINTS_SHOWN.pop(name, None)
        getattr(ex, name)(stub)
        assert_chinese(capsys.readouterr().out, f"{notebook}: the untouched stub's check of {name}")
        check = getattr(ex, name)
        for hint in check.hints:
            ex.hint(name)
            shown = capsys.readouterr().out
            assert tr(hint) != hint and tr(hint) in shown, f"{notebook}: a hint of {name} is not translated"
            assert_chinese(shown, f"{notebook}: a hint of {name}")
        ex.hint(name)  # the worked answer: a Chinese header, then the reference solution's code
        header, code = capsys.readouterr().out.split("\n\n", 1)
        assert_chinese(header, f"{notebook}: the worked answer's header of {name}")
        for _start, _end, kind, text in source_text(code):  # its comments and docstring: Chinese, none English
            assert_chinese(text, f"{notebook}: a {kind} of the worked answer of {name}")
        HINTS_SHOWN.pop(name, None)


@pytest.mark.parametrize("notebook", LESSONS)
def test_each_known_wrong_answer_is_diagnosed_in_chinese(notebook, capsys):
    for name, key, check, out in checked_wrong_answers(LESSONS[notebook], capsys):
        diagnosis = tr(check.mistakes[key])
        assert diagnosis != check.mistakes[key] and diagnosis in out, (name, key, out)
        assert is_chinese(out.splitlines()[0]), f"{name}/{key}: the ❌ line is not Chinese: {out}"
        assert not english(diagnosis, notebook), (name, key, diagnosis)


@pytest.mark.parametrize("notebook", LESSONS)
def test_every_predict_question_answered_wrong_then_right_in_chinese(notebook):
    lesson = LESSONS[notebook]
    assert lesson["asked"], notebook
    for key in lesson["asked"]:
        question = getattr(lesson["predict"], key)
        explanation = tr(question.explain)
        assert explanation != question.explain, f"{notebook}: {key}'s explanation is not translated"
        wrong = next(o for o in question.options if o != question.right) if isinstance(question, Choice) \
            else question.right * 10 + 7
        said = answer_in_widget(question, wrong)
        assert said.startswith(tr("Not quite: you said {said}; the answer is {answer}.").split("{")[0]), said
        assert explanation in said and not english(said, notebook), said
        assert PREDICTIONS[question.key]["correct"] is False
        right = answer_in_widget(question, question.right)
        assert right.startswith(tr("Right.")) and explanation in right, right
        if isinstance(question, Choice):
            assert all(tr(option) != option or not english(option, notebook) for option in question.options), key
            # the guess and the answer both quoted the Chinese way, neither in Python's repr
            assert f"“{tr(wrong)}”" in said and f"“{tr(question.right)}”" in said and "'" not in said.split("。")[0], said
