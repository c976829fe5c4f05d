"""Reference solutions, lesson 02 (logits as inner products)."""

import torch
from torch import nn


def cosine_head(W):
    """Rows of equal length pointing like W's rows: h @ result.T ranks the tokens by their cosine with h.

    h·w_i = |h|·|w_i|·cos θ_i; |h| is the same for every token, so once every row has length 1 the logit is
    |h|·cos θ_i and the length advantage is gone. W itself is left unchanged.
    """
    return W / W.norm(dim=1, keepdim=True)


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
