"""Checks for the lesson 03 exercises."""

import torch
import torch.nn.functional as F

from ..solutions import lesson03 as solutions
from . import exercise, expect_close, expect_equal


@exercise(solutions.head_gradient, hint="the gradient of cross-entropy with respect to the logits is p - y "
          "(softmax minus one-hot); each row j of the head gets (p_j - y_j) times h.")
def head_gradient(answer, solution):
    generator = torch.Generator().manual_seed(5)
    cases = [(torch.randn(4, generator=generator), torch.randn(7, 4, generator=generator), 2),
             (torch.randn(3, generator=generator) * 3, torch.randn(5, 3, generator=generator), 0)]
    for h, W_out, target in cases:
        W = W_out.clone().requires_grad_(True)
        F.cross_entropy((W @ h).unsqueeze(0), torch.tensor([target])).backward()
        expected = solution(h, W_out, target)
        assert torch.allclose(expected, W.grad, atol=1e-6)  # the reference agrees with autograd
        expect_close(answer(h.clone(), W_out.clone(), target), expected,
                     f"head_gradient(h of shape {tuple(h.shape)}, W_out of shape {tuple(W_out.shape)}, target={target})")
    return len(cases)


@exercise(solutions.lookup_gradient, hint="start from zeros (V, d) and add upstream[t] into row ids[t]; a "
          "repeated id must accumulate (index_add, not assignment).")
def lookup_gradient(answer, solution):
    generator = torch.Generator().manual_seed(6)
    cases = [(torch.tensor([2, 5, 5, 0]), torch.randn(4, 3, generator=generator), 7),
             (torch.tensor([1, 1, 1]), torch.randn(3, 2, generator=generator), 4)]
    for ids, upstream, vocab_size in cases:
        W = torch.zeros(vocab_size, upstream.shape[1], requires_grad=True)
        (F.embedding(ids, W) * upstream).sum().backward()  # autograd: the upstream gradient of each lookup is `upstream`
        expected = solution(ids, upstream, vocab_size)
        assert torch.allclose(expected, W.grad)
        expect_close(answer(ids.clone(), upstream.clone(), vocab_size), expected,
                     f"lookup_gradient(ids={ids.tolist()}, upstream of shape {tuple(upstream.shape)}, vocab_size={vocab_size})")
    return len(cases)


@exercise(solutions.starved_input_rows, hint="collect the ids present anywhere in the inputs, then keep the "
          "target ids that are not among them; return a sorted list of ints.")
def starved_input_rows(answer, solution):
    cases = [(torch.tensor([[0, 0], [0, 2], [2, 3]]), torch.tensor([2, 3, 1]), 5),
             (torch.tensor([[4, 4], [1, 2]]), torch.tensor([0, 0]), 6),
             (torch.tensor([[1, 2]]), torch.tensor([2]), 3)]
    for inputs, targets, vocab_size in cases:
        got = answer(inputs.clone(), targets.clone(), vocab_size)
        got = [int(j) for j in got] if isinstance(got, (list, tuple, set, torch.Tensor)) else got
        expect_equal(got, solution(inputs, targets, vocab_size),
                     f"starved_input_rows(inputs={inputs.tolist()}, targets={targets.tolist()}, vocab_size={vocab_size})")
    return len(cases)
