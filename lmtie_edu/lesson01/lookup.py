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
from lmtie_edu.shared.validation import check_bool, check_matrix, check_positive_int, check_token_ids

#: The one-step demo allocates two (V, d) matrices; more than this many entries is a typo, not a lesson.
MAX_DEMO_ENTRIES = 10_000_000


def nonzero_rows(grad: torch.Tensor) -> list[int]:
    """Indices of the rows of a gradient that are not all zero (a NaN/inf or meta gradient is refused)."""
    check_matrix(grad, "grad")
    return grad.abs().sum(dim=1).nonzero().flatten().tolist()


def check_gradient_inputs(ids, vocab_size: int, d_model: int, seed: int, tie: bool) -> torch.Tensor:
    """Check the arguments of :func:`next_token_gradient`; return the ids as one LongTensor sequence."""
    vocab_size = check_positive_int(vocab_size, "vocab_size")
    d_model = check_positive_int(d_model, "d_model")
    check_positive_int(seed, "seed", minimum=0)
    check_bool(tie, "tie")
    if vocab_size * d_model > MAX_DEMO_ENTRIES:
        raise ValueError(f"vocab_size × d_model must be at most {MAX_DEMO_ENTRIES:,} for this demo; "
                         f"got {vocab_size:,} × {d_model:,} = {vocab_size * d_model:,}")
    ids = check_token_ids(ids, vocab_size, ranks=(1,))
    if ids.numel() < 2:
        raise ValueError(f"need at least 2 token ids (an input and the next token to predict); got {ids.tolist()}")
    return ids


def parse_ids(text: str, vocab_size: int) -> torch.Tensor:
    """Parse ``"2, 5, 5, 9"`` (what a learner types in the widget) into checked token ids."""
    if not isinstance(text, str):
        raise TypeError(f"token ids must be typed as text like '2, 5, 5, 9'; got {text!r}")
    parts = [p for p in text.replace(",", " ").split() if p]
    if not parts:
        raise ValueError(f"type at least one token id, e.g. '2, 5, 5, 9' (ids 0..{vocab_size - 1})")
    values = []
    for part in parts:
        try:
            values.append(int(part))
        except ValueError:
            kind = "a decimal number" if part.replace(".", "", 1).lstrip("-").isdigit() else "not a number"
            raise ValueError(
                f"token ids must be whole numbers in [0, {vocab_size - 1}]; got {part!r} ({kind})"
            ) from None
    return check_token_ids(values, vocab_size, ranks=(1,))


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
    ids = parse_ids(ids_text, vocab_size)
    out = next_token_gradient(ids, tie=tie, vocab_size=vocab_size)
    fig, (left, right) = new_figure(1, 2, size=(8.0, 3.6))
    heatmap(left, out["weight"], title="embedding W (V×d); outlined: rows looked up", xlabel="dimension",
            ylabel="token id", highlight_rows=out["inputs"])
    heatmap(right, out["grad"], title=("W.grad, tied: every row gets gradient" if tie else "W.grad, untied: only rows looked up"),
            xlabel="dimension", highlight_rows=out["inputs"])
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
