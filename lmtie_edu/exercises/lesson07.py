"""Checks for the lesson 07 exercises."""

import torch
import torch.nn.functional as F
from torch import nn

from ..models import TinyLM
from ..seeding import seeded
from ..solutions import lesson07 as solutions
from . import Mismatch, exercise, expect_equal


def _models():
    """(description, model) pairs covering every way two matrices can look tied."""
    with seeded(0):  # the learner's random state is left alone
        tied, untied, copied, aliased, retied = (TinyLM(10, 4, tie=tie) for tie in (True, False, False, False, False))
    with torch.no_grad():
        copied.head.weight.copy_(copied.embedding.weight)
    aliased.head.weight.data = aliased.embedding.weight.data  # one storage, still two Parameters
    shared = nn.Parameter(retied.embedding.weight.detach().clone())
    retied.embedding.weight = retied.head.weight = shared
    return [("a model tied with tie()", tied), ("an untied model", untied),
            ("a model whose head values were copied from the embedding", copied),
            ("a model with head.weight.data = embedding.weight.data", aliased),
            ("a model with one new Parameter put into both modules", retied)]


def _optimiser_cases():
    """(description, model, optimiser) triples: every way the optimiser can miss a Parameter."""
    with seeded(0):  # the learner's random state is left alone
        models = [TinyLM(10, 4, tie=tie) for tie in (True, False, True, False, False)]
    cases = []
    model = models[0]
    cases.append(("tied, then the optimiser built", model, torch.optim.SGD(model.parameters(), lr=0.1)))
    model = models[1]
    optimiser = torch.optim.SGD(model.parameters(), lr=0.1)
    shared = nn.Parameter(model.embedding.weight.detach().clone())
    model.embedding.weight = model.head.weight = shared
    cases.append(("optimiser built, then a new shared Parameter tied in", model, optimiser))
    model = models[2]
    optimiser = torch.optim.SGD(model.parameters(), lr=0.1)
    model.head.weight = nn.Parameter(model.head.weight.detach().clone())
    cases.append(("optimiser built, then the head untied", model, optimiser))
    model = models[3]
    cases.append(("optimiser given only model.body.parameters()", model,
                  torch.optim.SGD(model.body.parameters(), lr=0.1)))
    model = models[4]
    copies = [nn.Parameter(p.detach().clone()) for p in model.parameters()]
    cases.append(("optimiser given equal-valued copies of every Parameter", model, torch.optim.SGD(copies, lr=0.1)))
    return cases


@exercise(solutions.not_in_optimiser, hint="an optimiser holds Parameter objects in optimiser.param_groups[i]['params']; "
          "compare objects (id(p) or `is`), not values — a copy with equal values is not the Parameter the model uses.")
def not_in_optimiser(answer, solution):
    cases = _optimiser_cases()
    for what, model, optimiser in cases:
        got = answer(model, optimiser)
        expect_equal(sorted(got) if isinstance(got, (list, tuple, set)) else got, solution(model, optimiser),
                     f"not_in_optimiser(model, optimiser) with {what}")
    return len(cases)


@exercise(solutions.count_checkpoint_parameters, hint="a tied matrix appears under two keys of the state dict "
          "but lives in one storage: remember (t.untyped_storage().data_ptr(), t.storage_offset(), t.shape) "
          "of the tensors already counted.")
def count_checkpoint_parameters(answer, solution):
    from ..checkpoints import torch_checkpoint

    cases = []
    for what, model in _models():
        cases.append((f"the state_dict() of {what}", model.state_dict()))
    cases.append(("a tied model's state dict after torch.save + torch.load", torch_checkpoint(_models()[0][1].state_dict())[1]))
    for what, state in cases:
        expected = solution(state)
        assert expected == sum(p.numel() for p in _distinct(state))
        expect_equal(answer(state), expected, f"count_checkpoint_parameters({what})")
    return len(cases)


def _distinct(state):
    """Independent truth for the checker: tensors whose memory differs (compared element by element)."""
    kept = []
    for tensor in state.values():
        if not any(t.untyped_storage().data_ptr() == tensor.untyped_storage().data_ptr() and t.shape == tensor.shape
                   for t in kept):
            kept.append(tensor)
    return kept


@exercise(solutions.untie_and_register, hint="untie with nn.Parameter(model.head.weight.detach().clone()), then "
          "optimiser.add_param_group({'params': [model.head.weight]}) — an optimiser only updates the "
          "Parameters it was given.")
def untie_and_register(answer, solution):
    with seeded(0):  # the learner's random state is left alone
        model = TinyLM(10, 4, tie=True)
    optimiser = torch.optim.SGD(model.parameters(), lr=0.5)
    before = model.embedding.weight.detach().clone()
    answer(model, optimiser)
    if model.head.weight is model.embedding.weight:
        raise Mismatch("after your function the head is still tied to the embedding", "two Parameters", "one")
    if not torch.equal(model.head.weight, before) or not torch.equal(model.embedding.weight, before):
        raise Mismatch("untying must keep the values: both matrices should still equal the tied matrix",
                       "equal to the tied matrix", "changed")
    ids = torch.tensor([[1, 2], [3, 4], [5, 6]])
    F.cross_entropy(model(ids), torch.tensor([3, 5, 7])).backward()
    optimiser.step()
    head_moved = not torch.equal(model.head.weight, before)
    embedding_moved = not torch.equal(model.embedding.weight, before)
    if not head_moved:
        raise Mismatch("one optimiser step did not change the new head: is it in the optimiser?",
                       "head updated", "head unchanged")
    if not embedding_moved:
        raise Mismatch("one optimiser step did not change the embedding", "embedding updated", "unchanged")
    if torch.equal(model.head.weight, model.embedding.weight):
        raise Mismatch("after one step the two matrices are still equal: are they really separate?",
                       "different", "equal")
    return 1
