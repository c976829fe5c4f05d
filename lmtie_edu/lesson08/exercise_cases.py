"""The cases the lesson 08 exercises are checked on: small TinyGPTs, tied and untied, and a checkpoint saved
the way safetensors' save_model saves a tied one (the head's key left out)."""

from __future__ import annotations

import torch
from torch import nn

from lmtie_edu.shared.language import N_
from lmtie_edu.shared.seeding import seeded

from .model import TinyGPT


def models() -> list[tuple[str, nn.Module]]:
    with seeded(0):
        return [(N_("a tied TinyGPT (V=50, d=8, 2 blocks)"), TinyGPT(50, 8, 2, 2, 4, tie=True)),
                (N_("an untied TinyGPT (V=50, d=8, 2 blocks)"), TinyGPT(50, 8, 2, 2, 4, tie=False)),
                (N_("a tied TinyGPT (V=30, d=4, 1 block)"), TinyGPT(30, 4, 1, 1, 3, tie=True)),
                (N_("an untied TinyGPT whose head holds the embedding's values (as loading a tied checkpoint leaves "
                    "it)"), untied_with_equal_head())]


def untied_with_equal_head() -> nn.Module:
    """Two Parameters with equal values: only identity tells the Linear weight from the table."""
    model = TinyGPT(50, 8, 2, 2, 4, tie=False)
    with torch.no_grad():
        model.head.weight.copy_(model.embedding.weight)
    return model


def checkpoint() -> dict[str, torch.Tensor]:
    with seeded(1):
        source = TinyGPT(50, 8, 2, 2, 4, tie=True)
    return {key: value.clone() for key, value in source.state_dict().items() if key != "head.weight"}
