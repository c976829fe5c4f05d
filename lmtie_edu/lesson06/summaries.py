"""Lesson 06 summaries: a mean ± spread over seeds, and perplexity from a mean cross-entropy.

The experiment itself (models, training loop, grid, tables) is written out in the lesson's cells.
These two helpers only make the tables honest: a diverged run (inf or NaN loss) is not averaged
away, and an overflow shows as ``inf`` instead of an ``OverflowError``.
"""

from __future__ import annotations

import math
import numbers

import torch


def _as_floats(values) -> list[float]:
    if isinstance(values, (str, bytes)):
        raise TypeError(f"values must be numbers (a list or a 1-D tensor); got a {type(values).__name__}")
    if isinstance(values, torch.Tensor):
        if values.is_meta:
            raise ValueError("values is a meta tensor: it has a shape but no numbers to average")
        if values.dim() > 1:
            raise ValueError(f"values must be a 1-D tensor (one value per seed); got shape {tuple(values.shape)}")
        values = values.detach().double().reshape(-1).tolist()
    try:
        values = list(values)
    except TypeError:
        raise TypeError(f"values must be an iterable of numbers; got {type(values).__name__}") from None
    for value in values:
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise TypeError(f"every value must be a real number (one per seed); got {value!r}")
    return [float(v) for v in values]


def mean_and_spread(values) -> tuple[float, float]:
    """Mean and sample standard deviation over seeds (spread 0 for a single value).

    A diverged run stays visible: any NaN gives ``(nan, nan)``; otherwise any ±inf gives the
    infinite mean (NaN if both signs occur) and a NaN spread.
    """
    values = _as_floats(values)
    if not values:
        raise ValueError("mean_and_spread needs at least one value (one per seed); got none")
    if any(math.isnan(v) for v in values):
        return math.nan, math.nan
    infinite = {v for v in values if math.isinf(v)}
    if infinite:   # inf + (-inf) has no mean
        return (infinite.pop() if len(infinite) == 1 else math.nan), math.nan
    mean = math.fsum(values) / len(values)
    if len(values) == 1:
        return mean, 0.0
    return mean, math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (len(values) - 1))


def perplexity(mean_cross_entropy) -> float:
    """Perplexity = exp(mean cross-entropy in nats per token); ``inf`` when that overflows."""
    if isinstance(mean_cross_entropy, torch.Tensor) and mean_cross_entropy.numel() == 1 \
            and not mean_cross_entropy.is_meta:
        mean_cross_entropy = mean_cross_entropy.item()
    if isinstance(mean_cross_entropy, bool) or not isinstance(mean_cross_entropy, numbers.Real):
        raise TypeError(f"mean_cross_entropy must be a number (nats per token); got {mean_cross_entropy!r}")
    if not mean_cross_entropy >= 0:
        raise ValueError(f"mean cross-entropy must be a number >= 0 nats; got {mean_cross_entropy!r}")
    return math.exp(mean_cross_entropy) if mean_cross_entropy < 709 else math.inf
