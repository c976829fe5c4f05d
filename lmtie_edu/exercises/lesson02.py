"""Checks for the lesson 02 exercises."""

import torch
from torch import nn

from ..logits import toy_vocabulary
from ..solutions import lesson02 as solutions
from . import Mismatch, exercise, expect_close, expect_equal


def _matrices():
    generator = torch.Generator().manual_seed(3)
    return [toy_vocabulary()[1], torch.randn(9, 5, generator=generator), torch.randn(30, 3, generator=generator) * 2]


@exercise(solutions.distance_bias, hint="expand -½‖h - w_i‖² = h·w_i - ½‖w_i‖² - ½‖h‖²: which term depends on "
          "the token but not on h?")
def distance_bias(answer, solution):
    for W in _matrices():
        b = torch.as_tensor(answer(W.clone()))
        if b.shape != (W.shape[0],):
            raise Mismatch(f"distance_bias(W of shape {tuple(W.shape)}) must return one number per token",
                           (W.shape[0],), tuple(b.shape))
        # any constant shift of b ranks the same way: compare after removing the mean
        expected = solution(W)
        expect_close(b - b.mean(), expected - expected.mean(), f"distance_bias(W of shape {tuple(W.shape)}), "
                     "up to a constant", atol=1e-4)
        H = torch.randn(20, W.shape[1], generator=torch.Generator().manual_seed(0)) * 2
        if not torch.equal((H @ W.T + b).argmax(dim=1), torch.cdist(H, W).argmin(dim=1)):
            raise Mismatch("with your bias, the top token is not always the nearest vector")
    return len(_matrices())


@exercise(solutions.tokens_beating_self, hint="feed h = W[i]: the logits are W @ W[i]; token i scores ‖e_i‖². "
          "Return the ids j with a strictly larger logit, as a sorted list of ints.")
def tokens_beating_self(answer, solution):
    cases = 0
    for W in _matrices():
        for i in range(0, W.shape[0], 3):
            got = answer(W.clone(), i)
            got = [int(j) for j in got] if isinstance(got, (list, tuple, torch.Tensor)) else got
            expect_equal(got, solution(W, i), f"tokens_beating_self(W of shape {tuple(W.shape)}, i={i})")
            cases += 1
    return cases


@exercise(solutions.tied_head_with_bias, hint="build nn.Linear(d, V, bias=True), then assign the embedding's "
          "Parameter itself to head.weight (no copy) and zero the bias.")
def tied_head_with_bias(answer, solution):
    embedding = nn.Embedding(12, 5)
    head = answer(embedding)
    if not isinstance(head, nn.Linear):
        raise Mismatch("the head must be an nn.Linear", "nn.Linear", type(head).__name__)
    if head.weight is not embedding.weight:
        raise Mismatch("head.weight must be the embedding's Parameter itself (a tie), not a copy",
                       "head.weight is embedding.weight", "a different tensor")
    if head.bias is None or tuple(head.bias.shape) != (12,):
        raise Mismatch("the head needs a per-token bias of shape (V,)", (12,),
                       None if head.bias is None else tuple(head.bias.shape))
    expect_close(head.bias.detach(), torch.zeros(12), "the initial bias")
    model = nn.ModuleList([embedding, head])
    expect_equal(sum(p.numel() for p in model.parameters()), 12 * 5 + 12, "parameters of embedding + head")
    ids = torch.tensor([3, 7])
    expect_close(head(embedding(ids)), embedding(ids) @ embedding.weight.T, "head(embedding(ids))")
    return 1
