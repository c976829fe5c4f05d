"""Tying, untying and checking a tie between an embedding and an output head."""

from __future__ import annotations

import torch
from torch import nn

from .language import tr
from .validation import check_tie_shapes


def tie(head: nn.Linear, embedding: nn.Embedding) -> None:
    """Make ``head`` use the very same Parameter as ``embedding`` (``head.weight = embedding.weight``).

    The shapes are checked first, so a wrongly built head fails with a clear message instead of a
    shape error on the first forward pass.
    """
    if not isinstance(head, nn.Linear):
        raise TypeError(tr("head must be an nn.Linear(d, V); got {type}", type=type(head).__name__))
    if not isinstance(embedding, nn.Embedding):
        raise TypeError(tr("embedding must be an nn.Embedding(V, d); got {type}", type=type(embedding).__name__))
    check_tie_shapes(embedding.weight, head.weight)
    head.weight = embedding.weight


def untie(head: nn.Linear) -> None:
    """Give ``head`` its own copy of the weights it currently holds (e.g. before fine-tuning)."""
    if not isinstance(head, nn.Linear):
        raise TypeError(tr("head must be an nn.Linear(d, V); got {type}", type=type(head).__name__))
    head.weight = nn.Parameter(head.weight.detach().clone())


def _check_tensor(value, name: str) -> torch.Tensor:
    if not isinstance(value, torch.Tensor):
        raise TypeError(tr("{name} must be a torch.Tensor (or nn.Parameter); got {type}",
                           name=name, type=type(value).__name__))
    return value


def shares_parameter(a: nn.Parameter, b: nn.Parameter) -> bool:
    """True only for a real tie: one Parameter object, hence one storage and one gradient."""
    _check_tensor(a, "a"), _check_tensor(b, "b")
    return a is b


def shares_storage(a, b) -> bool:
    """True when two tensors read the same memory (a tie, or a ``.data`` alias that is not a tie).

    Tensors without memory cannot share it: an empty tensor has no storage address worth comparing
    (two unrelated empty tensors both report address 0), and a meta tensor has none at all.
    """
    for name, tensor in (("a", _check_tensor(a, "a")), ("b", _check_tensor(b, "b"))):
        if tensor.is_meta:
            raise ValueError(tr("{name} is a meta tensor (shape only, no memory): storage sharing is undefined; "
                                "compare Parameters with shares_parameter(a, b) instead", name=name))
    a, b = (t._values() if t.is_sparse else t for t in (a, b))  # a sparse tensor's memory: its values
    if a.untyped_storage().nbytes() == 0 or b.untyped_storage().nbytes() == 0:
        return False
    return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()
