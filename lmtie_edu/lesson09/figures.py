"""Lesson 09's figures: where the rows of the vocabulary matrix go (§2), and the cycle panel (§5)."""

from __future__ import annotations

import ipywidgets as widgets
import numpy as np
import torch

from lmtie_edu.kit.live_figure import LiveFigure
from lmtie_edu.kit.panels import PanelResult, TiePanel
from lmtie_edu.kit.plotting import new_figure
from lmtie_edu.shared.language import N_, tr
from lmtie_edu.shared.validation import check_bool

from .cycle import N_TOKENS, train_cycle

MATRICES = (N_("untied: lookup table E"), N_("untied: head O"), N_("tied: the one matrix"))


def geometry_figure(untied, tied, counts: torch.Tensor):
    """Row length against the word's count in the training text, for the three matrices (untied lookup, untied
    head, tied) of two trained models; rows past ``len(counts)`` are ids the text never uses, drawn at the left
    edge (count 0, shown at ½ on the log axis). Rows 0 and 1 (<unk>, <eos>) are left out."""
    for model, tie in ((untied, False), (tied, True)):
        if not isinstance(model, torch.nn.Module) or not hasattr(model, "embedding") or not hasattr(model, "head"):
            raise TypeError(tr("untied and tied must be trained models with .embedding and .head; got {kind}",
                               kind=type(model).__name__))
        if (model.head.weight is model.embedding.weight) is not tie:
            raise ValueError(tr("the first model must be untied and the second tied"))
    if untied.head.weight.shape != tied.head.weight.shape:
        raise ValueError(tr("the two models must have vocabulary matrices of the same shape (the same words and "
                            "unused ids); got {untied} untied and {tied} tied",
                            untied=tuple(untied.head.weight.shape), tied=tuple(tied.head.weight.shape)))
    if not isinstance(counts, torch.Tensor) or counts.dim() != 1 or not 2 < len(counts) < len(untied.head.weight):
        raise ValueError(tr("counts must be the training counts of the words (torch.bincount of the training ids, "
                            "fewer entries than the matrix has rows); got {got}",
                            got=tuple(counts.shape) if isinstance(counts, torch.Tensor) else type(counts).__name__))
    matrices = [untied.embedding.weight, untied.head.weight, tied.head.weight]
    norms = [m.detach()[2:].norm(dim=1).double().numpy() for m in matrices]
    reserved = len(untied.head.weight) - len(counts)
    x = np.concatenate([counts[2:].double().numpy(), np.full(reserved, 0.5)])
    never = np.arange(len(x)) >= len(counts) - 2
    fig, axes = new_figure(1, 3, size=(10.5, 3.3), layout="constrained")
    top = 1.1 * max(n.max() for n in norms)
    for ax, title, values in zip(axes, MATRICES, norms, strict=True):
        ax.scatter(x[~never], values[~never], s=5, alpha=0.5, color="tab:blue", label=tr("words of the text"))
        ax.scatter(x[never], values[never], s=8, color="tab:red", marker="x", label=tr("never-seen ids (at ½)"))
        ax.set_xscale("log")
        ax.set_ylim(0, top)
        ax.set_title(tr(title), fontsize=10)
        ax.set_xlabel(tr("count in the training text"))
    axes[0].set_ylabel(tr("length of the row"))
    axes[0].legend(fontsize=8, loc="upper right")
    return fig


# -- §5: the cycle panel --------------------------------------------------------------------------------------
def _score_name(tie: bool, between: bool) -> str:
    return {(True, False): tr("tied: E Eᵀ (symmetric)"), (False, False): tr("untied: E Oᵀ"),
            (True, True): tr("tied, M between: E M Eᵀ"), (False, True): tr("untied, M between: E M Oᵀ")}[tie, between]


class _CycleFigure:
    """All four scores trained once; a toggle swaps the probabilities shown (no training, no full redraw)."""

    def __init__(self):
        self.runs = {(tie, between): train_cycle(tie, between) for tie in (True, False) for between in (False, True)}
        self.figure, (left, right) = new_figure(1, 2, size=(9.0, 3.6), margins={"left": 0.07, "right": 0.98,
                                                                                 "bottom": 0.16, "wspace": 0.35})
        self.image = left.imshow(np.zeros((N_TOKENS, N_TOKENS)), cmap="viridis", vmin=0, vmax=1,
                                 interpolation="nearest")
        self.figure.colorbar(self.image, ax=left, shrink=0.85, label=tr("probability"))
        left.set_xlabel(tr("next token j"))
        left.set_ylabel(tr("current token i"))
        left.set_xticks(range(N_TOKENS))
        left.set_yticks(range(N_TOKENS))
        left.tick_params(labelsize=7)
        self.title = left.set_title(" ", fontsize=10, y=1.0)
        names = [tr("next (i+1)"), tr("previous (i-1)"), tr("itself (i)")]
        self.bars = right.bar(names, [0, 0, 0], color=["tab:green", "tab:red", "tab:purple"])
        right.set_ylim(0, 1.05)
        right.set_ylabel(tr("mean probability"))
        right.set_title(tr("Where the probability goes"), fontsize=10)
        right.tick_params(axis="x", labelsize=8)
        self.live = LiveFigure(self.figure)
        self.live.changing(self.image, self.title, list(self.bars))

    def show(self, tie: bool, between: bool) -> PanelResult:
        run = self.runs[tie, between]
        self.image.set_data(run["P"].numpy())
        self.title.set_text(_score_name(tie, between))
        for bar, key in zip(self.bars, ("next", "previous", "same"), strict=True):
            bar.set_height(run[key])
        numbers = {N_("mean probability of the next token"): round(run["next"], 2),
                   N_("mean probability of the previous token"): round(run["previous"], 2),
                   N_("mean probability of the token itself"): round(run["same"], 2)}
        return PanelResult(self.figure, numbers, png=self.live.png())


def cycle_panel(tie: bool = True, between: bool = False) -> TiePanel:
    """Widget: the cycle learned by a tied or untied score, with or without a matrix M between."""
    tie, between = check_bool(tie, "tie"), check_bool(between, "between")
    shown = _CycleFigure()
    between_control = widgets.Checkbox(value=between, description=tr("a matrix M between"), indent=False)

    def compute(tie, between):
        return shown.show(check_bool(tie, "tie"), check_bool(between, "between"))

    return TiePanel(compute, controls={"between": between_control}, tie=tie,
                    title=N_("A cycle of 12 tokens: can the score follow it one way only?"))
