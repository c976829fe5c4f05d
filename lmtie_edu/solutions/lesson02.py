"""Reference solutions, lesson 02 (logits as inner products)."""

import torch
from torch import nn


def distance_bias(W):
    """Per-token bias b such that h @ W.T + b ranks tokens like nearest-vector decoding, for every h.

    -½‖h - w_i‖² = h·w_i - ½‖w_i‖² - ½‖h‖², and the last term is the same for every token.
    """
    return -0.5 * (W ** 2).sum(dim=1)


def tokens_beating_self(W, i):
    """With a tied head and h = e_i: the tokens j whose logit e_i·e_j is larger than ‖e_i‖²."""
    logits = W @ W[i]
    return sorted(int(j) for j in torch.nonzero(logits > logits[i]).flatten())


def tied_head_with_bias(embedding):
    """A BERT-style tied head: the embedding's own (V, d) Parameter as weight, plus a per-token bias."""
    vocab_size, d_model = embedding.weight.shape
    head = nn.Linear(d_model, vocab_size, bias=True)
    head.weight = embedding.weight
    nn.init.zeros_(head.bias)
    return head
