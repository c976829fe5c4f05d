"""Lesson 08: more wrong answers for the named mistakes (wrong_answers.ALSO), checked as the learner does."""

import pytest

from lmtie_edu.lesson08 import exercises as ex

from . import wrong_answers

ALSO = [(name, key) for name, answers in wrong_answers.ALSO.items() for key in answers]


@pytest.mark.parametrize(("name", "key"), ALSO, ids=[f"{name}-{key}" for name, key in ALSO])
def test_also_diagnosed(name, key, capsys):
    verdict = getattr(ex, name)(wrong_answers.ALSO[name][key])
    out = capsys.readouterr().out
    assert not verdict and f"diagnosis: {getattr(ex, name).mistakes[key]}" in out, out


@pytest.mark.parametrize("name", sorted(wrong_answers.WRONG))
def test_each_diagnosis_names_only_its_own_mistake(name, capsys):
    for key, answer in wrong_answers.WRONG[name].items():
        getattr(ex, name)(answer)
        out = capsys.readouterr().out
        named = [other for other, text in getattr(ex, name).mistakes.items() if f"diagnosis: {text}" in out]
        assert named == [key], (key, out)
