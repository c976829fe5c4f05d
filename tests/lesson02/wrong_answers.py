"""Lesson 02: one wrong answer per diagnosed mistake, and the shortcuts each check must refuse."""

import torch
from torch import nn

# -- cosine_head -----------------------------------------------------------------------------------------------


def cosine_by_columns(W):
    return W / W.norm(dim=0, keepdim=True)


def cosine_in_place(W):
    W /= W.norm(dim=1, keepdim=True)
    return W


def cosine_without_keepdim(W):
    return W / W.norm(dim=1)


def cosine_as_list(W):
    return (W / W.norm(dim=1, keepdim=True)).tolist()


def cosine_as_numpy(W):
    return (W / W.norm(dim=1, keepdim=True)).numpy()


def cosine_unchanged(W):  # the plain head: still favours long vectors
    return W.clone()


# -- tokens_beating_self ----------------------------------------------------------------------------------------


def beating_including_self(W, i):
    logits = W @ W[i]
    return [j for j in range(len(W)) if logits[j] >= logits[i]]


def beating_by_norm(W, i):
    norms = W.norm(dim=1)
    return [j for j in range(len(W)) if norms[j] > norms[i]]


def beating_as_tensor(W, i):
    logits = W @ W[i]
    return torch.nonzero(logits > logits[i]).flatten()


def beating_as_tensor_elements(W, i):
    logits = W @ W[i]
    return list(torch.nonzero(logits > logits[i]).flatten())


# -- tied_head_with_bias ----------------------------------------------------------------------------------------


def _head(embedding, *, transposed=False, bias=True, zero_bias=True, copy=False):
    V, d = embedding.weight.shape
    head = nn.Linear(V, d, bias=bias) if transposed else nn.Linear(d, V, bias=bias)
    head.weight = nn.Parameter(embedding.weight.detach().clone()) if copy else embedding.weight
    if bias and zero_bias:
        nn.init.zeros_(head.bias)
    return head


def head_by_copy(embedding):
    return _head(embedding, copy=True)


def head_transposed(embedding):
    return _head(embedding, transposed=True)


def head_with_random_bias(embedding):
    return _head(embedding, zero_bias=False)


def head_is_embedding(embedding):  # not a head at all
    return embedding


def head_without_bias(embedding):
    return _head(embedding, bias=False)


WRONG = {
    "cosine_head": {"columns": cosine_by_columns, "in_place": cosine_in_place, "no_keepdim": cosine_without_keepdim},
    "tokens_beating_self": {"includes_self": beating_including_self, "by_norm": beating_by_norm},
    "tied_head_with_bias": {"copy_not_share": head_by_copy, "transposed_layer": head_transposed,
                            "bias_not_zero": head_with_random_bias},
}

SHORTCUTS = {
    "cosine_head": [cosine_as_list, cosine_as_numpy, cosine_unchanged],
    "tokens_beating_self": [beating_as_tensor, beating_as_tensor_elements],
    "tied_head_with_bias": [head_is_embedding, head_without_bias],
}
