"""A small neural language model with an optional tie, shared by the lessons.

``TinyLM`` reads the last ``context`` tokens, looks them up in an ``nn.Embedding(V, d)``, mixes them
with a small MLP into a hidden state ``h`` of size d, and scores every token with an
``nn.Linear(d, V, bias=False)`` head: ``logits = h @ W_out.T``. With ``tie=True`` the head *is* the
embedding matrix (one Parameter), so the model has V·d fewer parameters.
"""

from __future__ import annotations

import torch
from torch import nn

from .tying import tie as tie_head
from .validation import check_positive_int, check_token_ids


class TinyLM(nn.Module):
    def __init__(self, vocab_size: int, d_model: int, *, context: int = 2, hidden: int | None = None,
                 tie: bool = True):
        super().__init__()
        self.vocab_size = check_positive_int(vocab_size, "vocab_size")
        self.d_model = check_positive_int(d_model, "d_model")
        self.context = check_positive_int(context, "context")
        hidden = check_positive_int(hidden if hidden is not None else 2 * d_model, "hidden")
        self.embedding = nn.Embedding(vocab_size, d_model)
        self.body = nn.Sequential(nn.Linear(context * d_model, hidden), nn.Tanh(), nn.Linear(hidden, d_model))
        self.head = nn.Linear(d_model, vocab_size, bias=False)
        # N(0, 1/d) rows keep logits h·w of order one whether the matrix is used as input or output.
        nn.init.normal_(self.embedding.weight, std=d_model ** -0.5)
        nn.init.normal_(self.head.weight, std=d_model ** -0.5)
        if tie:
            tie_head(self.head, self.embedding)

    @property
    def tied(self) -> bool:
        return self.head.weight is self.embedding.weight

    def hidden_state(self, ids) -> torch.Tensor:
        ids = check_token_ids(ids, self.vocab_size, ranks=(2,), name="context ids")
        if ids.shape[1] != self.context:
            raise ValueError(f"context ids must have shape (batch, {self.context}); got {tuple(ids.shape)}")
        return self.body(self.embedding(ids).flatten(1))

    def forward(self, ids) -> torch.Tensor:
        """``ids``: (batch, context) token ids → logits (batch, V)."""
        return self.head(self.hidden_state(ids))


def count_parameters(model: nn.Module) -> int:
    """Parameters as ``model.parameters()`` yields them: a tied matrix counts once."""
    return sum(p.numel() for p in model.parameters())
