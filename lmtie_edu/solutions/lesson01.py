"""Reference solutions, lesson 01 (embedding lookup)."""

import torch
import torch.nn.functional as F
from torch import nn


def one_hot_lookup(W, ids):
    """Embedding lookup as a matrix product: one-hot rows (…, V) times W (V, d)."""
    return F.one_hot(ids, num_classes=W.shape[0]).to(W.dtype) @ W


def lookup_gradient_counts(ids, vocab_size):
    """How many times each row's gradient is added up for loss = W[ids].sum(): a count per token id."""
    return torch.bincount(ids.flatten(), minlength=vocab_size)


def trainable_table(vocab_size, d_model):
    """A (V, d) matrix that F.embedding can use AND that a module registers as a parameter."""
    return nn.Parameter(torch.randn(vocab_size, d_model) * 0.02)
