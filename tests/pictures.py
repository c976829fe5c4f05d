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


def assert_live_toggle_matches_full_drawing(panel, tie: bool, alone, tolerance: float) -> None:
    """A LiveFigure panel flipped to ``tie`` shows what a full drawing of that state shows: on the frame's first
    drawing, after a toggle (background pasted, only the changing artists drawn) and again after a full drawing
    of the same figure. ``alone``: the lesson's own PanelResult for that state, drawn from scratch."""
    from lmtie_edu.kit.plotting import figure_to_png

    assert difference(bytes(panel.image.value), figure_to_png(panel.result.figure)) < tolerance  # a frame's first
    panel.set(tie=not tie)
    panel.set(tie=tie)  # a toggle
    live = bytes(panel.image.value)
    assert difference(live, figure_to_png(panel.result.figure)) < tolerance
    assert difference(live, figure_to_png(alone.figure)) < tolerance
    assert panel.result.numbers == alone.numbers
    panel.set(tie=not tie)
    panel.set(tie=tie)  # after a full drawing of the same figure, the live update still holds
    assert difference(bytes(panel.image.value), live) < tolerance
