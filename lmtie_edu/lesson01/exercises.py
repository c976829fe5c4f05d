"""Checks for the lesson 01 exercises."""

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
    no_indexing,
)

from . import lookup as embedding
from . import solutions

__all__ = ["bag_of_tokens", "hint", "rows_reached", "sgd_step_on_lookup"]  # hint: the lesson calls ex.hint("name")

def _bag_error(error: BaseException) -> str | None:
    text = str(error)
    if "cannot be multiplied" in text:
        return "no_num_classes"
    if "same dtype" in text or "expected scalar type" in text:
        return "integer_one_hot"
    return None


@exercise(solutions.bag_of_tokens,
          hints=["A one-hot row picks one row of W. What does the sum of a sequence's one-hot rows hold, and what "
                 "does multiplying that sum by W give?",
                 "Build the one-hot tensor of the ids with one column per token of the vocabulary (W's number of "
                 "rows), in W's dtype; add it up over the positions of each sequence to get a (B, V) table of "
                 "counts; then one matrix product with W."],
          mistakes={
              "no_num_classes": "F.one_hot without num_classes makes only (largest id in the batch + 1) columns, "
                                "not one per token of the vocabulary, so its rows are shorter than W is tall and "
                                "the product's shapes do not match. Give F.one_hot the vocabulary size: the number "
                                "of rows of W.",
              "integer_one_hot": "F.one_hot returns integers (int64) while W holds floats, and PyTorch does not "
                                 "multiply tensors of different dtypes. Convert the one-hot (or count) tensor to "
                                 "W's dtype before the product.",
              "not_summed": "you returned one vector per token, shape (B, T, d): that is the lookup itself. The bag "
                            "of a sequence is the sum of its tokens' vectors, one (d,) vector per sequence.",
          },
          on_error=_bag_error)
def bag_of_tokens(answer, solution):
    generator = torch.Generator().manual_seed(1)
    cases = [(torch.randn(10, 4, generator=generator), torch.tensor([[2, 0, 2], [1, 3, 3]])),  # ids far below V
             (torch.randn(7, 5, generator=generator), torch.tensor([[6, 6, 1, 6], [0, 2, 4, 5]]))]
    for W, ids in cases:
        what = f"bag_of_tokens(W of shape {tuple(W.shape)}, ids={ids.tolist()})"
        got = answer(no_indexing(W), ids.clone())            # W refuses W[ids], F.embedding, index_select, …
        expect_type(got, torch.Tensor, what)
        per_token = F.one_hot(ids, W.shape[0]).to(W.dtype) @ W
        expect_close(got, solution(W, ids), what, atol=1e-5, wrong={"not_summed": per_token})
    return len(cases)


@exercise(solutions.sgd_step_on_lookup,
          hints=["Work out the gradient of W[ids].sum() row by row first: which rows does it reach, and what does a "
                 "row receive when its id occurs several times? Then apply the SGD rule: new weights = old "
                 "weights minus lr times the gradient.",
                 "Every column of row i of the gradient holds the number of times i occurs in ids (zero for the "
                 "others): count occurrences per token id, for all vocab_size ids, and broadcast those counts "
                 "across the d columns."],
          mistakes={
              "overwrite": "a row looked up several times moved only once. Gradients of repeated lookups add up "
                           "(one contribution per occurrence); setting a row, or indexed assignment with repeated "
                           "ids, keeps only one of them.",
              "ascent": "your rows moved up by lr times the count; SGD steps against the gradient, so they move "
                        "down.",
              "update_only": "you returned the step (-lr times the gradient), not the weights after it: add the "
                             "step to W.",
          })
def sgd_step_on_lookup(answer, solution):
    generator = torch.Generator().manual_seed(2)
    cases = [(torch.randn(6, 3, generator=generator), torch.tensor([[1, 4, 4], [0, 4, 1]]), 0.1),
             (torch.randn(8, 2, generator=generator), torch.tensor([7, 7, 2]), 0.5)]
    for W, ids, lr in cases:
        what = f"sgd_step_on_lookup(W of shape {tuple(W.shape)}, ids={ids.tolist()}, lr={lr})"
        with forbid_autograd():                              # predict the step: no backward(), no optimiser
            got = answer(W.clone(), ids.clone(), lr)
        expect_type(got, torch.Tensor, what)
        expected = solution(W, ids, lr)
        step = expected - W
        looked_up = (torch.bincount(ids.flatten(), minlength=W.shape[0]) > 0).to(W.dtype).unsqueeze(1)
        expect_close(got, expected, what, wrong={"overwrite": W - lr * looked_up, "ascent": W - step,
                                                 "update_only": step})
    return len(cases)


def _as_int_list(got, what: str) -> list[int]:
    expect_type(got, (list, tuple), what)
    if not all(isinstance(j, int) and not isinstance(j, bool) for j in got):
        raise Mismatch(f"{what} must return a list of ints", "ints", [type(j).__name__ for j in got])
    return list(got)


@exercise(solutions.rows_reached,
          hints=["Split it in two questions. Which rows does the lookup read? And when the head is W itself, "
                 "which rows does it score?",
                 "Untied: each token predicts the next one, so the last id is only a target and is never looked "
                 "up, and a repeated id is one row. Tied: the head scores every token of the vocabulary, and a "
                 "softmax gives each of them a probability above zero."],
          mistakes={
              "targets_as_inputs": "untied, a token that is only a target (here the last id) is never looked up, so "
                                   "its embedding row gets no gradient; the loss reaches the head's row for it, "
                                   "and the head is a separate matrix.",
              "head_only_targets": "tied, the head's gradient is not only in the target rows: row j receives "
                                   "(p_j - y_j) times h, and a softmax gives every token a probability above zero, "
                                   "so every row of the tied matrix gets a gradient.",
              "tie_ignored": "with the tie, the head is the embedding matrix: besides the rows looked up, W "
                             "receives the head's gradient, which reaches more rows.",
          })
def rows_reached(answer, solution):
    cases = [([2, 5, 5, 9], 12, False), ([0, 3, 3, 7, 1], 9, False), ([2, 5, 5, 9], 12, True), ([4, 4, 0], 6, True)]
    for ids, vocab_size, tie in cases:
        ids = torch.tensor(ids)
        what = f"rows_reached(ids={ids.tolist()}, vocab_size={vocab_size}, tie={tie})"
        truth = embedding.next_token_gradient(ids, tie=tie, vocab_size=vocab_size)["rows_touched"]
        expected = solution(ids, vocab_size, tie)
        assert expected == truth, (expected, truth)          # the reference agrees with the step itself
        with forbid_autograd():                              # reason it out: no backward()
            got = _as_int_list(answer(ids.clone(), vocab_size, tie), what)
        if len(set(got)) != len(got):
            raise Mismatch(f"{what}: a row is listed more than once (list each row once, sorted)", expected, got)
        if sorted(got) == expected and got != expected:
            raise Mismatch(f"{what}: the right rows, but not in increasing order", expected, got)
        inputs, targets = set(ids[:-1].tolist()), set(ids[1:].tolist())
        wrong = {"targets_as_inputs": sorted(inputs | targets)} if not tie else {
            "head_only_targets": sorted(inputs | targets), "tie_ignored": sorted(inputs)}
        expect_equal(got, expected, what, wrong=wrong)
    return len(cases)
