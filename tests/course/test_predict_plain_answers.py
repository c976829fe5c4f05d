"""A predict answer is compared as a plain value: a str or float subclass that claims to equal everything is
judged by its characters or its number, not by its own ==."""

import pytest

from lmtie_edu.kit.predict import PREDICTIONS, Choice, Number


class EqualsAnything(str):
    def __eq__(self, other):
        return True

    __hash__ = str.__hash__


class CloseToAnything(float):
    def __sub__(self, other):
        return 0.0

    def __abs__(self):
        return 0.0


def test_a_str_that_equals_everything_is_not_right():
    question = Choice("plain_str", ["yes", "no"], "yes", "Because.")
    with pytest.raises(ValueError, match="choose one of"):
        question.feedback(EqualsAnything("maybe"))
    assert question.feedback(EqualsAnything("no")).startswith("Not quite")
    assert type(PREDICTIONS["plain_str"]["guess"]) is str


def test_a_float_that_is_close_to_everything_is_judged_by_its_value():
    question = Number("plain_float", 42.0, "Because.", tolerance=0.1)
    assert question.feedback(CloseToAnything(7.0)).startswith("Not quite")
    assert question.feedback(CloseToAnything(41.0)).startswith("Right.")
