"""Tying, untying and checking a tie between an embedding and an output head."""

from __future__ import annotations

from torch import nn

from .validation import check_tie_shapes


def tie(head: nn.Linear, embedding: nn.Embedding) -> None:
    """Make ``head`` use the very same Parameter as ``embedding`` (``head.weight = embedding.weight``).

    The shapes are checked first, so a wrongly built head fails with a clear message instead of a
    shape error on the first forward pass.
    """
    if not isinstance(head, nn.Linear):
        raise TypeError(f"head must be an nn.Linear(d, V); got {type(head).__name__}")
    if not isinstance(embedding, nn.Embedding):
        raise TypeError(f"embedding must be an nn.Embedding(V, d); got {type(embedding).__name__}")
    check_tie_shapes(embedding.weight, head.weight)
    head.weight = embedding.weight


def untie(head: nn.Linear) -> None:
    """Give ``head`` its own copy of the weights it currently holds (e.g. before fine-tuning)."""
    head.weight = nn.Parameter(head.weight.detach().clone())


def shares_parameter(a: nn.Parameter, b: nn.Parameter) -> bool:
    """True only for a real tie: one Parameter object, hence one storage and one gradient."""
    return a is b


def shares_storage(a, b) -> bool:
    """True when two tensors read the same memory (a tie, or a ``.data`` alias that is not a tie)."""
    return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()
