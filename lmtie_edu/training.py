"""Windows of a token stream and a plain training loop for next-token models."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import torch
import torch.nn.functional as F
from torch import nn

from .progress import Progress
from .validation import check_positive_int


def make_windows(stream, context: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Turn a 1-D token stream into (inputs (N, context), targets (N,)): each window predicts the next token."""
    stream = torch.as_tensor(stream)
    context = check_positive_int(context, "context")
    if stream.dim() != 1:
        raise ValueError(f"the token stream must be 1-D; got shape {tuple(stream.shape)}")
    if stream.numel() <= context:
        raise ValueError(f"the token stream needs more than context={context} tokens; got {stream.numel()}")
    inputs = stream.unfold(0, context, 1)[:-1]
    return inputs.contiguous(), stream[context:].clone()


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
        self.input_steps = torch.zeros(vocab_size, dtype=torch.long)
        self.output_steps = torch.zeros(vocab_size, dtype=torch.long)
        self.input_norm_sum = torch.zeros(vocab_size, dtype=torch.float64)
        self.output_norm_sum = torch.zeros(vocab_size, dtype=torch.float64)
        self.target_counts = torch.zeros(vocab_size, dtype=torch.long)

    def __call__(self, model: nn.Module, inputs: torch.Tensor, targets: torch.Tensor) -> None:
        for grad, steps, norms in ((model.embedding.weight.grad, self.input_steps, self.input_norm_sum),
                                   (model.head.weight.grad, self.output_steps, self.output_norm_sum)):
            steps += (grad != 0).any(dim=1)
            norms += grad.norm(dim=1).double()
        self.target_counts += torch.bincount(targets, minlength=len(self.target_counts))


@torch.no_grad()
def evaluate(model: nn.Module, inputs: torch.Tensor, targets: torch.Tensor, batch_size: int = 4096) -> float:
    """Mean cross-entropy (nats per token) of ``model`` on a whole set."""
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
    steps = check_positive_int(steps, "steps")
    batch_size = check_positive_int(batch_size, "batch_size")
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
