"""Windows of a token stream and a plain training loop for next-token models."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .language import N_, tr
from .progress import Progress
from .validation import (
    check_bool,
    check_memory,
    check_number,
    check_positive_int,
    check_seed,
    check_token_ids,
)

MAX_BATCH = 1_000_000
MAX_STEPS = 100_000  # a few milliseconds a step: more would run for many minutes


def check_ids(ids, name: str, *, ranks: tuple[int, ...], vocab_size: int | None = None) -> torch.Tensor:
    """Token ids as a LongTensor; a clear error for text, floats, bools, meta tensors and negative ids
    (and for ids >= ``vocab_size`` when it is given)."""
    if isinstance(ids, (str, bytes)) or (isinstance(ids, torch.Tensor) and ids.is_meta):
        return check_token_ids(ids, 1, ranks=ranks, name=name)  # its clear error for text and meta tensors
    if not isinstance(ids, torch.Tensor):
        try:
            array = np.asarray(ids)
            ids = torch.as_tensor(array) if array.size else torch.empty(array.shape, dtype=torch.long)  # [] is float64
        except (TypeError, ValueError) as exc:
            raise TypeError(tr("{name} must be integers (a list, array or LongTensor); got {value:.80}",
                               name=name, value=repr(ids))) from exc
    integer = not (ids.is_floating_point() or ids.is_complex() or ids.dtype == torch.bool)
    if vocab_size is None:  # no vocabulary known: only ids below 0 are impossible
        if integer and ids.numel() and int(ids.min()) < 0:
            raise ValueError(tr("{name} must be token ids >= 0; got {value}", name=name, value=int(ids.min())))
        vocab_size = int(ids.max()) + 1 if integer and ids.numel() else 1
    return check_token_ids(ids, vocab_size, ranks=ranks, name=name)


def make_windows(stream, context: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Turn a 1-D token stream into (inputs (N, context), targets (N,)): each window predicts the next token."""
    stream = check_ids(stream, tr("the token stream"), ranks=tuple(range(8)))
    if stream.dim() != 1:
        raise ValueError(tr("the token stream must be 1-D (one sequence of ids); got shape {shape}",
                            shape=tuple(stream.shape)))
    context = check_positive_int(context, "context")
    if stream.numel() <= context:
        raise ValueError(tr("the token stream needs more than context={context} tokens; got {tokens}",
                            context=context, tokens=stream.numel()))
    check_memory(8 * (stream.numel() - context) * (context + 1),
                 tr("the windows of {tokens:,} tokens with context={context:,}", tokens=stream.numel(), context=context),
                 tr("use a shorter stream or a smaller context"))
    inputs = stream.unfold(0, context, 1)[:-1]
    return inputs.contiguous(), stream[context:].clone()


def check_examples(model, inputs, targets, what: str = "") -> tuple[torch.Tensor, torch.Tensor]:
    """A model and next-token examples it can read: inputs (N, context) and targets (N,), N >= 1."""
    if not isinstance(model, nn.Module):
        raise TypeError(tr("model must be a torch.nn.Module (e.g. a TinyLM); got {type}", type=type(model).__name__))
    if any(p.is_meta for p in model.parameters()):
        raise ValueError(tr("the model lives on the meta device (shapes without values); build it on the CPU"))
    vocab_size = getattr(getattr(model, "embedding", None), "num_embeddings", None)
    inputs = check_ids(inputs, f"{what}inputs", ranks=(2,), vocab_size=vocab_size)
    targets = check_ids(targets, f"{what}targets", ranks=(1,), vocab_size=vocab_size)
    if len(targets) == 0:
        raise ValueError(tr("{what}targets are empty: a mean loss over no examples is NaN; pass at least one example",
                            what=what))
    context = getattr(model, "context", None)
    if isinstance(context, int) and inputs.shape[1] != context:
        raise ValueError(tr("{what}inputs must have shape (N, {context}) for this model (it reads context={context} "
                            "tokens); got {shape}", what=what, context=context, shape=tuple(inputs.shape)))
    if len(inputs) != len(targets):
        raise ValueError(tr("{what}inputs and targets must have one row per example; got {inputs} inputs and "
                            "{targets} targets", what=what, inputs=len(inputs), targets=len(targets)))
    return inputs, targets


def train(model: nn.Module, inputs: torch.Tensor, targets: torch.Tensor, *, steps: int, batch_size: int = 64,
          lr: float = 3e-3, seed: int = 0, description: str = N_("training"),
          show_progress: bool | None = None) -> list[float]:
    """Adam on random mini-batches (drawn from a generator seeded with ``seed``); returns each step's loss.

    ``description`` labels the progress bar (shown in the learner's language when the catalogue has it)."""
    inputs, targets = check_examples(model, inputs, targets)
    steps = check_positive_int(steps, "steps")
    if steps > MAX_STEPS:
        raise ValueError(tr("steps must be at most {limit:,} (more would run for many minutes); got {steps:,}",
                            limit=MAX_STEPS, steps=steps))
    batch_size = check_positive_int(batch_size, "batch_size")
    if batch_size > MAX_BATCH:
        raise ValueError(tr("batch_size must be at most {limit:,}; got {batch_size:,}",
                            limit=MAX_BATCH, batch_size=batch_size))
    vocab_size = getattr(getattr(model, "embedding", None), "num_embeddings", None) or int(targets.max()) + 1
    check_memory(3 * 4 * batch_size * vocab_size,  # the logits, their softmax and their gradient, in float32
                 tr("a batch of batch_size={batch_size:,} over {vocab_size:,} tokens",
                    batch_size=batch_size, vocab_size=vocab_size),
                 tr("use a smaller batch_size"))
    lr = check_number(lr, "lr", minimum=0, maximum=10, strict=True,
                      expected=tr("a learning rate in (0, 10), e.g. 3e-3"))
    seed = check_seed(seed)
    if show_progress is not None:
        show_progress = check_bool(show_progress, "show_progress")
    if not any(p.requires_grad for p in model.parameters()):
        raise ValueError(tr("the model has no trainable parameters (every requires_grad is False): there is nothing "
                            "to train — call model.requires_grad_(True) first"))
    generator = torch.Generator().manual_seed(seed)
    optimiser = torch.optim.Adam(model.parameters(), lr=lr)
    losses = []
    for _ in Progress(range(steps), tr(description) if isinstance(description, str) else description,
                      show=show_progress):
        batch = torch.randint(len(targets), (batch_size,), generator=generator)
        loss = F.cross_entropy(model(inputs[batch]), targets[batch])
        optimiser.zero_grad(set_to_none=True)
        loss.backward()
        optimiser.step()
        losses.append(loss.item())
    return losses
