"""Lesson 06 summaries: a mean ± spread over seeds, and perplexity from a mean cross-entropy.

The experiment itself (models, training loop, grid, tables) is written out in the lesson's cells.
These two helpers only make the tables honest: a diverged run (inf or NaN loss) is not averaged
away, and an overflow shows as ``inf`` instead of an ``OverflowError``.
"""

from __future__ import annotations

import math
import numbers

import torch

from lmtie_edu.shared.language import tr
from lmtie_edu.shared.spread import mean_and_spread

__all__ = ["mean_and_spread", "perplexity"]


def perplexity(mean_cross_entropy) -> float:
    """Perplexity = exp(mean cross-entropy in nats per token); ``inf`` when that overflows."""
    if isinstance(mean_cross_entropy, torch.Tensor) and mean_cross_entropy.numel() == 1 \
            and not mean_cross_entropy.is_meta:
        mean_cross_entropy = mean_cross_entropy.item()
    if isinstance(mean_cross_entropy, bool) or not isinstance(mean_cross_entropy, numbers.Real):
        raise TypeError(tr("mean_cross_entropy must be a number (nats per token); got {value!r}",
                           value=mean_cross_entropy))
    if not mean_cross_entropy >= 0:
        raise ValueError(tr("mean cross-entropy must be a number >= 0 nats; got {value!r}", value=mean_cross_entropy))
    try:
        return math.exp(mean_cross_entropy)
    except OverflowError:  # above ≈ 709.78 nats the perplexity exceeds the largest float
        return math.inf
