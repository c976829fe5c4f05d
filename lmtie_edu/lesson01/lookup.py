"""Lesson 01 — an embedding is a row lookup; its gradient touches only the rows looked up.

The lesson writes the idea out in its cells; this module keeps the input checks, the one-step
gradient that the panel redraws (the very code of the lesson's cell) and the panel itself.
"""

from __future__ import annotations

import ipywidgets as widgets
import torch
import torch.nn.functional as F
from torch import nn

from lmtie_edu.kit.live_figure import LiveFigure
from lmtie_edu.kit.panels import PanelResult, TiePanel
from lmtie_edu.kit.plotting import heatmap, new_figure
from lmtie_edu.shared.gradient_rows import nonzero_rows
from lmtie_edu.shared.language import N_, tr
from lmtie_edu.shared.validation import check_bool, check_positive_int

from .checks import MAX_FIGURE_VOCAB, check_gradient_inputs, parse_ids
from .figures import draw_gradient_rows, exponent_range, gradient_exponents, row_outlines, show_rows

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


class _LookupView:
    """The panel's figure, built once and updated in place. Its colour range is the union over tied and untied
    of the ids shown, so flipping the tie changes no frame; new ids may need another range (``show`` says so)."""

    STEPS_KEPT = 8  # gradient steps kept (both tie values of the last ids typed)

    def __init__(self, vocab_size: int):
        self.vocab_size = vocab_size
        self._steps: dict[tuple, dict] = {}
        self.figure = self._left = self._right = None

    def _both_steps(self, ids: torch.Tensor) -> dict:
        key = tuple(ids.tolist())
        if key not in self._steps:
            self._steps[key] = {tie: next_token_gradient(ids, tie=tie, vocab_size=self.vocab_size)
                                for tie in (False, True)}
            while len(self._steps) > self.STEPS_KEPT:
                self._steps.pop(next(iter(self._steps)))
        return self._steps[key]

    def show(self, ids_text: str, tie: bool) -> tuple[dict, bool]:
        """Show a state; return its numbers and whether the frame (the colour range) changed."""
        ids = parse_ids(ids_text, self.vocab_size)  # every check before anything is drawn
        steps = self._both_steps(ids)
        check_bool(tie, "tie")
        out = steps[tie]
        color_range = exponent_range(*(gradient_exponents(step["grad"]) for step in steps.values()))
        frame_changed = self.figure is None or self._right.image.get_clim() != color_range
        if self.figure is None:
            self.figure, (left, right) = new_figure(1, 2, size=(8.0, 3.6))
            heatmap(left, out["weight"], title=tr("embedding W (V×d); outlined: rows looked up"),
                    xlabel=tr("dimension"), ylabel=tr("token id"))  # W is the same tied or not: only its outlines change
            self._left = row_outlines(left, *out["weight"].shape)
            self._right = draw_gradient_rows(right, out["grad"], title="", color_range=color_range)
        elif frame_changed:
            self._right.image.set_clim(*color_range)  # the colour bar follows (a new frame)
        left, right = self.figure.axes[:2]
        show_rows(self._left, out["inputs"])
        self._right.update(out["grad"], out["inputs"])
        right.set_title(tr("W.grad, tied: every row gets gradient") if tie else tr("W.grad, untied: only rows looked up"),
                        fontsize=10, y=1.0)  # a fixed place (where matplotlib puts it): a hidden title is not moved
        return {
            N_("inputs (looked up)"): str(out["inputs"]),   # the kit translates each name where it shows it
            N_("targets (predicted)"): str(out["targets"]),
            N_("rows with non-zero gradient"): len(out["rows_touched"]),
            N_("of V rows"): self.vocab_size,
            N_("loss"): out["loss"],
        }, frame_changed

    def changing(self) -> list:
        """The artists a state changes, in drawing order."""
        left, right = self.figure.axes[:2]
        return [*self._left, *left.spines.values(), *self._right.artists, right.title]


def lookup_figure(ids_text: str = "2, 5, 5, 9", tie: bool = False, vocab_size: int = 12) -> PanelResult:
    """The lesson 01 panel: the rows looked up, and the rows the gradient reaches (tied or untied)."""
    vocab_size = check_positive_int(vocab_size, "vocab_size")
    if vocab_size > MAX_FIGURE_VOCAB:
        raise ValueError(tr("vocab_size must be at most {limit} here: the figure draws one row per token, "
                            "and more rows are not readable; got {vocab_size:,} (next_token_gradient takes larger "
                            "ones)", limit=MAX_FIGURE_VOCAB, vocab_size=vocab_size))
    view = _LookupView(vocab_size)
    numbers, _ = view.show(ids_text, tie)
    return PanelResult(view.figure, numbers)


def lookup_panel(ids_text: str = "2, 5, 5, 9", tie: bool = False) -> TiePanel:
    """Widget: type token ids, toggle tying, watch which rows of W receive gradient.

    The figure is drawn whole once; a toggle redraws only what changes (a LiveFigure). New ids whose gradients
    need another colour range redraw the whole figure (``forget_background``)."""
    view, live = _LookupView(12), []

    def compute(tie, ids):
        numbers, frame_changed = view.show(ids, tie)
        if not live:
            live.append(LiveFigure(view.figure))
            live[0].changing(view.changing())
        elif frame_changed:
            live[0].forget_background()
        return PanelResult(view.figure, numbers, png=live[0].png())

    ids = widgets.Text(description=tr("token ids"), continuous_update=False)  # its text: `values=` below
    return TiePanel(compute, controls={"ids": ids}, tie=tie, values={"ids": ids_text},
                    title=N_("Which rows of the embedding does one training step touch?"))  # the kit translates it
