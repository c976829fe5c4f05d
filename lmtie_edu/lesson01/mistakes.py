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
    CASE.update(V=W.shape[0], d=W.shape[1], top=int(ids.max()) + 1, rank=ids.dim())


def bag_error(error: BaseException) -> str | None:
    text = str(error)
    shapes = re.search(r"\((\d+)x(\d+) and (\d+)x(\d+)\)", text)
    if shapes and "cannot be multiplied" in text:
        columns, rows, width = (int(shapes[i]) for i in (2, 3, 4))
        if (rows, width) != (CASE["V"], CASE["d"]):      # not (one-hot or counts) @ W: no known mistake
            return None
        return "no_num_classes" if columns == CASE["top"] else "num_classes_not_rows"
    if "same dtype" in text or "expected scalar type" in text:
        if re.search(r"\b(long int|int|short int|bool|Long|Int|Bool)\b", text):
            return "integer_one_hot"
        return "float32_counts" if "float != double" in text else None
    return None


_SIZES = (r"size of tensor a \((\d+)\) must match the size of tensor b \((\d+)\)",
          r"expanded size of the tensor \((\d+)\) must match the existing size \((\d+)\)")


def step_error(error: BaseException) -> str | None:
    if "bincount only supports 1-d" in str(error) and CASE.get("rank", 1) > 1:
        return "not_flattened"
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
    bags, per_token = counts @ W, F.one_hot(ids, W.shape[0]).to(W.dtype) @ W
    return {"normalised_counts": (counts / counts.norm(dim=1, keepdim=True)) @ W, "zero_as_padding": padded @ W,
            "distinct_tokens": F.one_hot(ids, W.shape[0]).amax(dim=1).to(W.dtype) @ W,
            "first_token_only": per_token[:, 0], "last_position_dropped": per_token[:, :-1].sum(dim=1),
            "first_position_dropped": per_token[:, 1:].sum(dim=1), "max_pooled": per_token.amax(dim=1),
            "scaled_by_sqrt_t": bags / ids.shape[1] ** 0.5, "divided_by_batch": bags / ids.shape[0],
            "counts_not_multiplied": counts, "whole_batch_per_row": bags.sum(dim=0).expand_as(bags),
            "unit_rows": counts @ F.normalize(W, dim=1)}


def step_models(W, ids, lr) -> dict:
    """W after one step as each mistake takes it (those about sequences only for a batch of them)."""
    counts = torch.bincount(ids.flatten(), minlength=W.shape[0]).to(W.dtype).unsqueeze(1)
    unique, times = ids.flatten().unique(return_counts=True)
    first_rows = torch.zeros_like(W)
    first_rows[:len(unique)] = times.to(W.dtype).unsqueeze(1)   # the counts on rows 0 … k-1, not on the ids
    looked_up = torch.zeros(W.shape[0], 1, dtype=torch.bool)
    looked_up[ids.flatten()] = True
    last = torch.bincount(ids[..., -1].flatten(), minlength=W.shape[0]).to(W.dtype).unsqueeze(1)
    models = {"squared_loss": W - 2 * lr * counts * W, "counts_not_at_ids": W - lr * first_rows,
              "mean_over_all_lookups": W - lr * counts / ids.numel(), "mean_over_positions": W - lr * counts / ids.shape[-1],
              "lr_squared": W - lr * lr * counts, "no_lr": W - counts, "rows_set": torch.where(looked_up, -lr, W),
              "last_position_only": W - lr * last}
    if ids.dim() == 2:                                          # a batch of sequences
        models["max_over_sequences"] = W - lr * F.one_hot(ids, W.shape[0]).sum(dim=1).amax(dim=0).to(
            W.dtype).unsqueeze(1)
        models["first_sequence_only"] = W - lr * torch.bincount(ids[0], minlength=W.shape[0]).to(W.dtype).unsqueeze(1)
        models["distinct_per_sequence"] = W - lr * F.one_hot(ids, W.shape[0]).amax(dim=1).sum(dim=0).to(
            W.dtype).unsqueeze(1)
    return models


def _close(got, value) -> bool:
    try:
        got = torch.as_tensor(got).detach()
    except (TypeError, ValueError, RuntimeError):
        return False
    return got.shape == value.shape and bool(torch.allclose(got.double(), value.double(), atol=1e-5, rtol=1e-5))


def on_every_case(error: Mismatch, models: Callable, cases: list, run: Callable, got, case) -> None:
    """Name, among the mistakes of ``models(*case)`` whose value ``got`` is, the first one that the answer
    (``run(case)``) makes on every case where it is defined: one case alone can fit another mistake too."""
    here = models(*case)
    if error.mistake is not None and error.mistake not in here:
        return                                  # a mistake of the check's own list, found on this case
    error.mistake = next((key for key, value in here.items() if _close(got, value)
                          and _on_all(key, models, cases, run)), None)


def _on_all(key, models: Callable, cases: list, run: Callable) -> bool:
    for case in cases:
        value = models(*case).get(key)
        if value is None:
            continue
        try:
            got = run(case)
        except LearnerCrash:
            got = None
        if not _close(got, value):
            return False
    return True


ROWS_UNTIED = {"last_input_only": lambda ids, size: [ids[-2]], "first_input_only": lambda ids, size: [ids[0]],
               "none_untied": lambda ids, size: [],
               "targets_minus_inputs": lambda ids, size: sorted(set(ids[1:]) - set(ids[:-1])),
               "middle_only": lambda ids, size: sorted(set(ids[1:-1]))}
ROWS_TIED = {"row_zero_missed": lambda ids, size: list(range(1, size)),
             "one_row_too_few": lambda ids, size: list(range(size - 1)),
             "up_to_largest_id": lambda ids, size: list(range(max(ids) + 1))}


def rows_mistake(answer, cases: list, got, ids: list, vocab_size: int, tie: bool) -> str | None:
    """The mistake of ROWS_UNTIED or ROWS_TIED whose list the answer gives here and on every case of its kind
    (where one case alone fits other mistakes too)."""
    models = ROWS_TIED if tie else ROWS_UNTIED
    for key, model in models.items():
        if got != model(ids, vocab_size):
            continue
        try:
            with forbid_autograd():
                if all(answer(torch.tensor(other), size, kind) == model(other, size) for other, size, kind in cases
                       if kind == tie):
                    return key
        except LearnerCrash:
            return None
    return None
