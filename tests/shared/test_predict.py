"""Predict-then-run questions: the widget records the guess and explains; bad questions and guesses are refused."""

import math

import pytest

from lmtie_edu.kit.predict import PREDICTIONS, Choice, Number


def question():
    return Choice("rows", ["3", "all 10"], "all 10", "The head touches every row.")


def test_choice_widget_records_the_guess_and_explains():
    box = question().ask()
    label, entry, check, feedback = box.children
    assert label.value == "<b>Your prediction:</b>" and entry.value is None  # the question is the lesson's markdown
    check.click()
    assert "Choose an answer first" in feedback.value and "rows" not in PREDICTIONS
    entry.value = "3"
    check.click()
    assert "Not quite: you said &#x27;3&#x27;; the answer is &#x27;all 10&#x27;." in feedback.value  # both quoted
    assert "The head touches every row." in feedback.value
    assert PREDICTIONS["rows"] == {"guess": "3", "correct": False}
    entry.value = "all 10"
    check.click()
    assert feedback.value.startswith("<div class='lmtie-predict-feedback'>Right.")
    assert "lmtie-predict" in box._dom_classes


def test_number_within_tolerance_is_right(capsys):
    q = Number("share", 31.0, "V·d dominates.", tolerance=0.1)
    q.answer(29)
    assert capsys.readouterr().out.startswith("Right.")
    q.answer(20)
    assert "the answer is about 31" in capsys.readouterr().out
    exact = Number("n", 7, "Count them.")
    exact.answer(7.0)
    assert capsys.readouterr().out.startswith("Right.")
    box = exact.ask()
    assert box.children[1].value == ""
    box.children[2].click()
    assert "Choose an answer first" in box.children[3].value
    box.children[1].value = "1,000"
    box.children[2].click()
    assert "you said 1,000;" in box.children[3].value
    box.children[1].value = "seven"
    box.children[2].click()
    assert "type a finite number" in box.children[3].value


@pytest.mark.parametrize("make", [
    lambda: Choice("", ["a", "b"], "a", "e"),
    lambda: Choice("k", ["a"], "a", "e"),
    lambda: Choice("k", ["a", "a"], "a", "e"),
    lambda: Choice("k", ["a", "b"], "c", "e"),
    lambda: Choice("k", ["a", 2], "a", "e"),
    lambda: Choice("k", ["a", "b"], "a", "  "),
    lambda: Number("k", math.nan, "e"),
    lambda: Number("k", True, "e"),
    lambda: Number("k", "3", "e"),
    lambda: Number("k", 3, "e", tolerance=-0.1),
    lambda: Number("k", 3, "e", tolerance=1.5),
])
def test_bad_questions_are_refused(make):
    with pytest.raises(ValueError, match="question|non-empty"):
        make()


@pytest.mark.parametrize(("q", "guess", "message"), [
    (question(), "5", "choose one of"),
    (Number("k", 3, "e"), "three", "finite number"),
    (Number("k", 3, "e"), math.inf, "finite number"),
    (Number("k", 3, "e"), True, "finite number"),
])
def test_bad_guesses_get_a_clear_error(q, guess, message):
    with pytest.raises(ValueError, match=message):
        q.answer(guess)
