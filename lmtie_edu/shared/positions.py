"""Sinusoidal position encodings (Vaswani et al. 2017, §3.5), used by lessons 02 and 07."""

from __future__ import annotations

import math

import torch

from .language import tr
from .validation import check_memory, check_positive_int


def sinusoidal_positions(length: int, d_model: int) -> torch.Tensor:
    """The fixed position encodings of Vaswani et al. (2017): sin/cos pairs, values in [-1, 1]."""
    length = check_positive_int(length, "length")
    d_model = check_positive_int(d_model, "d_model", minimum=2)
    if d_model % 2:
        raise ValueError(tr("d_model must be even for sin/cos pairs; got {d_model}", d_model=d_model))
    check_memory(8 * length * d_model, f"sinusoidal_positions(length={length:,}, d_model={d_model:,})",  # table + sin/cos
                 tr("ask for fewer positions (a lesson needs at most a few thousand)"))
    position = torch.arange(length, dtype=torch.float32)[:, None]
    frequency = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float32) * (-math.log(10000.0) / d_model))
    table = torch.zeros(length, d_model)
    table[:, 0::2] = torch.sin(position * frequency)
    table[:, 1::2] = torch.cos(position * frequency)
    return table
