"""What known mistakes of the lesson 01 exercises give on a case, and the crashes that name one
(``exercises`` names a mistake when the answer's value is the one computed here)."""

import re
from collections.abc import Callable

import torch
import torch.nn.functional as F

from lmtie_edu.kit.feedback import LearnerCrash, Mismatch
from lmtie_edu.kit.shortcuts import forbid_autograd

# The case being checked (W's shape, the largest id + 1): a crash's message names sizes, and these say whose.
CASE: dict[str, int] = {}


def set_case(W, ids) -> None:
    CASE.update(V=W.shape[0], d=W.shape[1], top=int(ids.max()) + 1)


def bag_error(error: BaseException) -> str | None:
    text = str(error)
    shapes = re.search(r"\((\d+)x(\d+) and (\d+)x(\d+)\)", text)
    if shapes and "cannot be multiplied" in text:
        columns, rows, width = (int(shapes[i]) for i in (2, 3, 4))
        if (rows, width) != (CASE["V"], CASE["d"]):      # not (one-hot or counts) @ W: no known mistake
            return None
        return "no_num_classes" if columns == CASE["top"] else "num_classes_not_rows"
    if "same dtype" in text or "expected scalar type" in text:
        return "integer_one_hot"
    return None


_SIZES = (r"size of tensor a \((\d+)\) must match the size of tensor b \((\d+)\)",
          r"expanded size of the tensor \((\d+)\) must match the existing size \((\d+)\)")


def step_error(error: BaseException) -> str | None:
    for pattern in _SIZES:
        if sizes := re.search(pattern, str(error)):
            pair = {int(sizes[1]), int(sizes[2])}
            if CASE["top"] < CASE["V"] and pair == {CASE["V"], CASE["top"]}:
                return "no_minlength"
            if pair == {CASE["V"], CASE["d"]}:
                return "counts_not_column"
    return None


def bag_models(W, ids) -> dict:
    """What the bags are for mistakes that need every case to be told apart from others."""
    counts = F.one_hot(ids, W.shape[0]).sum(dim=1).to(W.dtype)
    padded = counts.clone()
    padded[:, 0] = 0
    return {"normalised_counts": (counts / counts.norm(dim=1, keepdim=True)) @ W, "zero_as_padding": padded @ W,
            "distinct_tokens": F.one_hot(ids, W.shape[0]).amax(dim=1).to(W.dtype) @ W}


def step_models(W, ids, lr) -> dict:
    counts = torch.bincount(ids.flatten(), minlength=W.shape[0]).to(W.dtype).unsqueeze(1)
    unique, times = ids.flatten().unique(return_counts=True)
    first_rows = torch.zeros_like(W)
    first_rows[:len(unique)] = times.to(W.dtype).unsqueeze(1)   # the counts on rows 0 … k-1, not on the ids
    models = {"squared_loss": W - 2 * lr * counts * W, "counts_not_at_ids": W - lr * first_rows}
    if ids.dim() == 2:                                          # one count per sequence, the largest of them
        models["max_over_sequences"] = W - lr * F.one_hot(ids, W.shape[0]).sum(dim=1).amax(dim=0).to(
            W.dtype).unsqueeze(1)
    return models


def _close(got, value) -> bool:
    try:
        got = torch.as_tensor(got).detach()
    except (TypeError, ValueError, RuntimeError):
        return False
    return got.shape == value.shape and bool(torch.allclose(got.double(), value.double(), atol=1e-5, rtol=1e-5))


def on_every_case(error: Mismatch, models: Callable, cases: list, run: Callable) -> None:
    """Keep the mistake ``error`` names only if the answer (``run(case)``) gives what ``models(*case)`` says that
    mistake gives on every case where the model is defined: one case alone can match another mistake."""
    if error.mistake is None or not any(error.mistake in models(*case) for case in cases):
        return
    for case in cases:
        value = models(*case).get(error.mistake)
        if value is None:
            continue
        try:
            got = run(case)
        except LearnerCrash:
            got = None
        if not _close(got, value):
            error.mistake = None
            return


def rows_always(answer, cases: list, model: Callable) -> bool:
    """Does the answer list ``model(ids)`` on every untied case (where one case alone fits other mistakes too)?"""
    try:
        with forbid_autograd():
            return all(answer(torch.tensor(ids), vocab_size, tie) == model(ids) for ids, vocab_size, tie in cases
                       if not tie)
    except LearnerCrash:
        return False
