"""Lesson 01 — an embedding is a row lookup; its gradient touches only the rows looked up.

The lesson writes the idea out in its cells; this module keeps the input checks, the one-step
gradient that the panel redraws (the very code of the lesson's cell) and the panel itself.
"""

from __future__ import annotations

import ipywidgets as widgets
import torch
import torch.nn.functional as F
from torch import nn

from lmtie_edu.kit.panels import PanelResult, TiePanel
from lmtie_edu.kit.plotting import heatmap, new_figure
from lmtie_edu.shared.gradient_rows import nonzero_rows
from lmtie_edu.shared.validation import check_positive_int

from .checks import MAX_FIGURE_VOCAB, check_gradient_inputs, parse_ids
from .figures import draw_gradient_rows

__all__ = ["check_gradient_inputs", "lookup_figure", "lookup_panel", "next_token_gradient", "nonzero_rows",
           "parse_ids"]

# The same code as the lesson's cell (tests/lesson01/test_lookup.py keeps them identical).
def next_token_gradient(ids, *, tie, vocab_size=12, d_model=6, seed=0):
    """One step of a one-layer next-token model: which rows of the embedding W get a gradient?"""
    ids = check_gradient_inputs(ids, vocab_size, d_model, seed, tie)
    generator = torch.Generator().manual_seed(seed)                      # local: your seed is left alone
    W = nn.Parameter(0.5 * torch.randn(vocab_size, d_model, generator=generator))       # the embedding
    W_out = nn.Parameter(0.5 * torch.randn(vocab_size, d_model, generator=generator))   # a separate head
    if tie:
        W_out = W                                      # the tie: the head IS the embedding matrix
    inputs, targets = ids[:-1], ids[1:]                # each token predicts the next one
    logits = F.embedding(inputs, W) @ W_out.T          # look up, then score every token
    loss = F.cross_entropy(logits, targets, reduction="sum")
    loss.backward()
    return {"weight": W.detach(), "grad": W.grad, "inputs": inputs.tolist(), "targets": targets.tolist(),
            "loss": loss.item(), "rows_touched": nonzero_rows(W.grad)}


def lookup_figure(ids_text: str = "2, 5, 5, 9", tie: bool = False, vocab_size: int = 12) -> PanelResult:
    """The lesson 01 panel: the rows looked up, and the rows the gradient reaches (tied or untied)."""
    vocab_size = check_positive_int(vocab_size, "vocab_size")
    if vocab_size > MAX_FIGURE_VOCAB:
        raise ValueError(f"vocab_size must be at most {MAX_FIGURE_VOCAB} here: the figure draws one row per token, "
                         f"and more rows are not readable; got {vocab_size:,} (next_token_gradient takes larger ones)")
    ids = parse_ids(ids_text, vocab_size)
    out = next_token_gradient(ids, tie=tie, vocab_size=vocab_size)
    fig, (left, right) = new_figure(1, 2, size=(8.0, 3.6))
    heatmap(left, out["weight"], title="embedding W (V×d); outlined: rows looked up", xlabel="dimension",
            ylabel="token id", highlight_rows=out["inputs"])
    draw_gradient_rows(right, out["grad"], highlight_rows=out["inputs"],
                       title="W.grad, tied: every row gets gradient" if tie else "W.grad, untied: only rows looked up")
    return PanelResult(fig, {
        "inputs (looked up)": str(out["inputs"]),
        "targets (predicted)": str(out["targets"]),
        "rows with non-zero gradient": len(out["rows_touched"]),
        "of V rows": vocab_size,
        "loss": out["loss"],
    })


def lookup_panel(ids_text: str = "2, 5, 5, 9", tie: bool = False) -> TiePanel:
    """Widget: type token ids, toggle tying, watch which rows of W receive gradient."""
    ids = widgets.Text(description="token ids", continuous_update=False)  # its text: `values=` below
    return TiePanel(lambda tie, ids: lookup_figure(ids, tie), controls={"ids": ids}, tie=tie, values={"ids": ids_text},
                    title="Which rows of the embedding does one training step touch?")
