"""Lesson 02's checks: more wrong answers that must get their named diagnosis, and the facts the diagnoses state."""

import copy

import pytest
import torch
from torch import nn

from lmtie_edu.kit.exercises import HINTS_SHOWN, REGISTRY
from lmtie_edu.lesson02 import exercises as ex

from .wrong_answers import ALSO_DIAGNOSED, CAUGHT, WRONG

CASES = [(name, key, answer) for name, pairs in ALSO_DIAGNOSED.items() for key, answer in pairs]


@pytest.mark.parametrize(("name", "key", "answer"), CASES, ids=[f"{n}-{a.__name__}" for n, _, a in CASES])
def test_more_wrong_answers_get_their_diagnosis(name, key, answer, capsys):
    HINTS_SHOWN.pop(name, None)
    assert not getattr(ex, name)(answer)
    out = capsys.readouterr().out
    assert f"diagnosis: {REGISTRY[name].mistakes[key]}" in out, out


@pytest.mark.parametrize("name", sorted(CAUGHT))
def test_caught_answers_get_no_named_diagnosis_and_no_empty_lines(name, capsys):
    for answer in CAUGHT[name]:
        HINTS_SHOWN.pop(name, None)
        assert not getattr(ex, name)(answer)
        out = capsys.readouterr().out
        assert "diagnosis:" not in out, (answer.__name__, out)
        assert ("where:" in out) or ("expected:" in out and "got:" in out), (answer.__name__, out)


def _tied_model(answer):
    embedding = nn.Embedding(12, 5)
    return nn.ModuleList([embedding, answer(embedding)])


def test_second_parameter_diagnosis_is_true_of_a_data_tie():
    """`head.weight.data = embedding.weight.data`: shared values that stay equal after a step, yet two
    Parameters (counted twice, two optimiser entries) that model.double() and deepcopy separate."""
    for answer in (WRONG["tied_head_with_bias"]["second_parameter"], ALSO_DIAGNOSED["tied_head_with_bias"][0][1]):
        model = _tied_model(answer)
        embedding, head = model
        optimiser = torch.optim.Adam(model.parameters(), lr=0.1)
        head(embedding(torch.tensor([1, 2]))).logsumexp(1).sum().backward()
        optimiser.step()
        assert torch.equal(embedding.weight, head.weight)
        assert sum(p.numel() for p in model.parameters()) == 2 * 12 * 5 + 12
        assert len(optimiser.state) == 3
        twin = copy.deepcopy(model)
        assert twin[0].weight.data_ptr() != twin[1].weight.data_ptr()
        model.double()
        assert embedding.weight.data_ptr() != head.weight.data_ptr()


def test_a_real_tie_survives_what_separates_a_data_tie():
    model = _tied_model(REGISTRY["tied_head_with_bias"].solution)
    twin = copy.deepcopy(model)
    assert twin[1].weight is twin[0].weight
    model.double()
    assert model[1].weight is model[0].weight


def test_copy_diagnosis_is_true_of_a_copy():
    model = _tied_model(WRONG["tied_head_with_bias"]["copy_not_share"])
    embedding, head = model
    optimiser = torch.optim.SGD(model.parameters(), lr=0.1)
    head(embedding(torch.tensor([1, 2]))).logsumexp(1).sum().backward()
    optimiser.step()
    assert not torch.equal(embedding.weight, head.weight)  # "training would move the two apart"


def test_the_tie_case_has_exact_ties():
    W = ex._ties()
    logits = W @ W[0]
    assert logits[1] == logits[0] == logits[2]
