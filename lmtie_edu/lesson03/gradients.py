"""Lesson 03 — with tying, the matrix's gradient is the lookup's gradient plus the head's.

The lesson builds the untied twin and runs the training loop in its own cells; this module keeps the
same experiment as two calls for the widget and for a second example (:func:`untied_twin`,
:func:`gradient_parts`), plus :func:`rows_touched`. Figures and the panel: ``gradient_figures.py``.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from lmtie_edu.shared.gradient_rows import nonzero_rows
from lmtie_edu.shared.language import tr
from lmtie_edu.shared.models import TinyLM
from lmtie_edu.shared.validation import check_token_ids

MAX_LOGITS = 10_000_000  # one batch's logits (batch × V): more is a typo here, and a memory error in torch


def rows_touched(grad) -> int:
    """How many rows of a gradient matrix (rows, cols) are not all zero."""
    if not isinstance(grad, torch.Tensor):
        hint = tr(" — a .grad is None until backward() has run") if grad is None else ""
        raise TypeError(tr("grad must be a torch.Tensor of shape (rows, cols); got {type}{hint}",
                           type=type(grad).__name__, hint=hint))
    if grad.layout != torch.strided and not grad.is_meta:
        return len(nonzero_rows(grad))                # a sparse gradient: its stored rows that are not zero
    if grad.is_meta:
        raise ValueError(tr("grad is a meta tensor (a shape without values); pass a real gradient, e.g. W.grad"))
    if grad.dim() != 2:
        raise ValueError(tr("grad must be a matrix (rows, cols); got shape {shape}", shape=tuple(grad.shape)))
    if grad.is_floating_point() and not bool(torch.isfinite(grad).all()):
        raise ValueError(tr("grad contains NaN or inf: the backward pass diverged, so 'touched' has no meaning"))
    return int((grad != 0).any(dim=1).sum())


def _check_tied(model) -> TinyLM:
    if not isinstance(model, TinyLM):
        raise TypeError(tr("model must be a lmtie_edu.shared.models.TinyLM; got {type}", type=type(model).__name__))
    if not model.tied:
        raise ValueError(tr("model must be tied (model.head.weight is model.embedding.weight); got an untied model"))
    if model.embedding.weight.is_meta:
        raise ValueError(tr("model lives on the meta device (shapes without values); build it on the CPU"))
    if not all(bool(torch.isfinite(p).all()) for p in model.parameters()):
        raise ValueError(tr("model has NaN or inf among its parameters (a diverged run?): its gradients mean nothing"))
    return model


def untied_twin(model: TinyLM) -> TinyLM:
    """An untied copy of a tied ``TinyLM``: same values everywhere, but the lookup and the head are
    two separate Parameters (each starting as a copy of the shared matrix)."""
    _check_tied(model)
    twin = TinyLM(model.vocab_size, model.d_model, context=model.context,
                  hidden=model.body[0].out_features, tie=False).to(model.embedding.weight.dtype)
    with torch.no_grad():
        twin.body.load_state_dict(model.body.state_dict())
        twin.embedding.weight.copy_(model.embedding.weight)
        twin.head.weight.copy_(model.embedding.weight)
    return twin


def _check_batch(model: TinyLM, inputs, targets) -> tuple[torch.Tensor, torch.Tensor]:
    targets = check_token_ids(targets, model.vocab_size, ranks=(1,), name="targets")
    if len(targets) == 0:
        raise ValueError(tr("the batch is empty (0 targets): a mean loss over no examples is NaN; pass at least one"))
    if len(targets) * model.vocab_size > MAX_LOGITS:
        raise ValueError(tr("the batch needs len(targets) × vocab_size logits, at most {limit:,} here; got "
                            "{batch:,} × {vocab:,} = {logits:,}", limit=MAX_LOGITS, batch=len(targets),
                            vocab=model.vocab_size, logits=len(targets) * model.vocab_size))
    inputs = check_token_ids(inputs, model.vocab_size, ranks=(0, 1, 2, 3), name="inputs")
    if inputs.dim() != 2:
        raise ValueError(tr("inputs must be a (batch, context) matrix of token ids, shape ({batch}, {context}); "
                            "got shape {shape}", batch=len(targets), context=model.context, shape=tuple(inputs.shape)))
    if inputs.shape != (len(targets), model.context):
        raise ValueError(tr("inputs must have shape (len(targets), {context}) = ({batch}, {context}); got {shape}",
                            context=model.context, batch=len(targets), shape=tuple(inputs.shape)))
    return inputs, targets


def gradient_parts(model: TinyLM, inputs, targets) -> dict:
    """Backpropagate one batch through a tied model and through its untied twin.

    Returns the tied gradient of the shared matrix, the twin's two gradients (``input_part`` =
    through the lookup, ``output_part`` = through the head), their sum and the largest absolute
    difference between the tied gradient and that sum. The model's own ``.grad`` is left empty.
    """
    twin = untied_twin(model)
    inputs, targets = _check_batch(model, inputs, targets)
    model.zero_grad(set_to_none=True)
    loss = F.cross_entropy(model(inputs), targets)
    loss.backward()
    twin_loss = F.cross_entropy(twin(inputs), targets)
    twin_loss.backward()
    tied = model.embedding.weight.grad.detach().clone()
    input_part, output_part = twin.embedding.weight.grad, twin.head.weight.grad
    model.zero_grad(set_to_none=True)
    return {
        "tied": tied, "input_part": input_part, "output_part": output_part,
        "sum": input_part + output_part,
        "max_abs_diff": (tied - (input_part + output_part)).abs().max().item(),
        "loss": loss.item(), "twin_loss": twin_loss.item(),
    }
