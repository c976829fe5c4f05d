"""A mean ± spread over seeds that keeps a diverged run visible (used by the tables of lessons 05, 06 and 08)."""

from __future__ import annotations

import itertools
import math
import numbers

import torch

from .language import tr

MAX_VALUES = 1_000_000  # one value per seed: a lesson averages a handful; 10**8 would run for minutes


def _too_many(count: str) -> ValueError:
    return ValueError(tr("values must hold at most {limit:,} numbers (one per seed; more would take minutes); got "
                         "{count} — for many numbers use a tensor's .mean() and .std()", limit=MAX_VALUES, count=count))


def _as_floats(values) -> list[float]:
    if isinstance(values, (str, bytes)):
        raise TypeError(tr("values must be numbers (a list or a 1-D tensor); got a {type}", type=type(values).__name__))
    if isinstance(values, torch.Tensor):
        if values.is_meta:
            raise ValueError(tr("values is a meta tensor: it has a shape but no numbers to average"))
        if values.dim() > 1:
            raise ValueError(tr("values must be a 1-D tensor (one value per seed); got shape {shape}",
                                shape=tuple(values.shape)))
        if values.numel() > MAX_VALUES:
            raise _too_many(f"{values.numel():,}")
        values = values.detach().double().reshape(-1).tolist()
    try:
        values = list(itertools.islice(values, MAX_VALUES + 1))  # a generator of 10**8 values is not drawn to its end
    except TypeError:
        raise TypeError(tr("values must be an iterable of numbers; got {type}", type=type(values).__name__)) from None
    if len(values) > MAX_VALUES:
        raise _too_many(f"> {MAX_VALUES:,}")
    for value in values:
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise TypeError(tr("every value must be a real number (one per seed); got {value}", value=repr(value)))
    return [float(v) for v in values]


def mean_and_spread(values) -> tuple[float, float]:
    """Mean and sample standard deviation over seeds (spread 0 for a single value).

    A diverged run stays visible: any NaN gives ``(nan, nan)``; otherwise any ±inf gives the
    infinite mean (NaN if both signs occur) and a NaN spread.
    """
    values = _as_floats(values)
    if not values:
        raise ValueError(tr("mean_and_spread needs at least one value (one per seed); got none"))
    if any(math.isnan(v) for v in values):
        return math.nan, math.nan
    infinite = {v for v in values if math.isinf(v)}
    if infinite:   # inf + (-inf) has no mean
        return (infinite.pop() if len(infinite) == 1 else math.nan), math.nan
    try:
        mean, spread = _plain_mean_and_spread(values)
        if math.isfinite(mean) and math.isfinite(spread):
            return mean, spread
    except OverflowError:
        pass
    # a huge finite value (a run that nearly diverged: perplexity 1e304) overflowed a sum or a square: the
    # same numbers, scaled by the largest |value| (the plain path above keeps every ordinary result bit-identical)
    scale = max(abs(v) for v in values)
    mean, spread = _plain_mean_and_spread([v / scale for v in values])
    return mean * scale, spread * scale


def _plain_mean_and_spread(values: list[float]) -> tuple[float, float]:
    mean = math.fsum(values) / len(values)
    if len(values) == 1:
        return mean, 0.0
    return mean, math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (len(values) - 1))
