"""Lesson 03 checks, beyond tests/course/test_exercises.py: the further answers that must get a named diagnosis
(ALSO), and the unnamed ones (CAUGHT) must say what differs — an expected/got pair or a where line."""

import pytest

from lmtie_edu.kit.exercises import HINTS_SHOWN
from lmtie_edu.lesson03 import exercises as ex

from .wrong_answers import ALSO, CAUGHT

NAMED = [(name, key, answer) for name, by_key in ALSO.items() for key, answers in by_key.items() for answer in answers]
UNNAMED = [(name, answer) for name, answers in CAUGHT.items() for answer in answers]


def _check(name, answer, capsys):
    HINTS_SHOWN.pop(name, None)
    verdict = getattr(ex, name)(answer)
    return verdict, capsys.readouterr().out


@pytest.mark.parametrize(("name", "key", "answer"), NAMED, ids=[f"{n}-{a.__name__}" for n, _, a in NAMED])
def test_further_wrong_answers_get_their_diagnosis(name, key, answer, capsys):
    verdict, out = _check(name, answer, capsys)
    assert not verdict and out.startswith(f"❌ {name}"), out
    assert f"diagnosis: {getattr(ex, name).mistakes[key]}" in out, out


@pytest.mark.parametrize(("name", "answer"), UNNAMED, ids=[f"{n}-{a.__name__}" for n, a in UNNAMED])
def test_unnamed_wrong_answers_say_what_differs(name, answer, capsys):
    verdict, out = _check(name, answer, capsys)
    assert not verdict and out.startswith(f"❌ {name}"), out
    assert "   where:" in out or ("   expected:" in out and "   got:" in out), out
    assert "diagnosis:" not in out, f"{answer.__name__} is diagnosed as a named mistake; move it to WRONG/ALSO:\n{out}"
