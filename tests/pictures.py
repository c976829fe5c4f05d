"""Comparing rendered figures: a live panel's PNG against a full drawing of the same state."""

from __future__ import annotations

import io

import numpy as np
from PIL import Image


def pixels(png: bytes) -> np.ndarray:
    """A PNG's RGB pixels as floats (alpha dropped)."""
    return np.asarray(Image.open(io.BytesIO(bytes(png))).convert("RGB"), dtype=float)


def difference(png: bytes, other: bytes) -> float:
    """Mean absolute difference of two PNGs of the same size, in 0–255 units (0: the same picture)."""
    first, second = pixels(png), pixels(other)
    assert first.shape == second.shape, f"the pictures differ in size: {first.shape} vs {second.shape}"
    return float(np.abs(first - second).mean())
