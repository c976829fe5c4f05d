"""Reference solutions, lesson 01 (embedding lookup)."""

import torch
import torch.nn.functional as F


def bag_of_tokens(W, ids):
    """Sum of each sequence's embedding vectors, as one product: token counts (B, V) times W (V, d) → (B, d)."""
    counts = F.one_hot(ids, num_classes=W.shape[0]).sum(dim=1)   # (B, V): how often each token occurs
    return counts.to(W.dtype) @ W


def sgd_step_on_lookup(W, ids, lr):
    """W after one SGD step on the loss W[ids].sum(): row i moves by -lr once per occurrence of i in ids."""
    counts = torch.bincount(ids.flatten(), minlength=W.shape[0])   # the gradient of row i is `count` in every column
    return W - lr * counts.to(W.dtype).unsqueeze(1)


def rows_reached(ids, vocab_size, tie):
    """Rows of the embedding with a gradient after one next-token step on the sequence ids (lesson §6)."""
    if tie:
        return list(range(vocab_size))            # the head is W: a softmax scores, and pushes, every row
    return sorted(set(ids[:-1].tolist()))         # untied: only the rows looked up; the last id is only a target
