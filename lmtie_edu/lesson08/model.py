"""Lesson 08's decoder-only Transformer, the package copy of the classes the lesson writes in its cells.

The lesson builds the model in plain sight; the exercise checks, the panel and the tests need the same
classes without running the notebook. ``tests/lesson08`` keeps each class identical to its cell
(comments and docstrings may differ, code may not).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn


class CausalSelfAttention(nn.Module):
    def __init__(self, d_model: int, n_heads: int):
        super().__init__()
        self.n_heads = n_heads
        self.qkv = nn.Linear(d_model, 3 * d_model)     # queries, keys and values in one matrix
        self.proj = nn.Linear(d_model, d_model)

    def forward(self, x):
        B, T, d = x.shape
        q, k, v = self.qkv(x).split(d, dim=2)
        q, k, v = (t.view(B, T, self.n_heads, d // self.n_heads).transpose(1, 2) for t in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)   # position t sees positions 0..t
        return self.proj(y.transpose(1, 2).reshape(B, T, d))


class Block(nn.Module):
    def __init__(self, d_model: int, n_heads: int):
        super().__init__()
        self.norm1 = nn.LayerNorm(d_model)
        self.attn = CausalSelfAttention(d_model, n_heads)
        self.norm2 = nn.LayerNorm(d_model)
        self.mlp = nn.Sequential(nn.Linear(d_model, 4 * d_model), nn.GELU(), nn.Linear(4 * d_model, d_model))

    def forward(self, x):
        x = x + self.attn(self.norm1(x))      # pre-norm: normalise, transform, add to the residual stream
        return x + self.mlp(self.norm2(x))


class TinyGPT(nn.Module):
    def __init__(self, vocab_size: int, d_model: int, n_layers: int, n_heads: int, context: int, *,
                 tie: bool = True, init_std: float = 0.02, scale_embedding: bool = False):
        super().__init__()
        self.scale = d_model ** 0.5 if scale_embedding else 1.0
        self.embedding = nn.Embedding(vocab_size, d_model)
        self.positions = nn.Embedding(context, d_model)            # learned positions, one row per place
        self.blocks = nn.ModuleList(Block(d_model, n_heads) for _ in range(n_layers))
        self.norm = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size, bias=False)
        for module in self.modules():                              # GPT-2's initialisation
            if isinstance(module, nn.Linear | nn.Embedding):
                std = init_std if module is self.embedding else 0.02
                nn.init.normal_(module.weight, mean=0.0, std=std)
            if isinstance(module, nn.Linear) and module.bias is not None:
                nn.init.zeros_(module.bias)
        if tie:
            self.head.weight = self.embedding.weight

    def forward(self, ids):
        positions = self.positions(torch.arange(ids.shape[1]))
        x = self.embedding(ids) * self.scale + positions
        for block in self.blocks:
            x = block(x)
        return self.head(self.norm(x))        # logits, (batch, T, V)
