"""Lesson 02 — logits are inner products of the hidden state with every token's row.

What the lesson leaves out of its cells: the hand-made 2-D vocabulary (in which the top-scoring token
is not the nearest vector), a hidden state from an angle and a length, and the table of everything the
head does with one hidden state. The figures and the panel are in :mod:`lmtie_edu.lesson02.figures`.
"""

from __future__ import annotations

import math
import numbers

import torch
import torch.nn.functional as F

from lmtie_edu.shared.language import tr
from lmtie_edu.shared.validation import check_matrix

#: The longest hidden state hidden_from_polar builds (the panel's slider stops at 3).
MAX_LENGTH = 1e6

TOY_LABELS = ("the", "cat", "dog", "sat", "ran", "mat", "on", "a")


def toy_vocabulary() -> tuple[list[str], torch.Tensor, torch.Tensor]:
    """Eight tokens in d = 2: labels, an embedding matrix W_emb (8, 2) and an independent W_out (8, 2).

    W_emb is hand-made: "the" is a long vector (chosen so, to make the point: a trained model need not do this), "cat" and
    "dog" are short and close together. W_out is a different matrix from a fixed seed, standing in
    for an untied head that learned its own vectors.
    """
    embedding = torch.tensor([
        [2.6, 0.4],    # the
        [0.9, 1.0],    # cat
        [1.15, 0.6],   # dog
        [-0.8, 1.1],   # sat
        [-1.0, 0.7],   # ran
        [0.2, -1.2],   # mat
        [-1.3, -0.6],  # on
        [1.6, -0.9],   # a
    ])
    generator = torch.Generator().manual_seed(7)
    head = torch.randn(len(TOY_LABELS), 2, generator=generator) * 1.2
    return list(TOY_LABELS), embedding, head


def hidden_from_polar(angle_degrees: float, length: float) -> torch.Tensor:
    """A 2-D hidden state from an angle (degrees, counter-clockwise from the x axis) and a length."""
    for name, value in (("angle_degrees", angle_degrees), ("length", length)):
        if isinstance(value, bool) or not isinstance(value, numbers.Real):      # NumPy numbers are welcome
            raise TypeError(tr("{name} must be a finite number; got {value}", name=name, value=repr(value)))
        if not math.isfinite(value):
            raise ValueError(tr("{name} must be a finite number; got {value}", name=name, value=repr(value)))
    if length < 0:
        raise ValueError(tr("length must be >= 0; got {length}", length=length))
    if length > MAX_LENGTH:
        raise ValueError(tr("length must be at most {limit:g} (beyond it the logits of a unit-size head "
                            "approach float32's range); got {length}", limit=MAX_LENGTH, length=repr(length)))
    radians = math.radians(float(angle_degrees))
    return torch.tensor([float(length) * math.cos(radians), float(length) * math.sin(radians)])


def _check_hidden(h, W) -> tuple[torch.Tensor, torch.Tensor]:
    W = check_matrix(W, "W")  # 2-D, floating, real (not meta), non-empty, finite; a sparse W as its dense form
    if not isinstance(h, torch.Tensor):
        raise TypeError(tr("h must be a torch.Tensor of shape (d,) = ({d},); got {type}", d=W.shape[1],
                           type=type(h).__name__))
    h = h.to_dense() if h.is_sparse else h
    if h.dim() != 1 or h.shape[0] != W.shape[1]:
        raise ValueError(tr("h must have shape (d,) = ({d},) to match W of shape {shape}; got {got}",
                            d=W.shape[1], shape=tuple(W.shape), got=tuple(h.shape)))
    if not h.is_floating_point():
        raise TypeError(tr("h must hold floating-point values; got dtype {dtype}", dtype=h.dtype))
    if h.is_meta or not torch.isfinite(h).all():
        raise ValueError(tr("h must hold finite real values (no NaN, inf, or meta tensor)"))
    return h.to(W.dtype), W  # a float64 h with a float32 W: compute in W's precision


def score_table(h: torch.Tensor, W: torch.Tensor) -> dict:
    """Everything the head does with one hidden state ``h`` (d,) and a matrix ``W`` (V, d).

    ``logits = W @ h`` (one inner product per row), the softmax, each row's norm, its cosine with
    ``h`` and its Euclidean distance to ``h``; ``top`` is the largest logit, ``nearest`` the closest vector.
    """
    h, W = _check_hidden(h, W)
    logits = W @ h
    if not bool(torch.isfinite(logits).all()):
        raise ValueError(tr("the logits W @ h overflow {dtype} (|h|·|w_i| is beyond its range): scale h or W down",
                            dtype=W.dtype))
    norms = W.norm(dim=1)
    distances = (W - h).norm(dim=1)
    return {
        "logits": logits,
        "probabilities": F.softmax(logits, dim=0),
        "norms": norms,
        "cosines": logits / (norms * h.norm()).clamp_min(1e-12),
        "distances": distances,
        "top": int(logits.argmax()),
        "nearest": int(distances.argmin()),
    }
