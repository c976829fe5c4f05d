"""Lesson 01: more wrong answers for the named mistakes (wrong_answers.ALSO), checked as the learner does."""

import pytest

from lmtie_edu.kit.exercises import HINTS_SHOWN
from lmtie_edu.lesson01 import exercises as ex
from tests.lesson01 import wrong_answers

ALSO = [(name, key) for name, answers in wrong_answers.ALSO.items() for key in answers]


@pytest.mark.parametrize(("name", "key"), ALSO, ids=[f"{name}-{key}" for name, key in ALSO])
def test_other_spellings_of_a_mistake_get_its_diagnosis(name, key, capsys):
    HINTS_SHOWN.pop(name, None)
    verdict = getattr(ex, name)(wrong_answers.ALSO[name][key])
    out = capsys.readouterr().out
    assert not verdict and out.startswith(f"❌ {name}"), out
    assert f"diagnosis: {getattr(ex, name).mistakes[key]}" in out, out


def test_a_mean_bag_is_told_the_factor(capsys):
    ex.bag_of_tokens(wrong_answers.bag_as_mean)
    assert "your answer is the expected one times 1/3" in capsys.readouterr().out


@pytest.mark.parametrize("answer", [wrong_answers.step_with_the_lessons_V, wrong_answers.bag_over_the_batch])
def test_no_diagnosis_where_none_is_true(answer, capsys):
    name = "sgd_step_on_lookup" if answer.__name__.startswith("step") else "bag_of_tokens"
    getattr(ex, name)(answer)
    assert "diagnosis:" not in capsys.readouterr().out
