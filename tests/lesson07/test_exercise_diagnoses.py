"""Lesson 07 exercises: the wrong answers beyond one per mistake, run as the learner runs them (``ex.name``).

CAUGHT answers fail and get no diagnosis (a named mistake they do not make would mislead); ALSO answers get
the diagnosis of the mistake they make; the answers of issues 23 and 24 fail for the reason they should."""

import pytest

from lmtie_edu.kit.exercises import HINTS_SHOWN
from lmtie_edu.lesson07 import exercises as ex
from tests.lesson07 import wrong_answers as answers


def _run(name, answer, capsys):
    HINTS_SHOWN.pop(name, None)
    verdict = getattr(ex, name)(answer)
    return verdict, capsys.readouterr().out


CAUGHT = [(name, answer) for name, caught in answers.CAUGHT.items() for answer in caught]
ALSO = [(name, answer, key) for name, also in answers.ALSO.items() for answer, key in also]


@pytest.mark.parametrize(("name", "answer"), CAUGHT, ids=[a.__name__ for _, a in CAUGHT])
def test_caught_answer_gets_no_diagnosis_it_does_not_deserve(name, answer, capsys):
    verdict, out = _run(name, answer, capsys)
    assert not verdict and out.startswith(f"❌ {name}"), out
    assert "diagnosis:" not in out, out
    assert "expected:" in out and "got:" in out, out


@pytest.mark.parametrize(("name", "answer", "key"), ALSO, ids=[a.__name__ for _, a, _ in ALSO])
def test_more_answers_of_a_named_mistake_get_its_diagnosis(name, answer, key, capsys):
    verdict, out = _run(name, answer, capsys)
    assert not verdict and f"diagnosis: {getattr(ex, name).mistakes[key]}" in out, out


def test_counting_whole_storages_fails_on_a_slice(capsys):  # issue 23: it passed every case before
    verdict, out = _run("count_checkpoint_parameters", answers.count_whole_storages, capsys)
    assert not verdict and "first 2 rows of a 10x4 matrix" in out, out
    assert "expected: 8" in out and "got:      40" in out, out


@pytest.mark.parametrize("answer", [answers.optimiser_fixed_instead_of_reporting,
                                    answers.optimiser_right_then_cleared])
def test_a_detector_that_changes_the_optimiser_is_told_so(answer, capsys):  # issue 24
    verdict, out = _run("not_in_optimiser", answer, capsys)
    assert not verdict and "your function changed the optimiser's parameter groups" in out, out


def test_the_expected_names_do_not_depend_on_what_the_answer_did(capsys):  # issue 24
    """An answer that empties the optimiser first and then answers for the emptied one: the check's expected
    names come from separate, unchanged objects, so its list of every name is wrong, not "right"."""
    def empty_then_answer(model, optimiser):
        optimiser.param_groups.clear()
        return sorted(name for name, _ in model.named_parameters())

    verdict, out = _run("not_in_optimiser", empty_then_answer, capsys)
    assert not verdict and "changed the optimiser's parameter groups" in out, out


def test_a_new_parameter_swapped_into_the_model_is_seen(capsys):
    def swaps_the_head(model, optimiser):
        model.head.weight = type(model.head.weight)(model.head.weight.detach().clone())
        return []

    verdict, out = _run("not_in_optimiser", swaps_the_head, capsys)
    assert not verdict and "changed the model's Parameters" in out, out


def test_the_lesson_still_passes(capsys):
    for name in ("not_in_optimiser", "count_checkpoint_parameters", "untie_and_register"):
        verdict, out = _run(name, getattr(ex, name).solution, capsys)
        assert verdict and out.startswith(f"✅ {name}"), out
