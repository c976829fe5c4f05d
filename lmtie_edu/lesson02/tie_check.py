"""Whether the head a learner built for tied_head_with_bias holds the embedding's own Parameter (lesson 02)."""

import torch
from torch import nn

from lmtie_edu.kit.exercises import Mismatch
from lmtie_edu.shared.language import tr


def _shares_memory(a: torch.Tensor, b: torch.Tensor) -> bool:
    return a.data_ptr() == b.data_ptr() and a.shape == b.shape and a.stride() == b.stride()


def check_tie(weight, embedding: nn.Embedding, original: nn.Parameter, before: torch.Tensor) -> None:
    """head.weight must be the embedding's own Parameter, and tying must leave the embedding's values alone."""
    expected = tr("head.weight is embedding.weight (one Parameter)")
    if weight is embedding.weight:
        if embedding.weight is not original:
            raise Mismatch(tr("the embedding no longer has its own Parameter"),
                           tr("embedding.weight is still its Parameter"),
                           tr("embedding.weight was replaced by another Parameter"), mistake="reversed_tie")
        if not torch.equal(embedding.weight.detach(), before):
            raise Mismatch(tr("tied_head_with_bias changed the embedding's values (once tied, head.weight is "
                              "embedding.weight: initialising one initialises the other)"),
                           tr("the embedding's values unchanged"), tr("the embedding's values changed"))
        return
    if not isinstance(weight, torch.Tensor):
        raise Mismatch(tr("the head needs a weight: the embedding's Parameter"), expected, repr(weight))
    if _shares_memory(weight, embedding.weight):
        raise Mismatch(tr("head.weight must be the embedding's Parameter itself (a tie)"), expected,
                       tr("a second Parameter over the embedding's memory"), mistake="second_parameter")
    if tuple(weight.shape) != (12, 5):
        raise Mismatch(tr("head.weight must have the embedding's shape (V, d) = (12, 5)"),
                       tr("shape {shape}", shape=(12, 5)), tr("shape {shape}", shape=tuple(weight.shape)))
    if torch.equal(weight.detach(), embedding.weight.detach()):
        raise Mismatch(tr("head.weight must be the embedding's Parameter itself (a tie), not a copy"), expected,
                       tr("a Parameter of its own holding a copy of the embedding's values"), mistake="copy_not_share")
    raise Mismatch(tr("head.weight must be the embedding's Parameter itself (a tie)"), expected,
                   tr("a Parameter of its own with other values than the embedding's (not tied)"))
