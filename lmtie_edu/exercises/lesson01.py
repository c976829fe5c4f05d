"""Checks for the lesson 01 exercises."""

import torch
from torch import nn

from ..solutions import lesson01 as solutions
from . import Mismatch, exercise, expect_close

_CASES = [
    (torch.arange(12.0).reshape(4, 3), torch.tensor([2, 0, 2])),
    (torch.randn(7, 5, generator=torch.Generator().manual_seed(1)), torch.tensor([[6, 1], [1, 3]])),
]


@exercise(solutions.one_hot_lookup, hint="F.one_hot(ids, num_classes=V) gives integers: convert with .float() "
          "(or .to(W.dtype)) before multiplying by W.")
def one_hot_lookup(answer, solution):
    for W, ids in _CASES:
        expect_close(answer(W, ids), solution(W, ids), f"one_hot_lookup(W of shape {tuple(W.shape)}, ids={ids.tolist()})")
    return len(_CASES)


@exercise(solutions.lookup_gradient_counts, hint="each occurrence of id i adds ones to row i of the gradient: "
          "count occurrences per id, including ids that never occur (torch.bincount(..., minlength=V)).")
def lookup_gradient_counts(answer, solution):
    cases = [(torch.tensor([2, 5, 5, 9]), 12), (torch.tensor([[0, 0], [0, 3]]), 4)]
    for ids, vocab_size in cases:
        W = torch.zeros(vocab_size, 3, requires_grad=True)
        W[ids].sum().backward()
        truth = W.grad[:, 0]  # autograd's own answer: every column of row i equals its count
        expected = solution(ids, vocab_size)
        assert torch.equal(truth.long(), expected)
        expect_close(answer(ids, vocab_size), expected, f"lookup_gradient_counts(ids={ids.tolist()}, vocab_size={vocab_size})")
    return len(cases)


@exercise(solutions.trainable_table, hint="a plain tensor, even with requires_grad=True, is not registered by "
          "nn.Module; wrap it in nn.Parameter.")
def trainable_table(answer, solution):
    table = answer(10, 4)
    if not isinstance(table, torch.Tensor) or tuple(table.shape) != (10, 4):
        raise Mismatch("trainable_table(10, 4) must return a (10, 4) tensor", (10, 4),
                       tuple(table.shape) if isinstance(table, torch.Tensor) else type(table).__name__)
    module = nn.Module()
    module.table = table
    registered = [name for name, _ in module.named_parameters()]
    if registered != ["table"]:
        raise Mismatch("assigned to a module, your table is not listed by module.parameters()",
                       "['table']", str(registered))
    if not table.requires_grad:
        raise Mismatch("your table does not require grad", True, False)
    return 1
