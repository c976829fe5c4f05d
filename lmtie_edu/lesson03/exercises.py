"""Checks for the lesson 03 exercises."""

import torch
import torch.nn.functional as F

from lmtie_edu.kit.exercises import (
    Mismatch,
    exercise,
    expect_close,
    expect_equal,
    expect_type,
    forbid_autograd,
    hint,
)

from . import solutions

__all__ = ["head_gradient", "hint", "lookup_gradient", "starved_input_rows"]  # the lesson calls ex.hint("name")


@exercise(solutions.head_gradient,
          hints=["Go through the logits z = W_out h. What is the gradient of the cross-entropy with respect to "
                 "the logits, and how does a change in row j of W_out change z_j?",
                 "The gradient with respect to the logits is the softmax probabilities minus the one-hot of the "
                 "target. Row j of the result is that difference's entry j times h, so the result is an outer "
                 "product of a (V,) vector and a (d,) vector."],
          mistakes={
              "transposed": "your gradient has the shape (d, V) of W_out's transpose. A gradient has the shape of "
                            "the matrix it belongs to: one row per token, (V, d). Put the (V,) vector first in "
                            "the outer product.",
              "no_target_term": "you used the probabilities p alone. The cross-entropy also subtracts the "
                                "target's one-hot y: the gradient with respect to the logits is p - y, so the "
                                "target row is pulled towards h while the others are pushed away.",
              "sign_flipped": "every entry has the opposite sign: you computed y - p, the direction that lowers "
                              "the loss (what an update adds), not the gradient p - y.",
          })
def head_gradient(answer, solution):
    generator = torch.Generator().manual_seed(5)
    cases = [(torch.randn(4, generator=generator), torch.randn(7, 4, generator=generator), 2),
             (torch.randn(3, generator=generator) * 3, torch.randn(5, 3, generator=generator), 0)]
    for h, W_out, target in cases:
        W = W_out.clone().requires_grad_(True)
        F.cross_entropy((W @ h).unsqueeze(0), torch.tensor([target])).backward()
        expected = solution(h, W_out, target)
        assert torch.allclose(expected, W.grad, atol=1e-6)  # the reference agrees with autograd
        what = f"head_gradient(h of shape {tuple(h.shape)}, W_out of shape {tuple(W_out.shape)}, target={target})"
        with forbid_autograd():                              # by hand: backward() and autograd.grad refuse
            got = answer(h.clone(), W_out.clone(), target)
        expect_type(got, torch.Tensor, what)
        p = F.softmax(W_out @ h, dim=0)
        expect_close(got, expected, what, atol=1e-5, wrong={
            "transposed": expected.T, "no_target_term": torch.outer(p, h), "sign_flipped": -expected})
    return len(cases)


@exercise(solutions.lookup_gradient,
          hints=["Row t of upstream is the gradient of the loss with respect to the vector looked up at position "
                 "t. Which row of the matrix did that vector come from, and what happens when two positions "
                 "looked up the same row?",
                 "Start from a (vocab_size, d) matrix of zeros and add each position's upstream row into the row "
                 "of its id. Rows never looked up stay zero; a repeated id must receive the sum of its positions' "
                 "rows — an indexed assignment keeps only one of them."],
          mistakes={
              "overwrite": "a repeated id received only one of its gradients. Each lookup of the same row adds "
                           "its own contribution; indexed assignment with repeated ids keeps only one of them, "
                           "so add instead of assigning.",
              "mean_of_repeats": "a repeated id received the mean of its gradients. The row is used once per "
                                 "position, and the chain rule adds the contributions of every use: the sum, "
                                 "not the average.",
          })
def lookup_gradient(answer, solution):
    generator = torch.Generator().manual_seed(6)
    cases = [(torch.tensor([2, 5, 5, 0]), torch.randn(4, 3, generator=generator), 7),
             (torch.tensor([1, 1, 1]), torch.randn(3, 2, generator=generator), 4)]
    for ids, upstream, vocab_size in cases:
        W = torch.zeros(vocab_size, upstream.shape[1], requires_grad=True)
        (F.embedding(ids, W) * upstream).sum().backward()  # autograd: the upstream gradient of each lookup is `upstream`
        expected = solution(ids, upstream, vocab_size)
        assert torch.allclose(expected, W.grad)
        what = f"lookup_gradient(ids={ids.tolist()}, upstream of shape {tuple(upstream.shape)}, vocab_size={vocab_size})"
        with forbid_autograd():
            got = answer(ids.clone(), upstream.clone(), vocab_size)
        expect_type(got, torch.Tensor, what)
        overwritten = torch.zeros_like(expected)
        for position, row in enumerate(ids.tolist()):
            overwritten[row] = upstream[position]            # what the last write of a repeated id leaves
        counts = torch.bincount(ids, minlength=vocab_size).clamp(min=1).unsqueeze(1)
        expect_close(got, expected, what, wrong={"overwrite": overwritten, "mean_of_repeats": expected / counts})
    return len(cases)


@exercise(solutions.starved_input_rows,
          hints=["An input row is trained only when its token is read. Which tokens does the model predict, and "
                 "which of them does it never read — anywhere in the context, not only in one of its positions?",
                 "Gather the set of ids that occur anywhere in inputs (all positions of all windows) and the set "
                 "of target ids; the answer is the second set without the first, as a sorted list of Python "
                 "ints."],
          mistakes={
              "never_seen_included": "you also listed tokens that are never predicted either. The question is "
                                     "about tokens that occur as a target (the model learns to predict them) but "
                                     "are never read; a token absent from the data altogether is not one of them.",
              "one_context_position": "you looked at only one position of each input window. A token read at any "
                                      "position of the context is looked up, and its input row gets a gradient.",
          })
def starved_input_rows(answer, solution):
    cases = [(torch.tensor([[0, 0], [0, 2], [2, 3]]), torch.tensor([2, 3, 1]), 5),
             (torch.tensor([[4, 4], [1, 2]]), torch.tensor([0, 0]), 6),
             (torch.tensor([[3, 1], [0, 2]]), torch.tensor([3, 1]), 5),   # targets read only in the first position
             (torch.tensor([[1, 2]]), torch.tensor([2]), 3)]
    for inputs, targets, vocab_size in cases:
        what = f"starved_input_rows(inputs={inputs.tolist()}, targets={targets.tolist()}, vocab_size={vocab_size})"
        got = answer(inputs.clone(), targets.clone(), vocab_size)
        expect_type(got, list, what)
        if not all(isinstance(j, int) and not isinstance(j, bool) for j in got):
            raise Mismatch(f"{what} must return a list of Python ints", "ints", [type(j).__name__ for j in got])
        targets_set, read = set(targets.tolist()), set(inputs.flatten().tolist())
        by_one_position = [sorted(targets_set - set(inputs[:, k].tolist())) for k in range(inputs.shape[1])]
        expect_equal(got, solution(inputs, targets, vocab_size), what, wrong={
            "never_seen_included": sorted(set(range(vocab_size)) - read),
            "one_context_position": got if got in by_one_position else None})   # any single position: that mistake
    return len(cases)
