"""Windows of a token stream and a plain training loop for next-token models."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .progress import Progress
from .validation import check_bool, check_number, check_positive_int, check_token_ids

MAX_VOCAB = 10_000_000  # a per-row counter beyond this is a mistake, not a teaching model
MAX_BATCH = 1_000_000


def check_ids(ids, name: str, *, ranks: tuple[int, ...], vocab_size: int | None = None) -> torch.Tensor:
    """Token ids as a LongTensor; a clear error for text, floats, bools, meta tensors and negative ids
    (and for ids >= ``vocab_size`` when it is given)."""
    if isinstance(ids, (str, bytes)):
        raise TypeError(f"{name} must be token ids (integers), not text; got {ids[:30]!r} — map the text to ids first")
    if isinstance(ids, torch.Tensor) and ids.is_meta:
        raise ValueError(f"{name} is a meta tensor (a shape without values); pass real token ids")
    if not isinstance(ids, torch.Tensor):
        try:
            array = np.asarray(ids)
            ids = torch.as_tensor(array) if array.size else torch.empty(array.shape, dtype=torch.long)  # [] is float64
        except (TypeError, ValueError) as exc:
            raise TypeError(f"{name} must be integers (a list, array or LongTensor); got {ids!r:.80}") from exc
    integer = not (ids.is_floating_point() or ids.is_complex() or ids.dtype == torch.bool)
    if vocab_size is None:  # no vocabulary known: only ids below 0 are impossible
        if integer and ids.numel() and int(ids.min()) < 0:
            raise ValueError(f"{name} must be token ids >= 0; got {int(ids.min())}")
        vocab_size = int(ids.max()) + 1 if integer and ids.numel() else 1
    return check_token_ids(ids, vocab_size, ranks=ranks, name=name)


def make_windows(stream, context: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Turn a 1-D token stream into (inputs (N, context), targets (N,)): each window predicts the next token."""
    stream = check_ids(stream, "the token stream", ranks=tuple(range(8)))
    if stream.dim() != 1:
        raise ValueError(f"the token stream must be 1-D (one sequence of ids); got shape {tuple(stream.shape)}")
    context = check_positive_int(context, "context")
    if stream.numel() <= context:
        raise ValueError(f"the token stream needs more than context={context} tokens; got {stream.numel()}")
    inputs = stream.unfold(0, context, 1)[:-1]
    return inputs.contiguous(), stream[context:].clone()


def check_examples(model, inputs, targets, what: str = "") -> tuple[torch.Tensor, torch.Tensor]:
    """A model and next-token examples it can read: inputs (N, context) and targets (N,), N >= 1."""
    if not isinstance(model, nn.Module):
        raise TypeError(f"model must be a torch.nn.Module (e.g. a TinyLM); got {type(model).__name__}")
    if any(p.is_meta for p in model.parameters()):
        raise ValueError("the model lives on the meta device (shapes without values); build it on the CPU")
    vocab_size = getattr(getattr(model, "embedding", None), "num_embeddings", None)
    inputs = check_ids(inputs, f"{what}inputs", ranks=(2,), vocab_size=vocab_size)
    targets = check_ids(targets, f"{what}targets", ranks=(1,), vocab_size=vocab_size)
    if len(targets) == 0:
        raise ValueError(f"{what}targets are empty: a mean loss over no examples is NaN; pass at least one example")
    if len(inputs) != len(targets):
        raise ValueError(f"{what}inputs and targets must have one row per example; got {len(inputs)} inputs "
                         f"and {len(targets)} targets")
    return inputs, targets


@dataclass
class History:
    steps: list[int] = field(default_factory=list)
    train_loss: list[float] = field(default_factory=list)
    val_steps: list[int] = field(default_factory=list)
    val_loss: list[float] = field(default_factory=list)


class RowGradientCounter:
    """An ``after_backward`` hook for :func:`train`: which rows of the embedding and of the head got gradient.

    Per row (token id) it counts the steps with a non-zero gradient and sums the gradient norms,
    for the input matrix (``embedding.weight``) and the output matrix (``head.weight``), and counts
    how often each token was a target in a batch. For a tied model both matrices are one, so the
    two counts are equal (the paths cannot be told apart in one ``.grad``).
    """

    def __init__(self, vocab_size: int):
        vocab_size = check_positive_int(vocab_size, "vocab_size")
        if vocab_size > MAX_VOCAB:
            raise ValueError(f"vocab_size must be at most {MAX_VOCAB:,} (a counter per row); got {vocab_size:,}")
        self.input_steps = torch.zeros(vocab_size, dtype=torch.long)
        self.output_steps = torch.zeros(vocab_size, dtype=torch.long)
        self.input_norm_sum = torch.zeros(vocab_size, dtype=torch.float64)
        self.output_norm_sum = torch.zeros(vocab_size, dtype=torch.float64)
        self.target_counts = torch.zeros(vocab_size, dtype=torch.long)

    def __call__(self, model: nn.Module, inputs: torch.Tensor, targets: torch.Tensor) -> None:
        vocab_size = len(self.target_counts)
        grads = [getattr(getattr(getattr(model, part, None), "weight", None), "grad", None)
                 for part in ("embedding", "head")]
        if any(grad is None for grad in grads):
            raise ValueError("model.embedding.weight.grad and model.head.weight.grad must exist: call the counter "
                             "after loss.backward() on a model with an embedding and a head")
        if any(grad.dim() != 2 or grad.shape[0] != vocab_size for grad in grads):
            raise ValueError(f"the counter was built for vocab_size={vocab_size}; the model's matrices have "
                             f"shapes {[tuple(grad.shape) for grad in grads]}")
        targets = check_ids(targets, "targets", ranks=(1,), vocab_size=vocab_size)
        for grad, steps, norms in ((grads[0], self.input_steps, self.input_norm_sum),
                                   (grads[1], self.output_steps, self.output_norm_sum)):
            steps += (grad != 0).any(dim=1)
            norms += grad.norm(dim=1).double()
        self.target_counts += torch.bincount(targets, minlength=len(self.target_counts))


@torch.no_grad()
def evaluate(model: nn.Module, inputs: torch.Tensor, targets: torch.Tensor, batch_size: int = 4096) -> float:
    """Mean cross-entropy (nats per token) of ``model`` on a whole set."""
    inputs, targets = check_examples(model, inputs, targets)
    batch_size = check_positive_int(batch_size, "batch_size")
    model.eval()
    total = 0.0
    for start in range(0, len(targets), batch_size):
        logits = model(inputs[start:start + batch_size])
        total += F.cross_entropy(logits, targets[start:start + batch_size], reduction="sum").item()
    model.train()
    return total / len(targets)


def train(model: nn.Module, inputs: torch.Tensor, targets: torch.Tensor, *, steps: int, batch_size: int = 64,
          lr: float = 3e-3, seed: int = 0, val: tuple[torch.Tensor, torch.Tensor] | None = None,
          eval_every: int = 50, description: str = "training", show_progress: bool | None = None,
          after_backward: Callable[[nn.Module, torch.Tensor, torch.Tensor], None] | None = None) -> History:
    """Adam on random mini-batches (drawn from a generator seeded with ``seed``).

    ``after_backward(model, batch_inputs, batch_targets)`` runs after each backward pass, before the
    optimiser step — e.g. to count which rows of the embedding received a gradient.
    """
    inputs, targets = check_examples(model, inputs, targets)
    if val is not None:
        if not isinstance(val, (tuple, list)) or len(val) != 2:
            raise TypeError(f"val must be a pair (val_inputs, val_targets) or None; got {type(val).__name__}")
        val = check_examples(model, *val, what="val ")
    steps = check_positive_int(steps, "steps")
    batch_size = check_positive_int(batch_size, "batch_size")
    if batch_size > MAX_BATCH:
        raise ValueError(f"batch_size must be at most {MAX_BATCH:,}; got {batch_size:,}")
    lr = check_number(lr, "lr", minimum=0, maximum=10, strict=True, expected="a learning rate in (0, 10), e.g. 3e-3")
    seed = check_positive_int(seed, "seed", minimum=0)
    eval_every = check_positive_int(eval_every, "eval_every")
    if show_progress is not None:
        check_bool(show_progress, "show_progress")
    if after_backward is not None and not callable(after_backward):
        raise TypeError(f"after_backward must be a function (model, inputs, targets) -> None; "
                        f"got {type(after_backward).__name__}")
    generator = torch.Generator().manual_seed(seed)
    optimiser = torch.optim.Adam(model.parameters(), lr=lr)
    history = History()
    bar = Progress(range(steps), description, show=show_progress)
    for step in bar:
        batch = torch.randint(len(targets), (batch_size,), generator=generator)
        loss = F.cross_entropy(model(inputs[batch]), targets[batch])
        optimiser.zero_grad(set_to_none=True)
        loss.backward()
        if after_backward is not None:
            after_backward(model, inputs[batch], targets[batch])
        optimiser.step()
        history.steps.append(step + 1)
        history.train_loss.append(loss.item())
        if val is not None and ((step + 1) % eval_every == 0 or step + 1 == steps):
            history.val_steps.append(step + 1)
            history.val_loss.append(evaluate(model, *val))
            bar.note(f"step {step + 1}: val loss {history.val_loss[-1]:.3f}")
    return history
