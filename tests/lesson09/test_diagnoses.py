"""Lesson 09: a diagnosis is named only when it is true of the whole answer (the shared tests of every lesson's
wrong answers, ALSO included, are in tests/course/test_exercises.py)."""

from lmtie_edu.lesson09 import exercises as ex

from . import wrong_answers


def test_a_value_that_matches_a_mistake_in_one_case_only_is_not_named(capsys):
    """recall_values_for_ids compares the top scores with the ids: its value equals the k lowest scores' recall in
    some case, but it did not flag the lowest scores, and is not told so."""
    for answer in (wrong_answers.recall_values_for_ids, wrong_answers.recall_above_mean):
        assert not ex.recall_at_k(answer)
        out = capsys.readouterr().out
        assert "diagnosis:" not in out and ("where:" in out or "expected:" in out), out
