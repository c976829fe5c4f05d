"""What known mistakes of the lesson 03 exercises give on a case, and whether an answer gives it on every case
(``exercises`` names a mistake only then: one case alone can fit another mistake too)."""

import re
from collections.abc import Callable

import torch

from lmtie_edu.kit.feedback import LearnerCrash, Mismatch
from lmtie_edu.kit.shortcuts import forbid_autograd


def known(**answers):
    """The named wrong answers a check can compute for this case (None: that mistake cannot be told here)."""
    return {key: value for key, value in answers.items() if value is not None}


def target_row_only(got, target, shape):
    """``got`` with every row but the target's set to zero — equal to ``got`` when that is all it has — or
    None when ``got`` is not a (V, d) tensor or its target row is zero too."""
    got = torch.as_tensor(got).detach()
    if got.shape != shape or not bool(got[target].ne(0).any()):
        return None
    kept = torch.zeros_like(got)
    kept[target] = got[target]
    return kept


def by_positions(n, upstream, vocab_size, reference):
    """Row t gets upstream[t] (the position for the id), or None when there are more positions than rows."""
    return reference(torch.arange(n), upstream, vocab_size) if n <= vocab_size else None


def one_write_per_id(got, ids, upstream, expected):
    """The expected gradient, except that each repeated id keeps the one of its positions' rows nearest to
    ``got``'s: what an indexed assignment leaves, whichever of the writes wins."""
    got = torch.as_tensor(got).detach()
    if got.shape != expected.shape:
        return None
    written = expected.clone()
    for row in set(ids.tolist()):
        rows = upstream[ids == row]
        if len(rows) > 1:
            written[row] = rows[(rows - got[row]).abs().amax(dim=1).argmin()]
    return written


def by_some_positions(inputs, targets) -> list[list[int]]:
    """What an answer that reads only some positions of every window gives: one list per proper, non-empty set of
    positions."""
    context = inputs.shape[1]
    return [sorted(set(targets.tolist()) - set(inputs[:, [k for k in range(context) if mask >> k & 1]]
                                              .flatten().tolist())) for mask in range(1, 2 ** context - 1)]


def checks_each_window(answer) -> bool:
    """Does the answer give, on a case where they all differ, what checking each target against its own window
    gives ([0, 1]) rather than against the first window ([0, 2]) or not at all ([0, 1, 2])?"""
    return answer(torch.tensor([[1, 1], [0, 2], [2, 3]]), torch.tensor([0, 1, 2]), 4) == [0, 1]


def skips_positions(answer) -> bool:
    """Does the answer give, on cases where skipping a whole window ([4, 5]) or keeping the targets read at most
    once ([0, 1, 2]) gives something else, what reading only some positions of every window gives?"""
    probes = [(torch.tensor([[1, 2, 6], [0, 3, 7], [4, 5, 8]]), torch.tensor([4, 5, 3]), 9),
              (torch.tensor([[3, 3, 4], [3, 3, 3], [0, 2, 1]]), torch.tensor([1, 2, 0]), 5)]
    return all(answer(inputs, targets, size) in by_some_positions(inputs, targets) for inputs, targets, size in probes)


def checks_first_window(answer) -> bool:
    """Does the answer give, on that case, what checking every target against the first window gives ([0])?"""
    return answer(torch.tensor([[1, 1], [0, 2]]), torch.tensor([0, 1]), 3) == [0]


HEAD_CASE: dict[str, int] = {}    # V and d of the head_gradient case being checked


def head_error(error: BaseException) -> str | None:
    """p - y (V numbers) and h (d numbers) multiplied elementwise or as a dot product: a size error naming V and d."""
    sizes = re.search(r"size of tensor a \((\d+)\) must match the size of tensor b \((\d+)\)|"
                      r"got (\d+) and (\d+) elements", str(error))
    if sizes is None or HEAD_CASE.get("V") == HEAD_CASE.get("d"):
        return None
    pair = {int(n) for n in sizes.groups() if n is not None}
    return "elementwise_not_outer" if pair == {HEAD_CASE["V"], HEAD_CASE["d"]} else None


def head_models(h, W_out, target) -> dict:
    p = torch.softmax(W_out @ h, dim=0)
    y = torch.nn.functional.one_hot(torch.tensor(target), W_out.shape[0]).to(p.dtype)
    return {"factor_two": 2 * torch.outer(p - y, h), "log_probabilities": torch.outer(p.log() - y, h),
            "gradient_of_logits": p - y, "divided_by_vocab": torch.outer(p - y, h) / W_out.shape[0],
            "logits_for_probabilities": torch.outer(W_out @ h - y, h),
            "own_row_for_h": (p - y).unsqueeze(1) * W_out, "absolute_difference": torch.outer((p - y).abs(), h),
            "h_normalised": torch.outer(p - y, h / h.norm()),
            "target_shifted": torch.outer(p - y.roll(1), h)}


def lookup_models(ids, upstream, vocab_size) -> dict:
    expected = torch.zeros(vocab_size, upstream.shape[1], dtype=upstream.dtype).index_add(0, ids, upstream)
    first_column = torch.zeros_like(expected)
    first_column[:, 0] = expected[:, 0]
    whole_sum = torch.zeros_like(expected)
    whole_sum[ids.unique()] = upstream.sum(dim=0)
    counts = torch.bincount(ids, minlength=vocab_size).to(upstream.dtype).unsqueeze(1)
    return {"first_column_only": first_column, "whole_sum_per_row": whole_sum, "transposed": expected.T,
            "ids_sorted_alone": torch.zeros_like(expected).index_add(0, ids.sort().values, upstream),
            "divided_by_vocab": expected / vocab_size, "times_count": expected * counts,
            "rows_up_to_largest_id": expected[:int(ids.max()) + 1], "unique_rows_only": expected[ids.unique()]}


def _close(got, value) -> bool:
    return (isinstance(got, torch.Tensor) and got.shape == value.shape
            and bool(torch.allclose(got.detach().double(), value.double(), atol=1e-5, rtol=1e-5)))


def on_every_case(error: Mismatch, models: Callable, cases: list, answer, got, case) -> None:
    """Name, among the mistakes of ``models(*case)`` whose value ``got`` is, the first one whose value the answer
    gives on every case (one case alone can fit another mistake too)."""
    here = models(*case)
    if error.mistake is not None and error.mistake not in here:
        return                                  # a mistake of the check's own list, found on this case
    error.mistake = next((key for key, value in here.items() if _close(torch.as_tensor(got), value)
                          and _on_all(key, models, cases, answer)), None)


def _on_all(key: str, models: Callable, cases: list, answer) -> bool:
    for case in cases:
        try:
            with forbid_autograd():
                got = answer(*(value.clone() if isinstance(value, torch.Tensor) else value for value in case))
        except LearnerCrash:
            got = None
        if not _close(got, models(*case)[key]):
            return False
    return True


def starved_models(inputs, targets, vocab_size) -> dict:
    predicted, read = set(targets.tolist()), set(inputs.flatten().tolist())
    times_read = torch.bincount(inputs.flatten(), minlength=vocab_size)
    return {"last_window_skipped": sorted(predicted - set(inputs[:-1].flatten().tolist())),
            "first_window_skipped": sorted(predicted - set(inputs[1:].flatten().tolist())),
            "nothing_removed": sorted(predicted),
            "intersection": sorted(predicted & set(inputs.flatten().tolist())),
            "neither_read_nor_predicted": sorted(set(range(vocab_size)) - read - predicted),
            "symmetric_difference": sorted(predicted ^ read), "last_window_only": sorted(predicted - set(inputs[-1].tolist())),
            "read_at_most_once": sorted(t for t in predicted if times_read[t] <= 1),
            "first_target_dropped": sorted(set(targets[1:].tolist()) - read)}


def always_lists(answer, cases: list, key: str) -> bool:
    """Does the answer list what the mistake ``key`` gives (starved_models) on every case?"""
    try:
        return all(answer(inputs.clone(), targets.clone(), vocab_size) == starved_models(inputs, targets,
                                                                                          vocab_size)[key]
                   for inputs, targets, vocab_size in cases)
    except LearnerCrash:
        return False
