"""Lesson 01 — an embedding is a row lookup; its gradient touches only the rows looked up."""

from __future__ import annotations

import ipywidgets as widgets
import torch
import torch.nn.functional as F

from .plotting import heatmap, new_figure
from .validation import check_matrix, check_positive_int, check_token_ids
from .widgets import PanelResult, TiePanel


def one_hot(ids, vocab_size: int) -> torch.Tensor:
    """One-hot rows as floats, shape ``ids.shape + (vocab_size,)`` (checked ids)."""
    ids = check_token_ids(ids, vocab_size, ranks=(0, 1, 2))
    return F.one_hot(ids, vocab_size).float()


def lookup(weight: torch.Tensor, ids) -> torch.Tensor:
    """``F.embedding`` with the checks torch does not explain: integer ids inside the vocabulary."""
    check_matrix(weight, "weight")
    return F.embedding(check_token_ids(ids, weight.shape[0]), weight)


def nonzero_rows(grad: torch.Tensor) -> list[int]:
    """Indices of the rows of a gradient that are not all zero."""
    return grad.abs().sum(dim=1).nonzero().flatten().tolist()


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


def demo_matrices(vocab_size: int = 12, d_model: int = 6, seed: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    """A small embedding matrix and an independent output matrix, both (V, d), from one seed."""
    vocab_size = check_positive_int(vocab_size, "vocab_size")
    d_model = check_positive_int(d_model, "d_model")
    generator = torch.Generator().manual_seed(seed)
    embedding = torch.randn(vocab_size, d_model, generator=generator) * 0.5
    head = torch.randn(vocab_size, d_model, generator=generator) * 0.5
    return embedding, head


def next_token_gradient(ids, *, tie: bool, vocab_size: int = 12, d_model: int = 6, seed: int = 0) -> dict:
    """Gradient of a one-layer next-token loss on the embedding matrix, tied or not.

    Each input token ``ids[t]`` is looked up (``h = W[ids[t]]``) and scored against every token
    by the head (``logits = h @ W_out.T``, ``W_out = W`` when tied); the loss is the cross-entropy
    of predicting ``ids[t + 1]``. Returns the matrices, the gradient and which rows it touches.
    """
    embedding, head = demo_matrices(vocab_size, d_model, seed)
    ids = check_token_ids(ids, vocab_size, ranks=(1,))
    if ids.numel() < 2:
        raise ValueError(f"need at least 2 token ids (an input and the next token to predict); got {ids.tolist()}")
    weight = embedding.clone().requires_grad_(True)
    head_weight = weight if tie else head.clone().requires_grad_(True)
    inputs, targets = ids[:-1], ids[1:]
    logits = F.embedding(inputs, weight) @ head_weight.T
    loss = F.cross_entropy(logits, targets, reduction="sum")
    loss.backward()
    loss = loss.detach()
    return {
        "weight": weight.detach(),
        "grad": weight.grad,
        "inputs": inputs.tolist(),
        "targets": targets.tolist(),
        "loss": loss.item(),
        "rows_touched": nonzero_rows(weight.grad),
    }


def lookup_figure(ids_text: str = "2, 5, 5, 9", tie: bool = False, vocab_size: int = 12) -> PanelResult:
    """The lesson 01 panel: the rows looked up, and the rows the gradient reaches (tied or untied)."""
    ids = parse_ids(ids_text, vocab_size)
    out = next_token_gradient(ids, tie=tie, vocab_size=vocab_size)
    fig, (left, right) = new_figure(1, 2, size=(8.0, 3.6))
    heatmap(left, out["weight"], title="embedding W (V×d); outlined: rows looked up", xlabel="dimension",
            ylabel="token id", highlight_rows=out["inputs"])
    heatmap(right, out["grad"], title=("W.grad, tied: input + output paths" if tie else "W.grad, untied: lookup only"),
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
    ids = widgets.Text(value=ids_text, description="token ids", continuous_update=False)
    return TiePanel(lambda tie, ids: lookup_figure(ids, tie), controls={"ids": ids}, tie=tie,
                    title="Which rows of the embedding does one training step touch?")


def benchmarks():
    """Redraw timings for `make bench` (see lmtie_edu.bench)."""
    from .bench import toggle_benchmark

    return [toggle_benchmark("01 lookup panel: tie toggle", lookup_panel)]
