"""A small neural language model with an optional tie, shared by the lessons.

Lesson 02 writes :class:`TinyLM` out in a cell; this is the same code (a test compares the two), kept
here so that lessons 03, 06 and 07 can import it (lessons 05, 08 and 09 use its ``count_parameters``). ``TinyLM`` reads the last ``context`` tokens,
looks them up in an ``nn.Embedding(V, d)``, mixes them with a small MLP into a hidden state ``h`` of
size d, and scores every token with an ``nn.Linear(d, V, bias=False)`` head: ``logits = h @ W_out.T``.
With ``tie=True`` the head *is* the embedding matrix (one Parameter), so the model has V·d fewer
parameters.

The input checks live in two small functions so that the class itself reads like the lesson.
"""

from __future__ import annotations

import torch
from torch import nn

from .language import tr
from .validation import check_bool, check_positive_int, check_token_ids

MAX_WEIGHTS = 10**9  # a teaching model above this would need > 4 GB of float32 weights


def check_tinylm_sizes(vocab_size, d_model, context, hidden, tie) -> tuple[int, int, int, int]:
    """Check TinyLM's arguments; return ``(vocab_size, d_model, context, hidden)`` as ints.

    ``hidden=None`` means ``2 * d_model``. ``tie`` must be exactly True or False ("no" or None are
    not switches). Sizes whose weights would not fit a teaching model are refused before any allocation.
    """
    vocab_size = check_positive_int(vocab_size, "vocab_size")
    d_model = check_positive_int(d_model, "d_model")
    context = check_positive_int(context, "context")
    hidden = check_positive_int(2 * d_model if hidden is None else hidden, "hidden")
    check_bool(tie, "tie")
    weights = vocab_size * d_model * (1 if tie else 2) + (context * d_model + 1) * hidden + (hidden + 1) * d_model
    if weights > MAX_WEIGHTS:
        raise ValueError(tr(
            "TinyLM(vocab_size={vocab_size}, d_model={d_model}, context={context}, hidden={hidden}) would have "
            "{weights:,} weights ({size:.1f} GiB of float32); a teaching model is limited to {limit:,} — use a "
            "smaller vocab_size or d_model", vocab_size=vocab_size, d_model=d_model, context=context, hidden=hidden,
            weights=weights, size=weights * 4 / 2**30, limit=MAX_WEIGHTS))
    return vocab_size, d_model, context, hidden


def check_context_ids(ids, vocab_size: int, context: int) -> torch.Tensor:
    """Token ids of shape (batch, context), each in [0, vocab_size - 1], as a LongTensor."""
    context = check_positive_int(context, "context")
    ids = check_token_ids(ids, vocab_size, ranks=(2,), name=tr("context ids"))
    if ids.shape[1] != context:
        raise ValueError(tr("context ids must have shape (batch, {context}); got {shape}",
                            context=context, shape=tuple(ids.shape)))
    return ids


class TinyLM(nn.Module):
    def __init__(self, vocab_size, d_model, *, context=2, hidden=None, tie=True):
        super().__init__()
        vocab_size, d_model, context, hidden = check_tinylm_sizes(vocab_size, d_model, context, hidden, tie)
        self.vocab_size, self.d_model, self.context = vocab_size, d_model, context
        self.embedding = nn.Embedding(vocab_size, d_model)                     # E, shape (V, d)
        self.body = nn.Sequential(nn.Linear(context * d_model, hidden), nn.Tanh(), nn.Linear(hidden, d_model))
        self.head = nn.Linear(d_model, vocab_size, bias=False)                 # W_out, shape (V, d)
        nn.init.normal_(self.embedding.weight, std=d_model ** -0.5)  # N(0, 1/d): logits h·w of order one
        nn.init.normal_(self.head.weight, std=d_model ** -0.5)
        if tie:
            self.head.weight = self.embedding.weight  # the tie: one Parameter serves as input and output matrix

    @property
    def tied(self):
        return self.head.weight is self.embedding.weight

    def hidden_state(self, ids):
        ids = check_context_ids(ids, self.vocab_size, self.context)
        return self.body(self.embedding(ids).flatten(1))                      # h, shape (batch, d)

    def forward(self, ids):
        return self.head(self.hidden_state(ids))                              # logits h @ W_out.T, (batch, V)


def count_parameters(model: nn.Module) -> int:
    """Parameters as ``model.parameters()`` yields them: a tied matrix counts once."""
    if not isinstance(model, nn.Module):
        raise TypeError(tr("model must be a torch.nn.Module; got {type}", type=type(model).__name__))
    return sum(p.numel() for p in model.parameters())
