"""Lesson 04's panel: where the parameters of a GPT-style model are, tied or untied, redrawn in place.

The counting is :mod:`lmtie_edu.lesson04.counts` (the lesson's own cell); this module only draws it.
"""

from __future__ import annotations

from collections import OrderedDict

import ipywidgets as widgets

from lmtie_edu.kit.live_figure import LiveFigure
from lmtie_edu.kit.panels import PanelResult, TiePanel
from lmtie_edu.kit.plotting import new_figure
from lmtie_edu.shared.language import N_, tr
from lmtie_edu.shared.validation import check_bool

from .counts import d_ff_from_ratio, gpt_parameter_breakdown

FIGURES_KEPT = 8  # the panel's figures, one per model shape recently shown


PART_COLOURS = {N_("token embedding"): "#4C72B0", N_("output head"): "#DD8452", N_("position embedding"): "#8172B3",
                N_("attention"): "#55A868", N_("MLP"): "#C44E52", N_("layer norms"): "#937860"}


class _BreakdownFigure:
    """The panel's figure for one model shape (V, d, layers, MLP ratio); see :func:`breakdown_figure`.

    Everything but the output-head bar, the outlines of the right plot's stacked bars and the left title is
    the same tied and untied: the frame (the left limits hold the untied head bar, as long as the token
    embedding) is drawn once, and :attr:`live` redraws only what *tie* changes."""

    def __init__(self, vocab_size, d_model, n_layers, mlp_ratio):
        self.d_ff = d_ff_from_ratio(d_model, mlp_ratio)
        self.parts = {tie: gpt_parameter_breakdown(vocab_size, d_model, n_layers, d_ff=self.d_ff, tie=tie)
                      for tie in (True, False)}
        self.totals = {tie: sum(parts.values()) for tie, parts in self.parts.items()}
        self.saving = vocab_size * d_model
        self.figure, (left, right) = new_figure(1, 2, size=(9.0, 3.4),
                                                margins=dict(left=0.19, right=0.97, wspace=0.32))
        untied = self.parts[False]
        names = list(untied)
        bars = left.barh([tr(n) for n in names], [untied[n] / 1e6 for n in names], color=[PART_COLOURS[n] for n in names])
        self.head = bars[names.index("output head")]
        left.invert_yaxis()
        left.set_xlabel(tr("parameters (millions)"))
        # y=1.0 fixes the title's place (a changing title placed automatically would move: see LiveFigure)
        left.set_title("", fontsize=10, y=1.0)
        self.stacks = {}  # tie → the segments of its stacked bar (row 0 tied, row 1 untied)
        for row, tie in enumerate((True, False)):
            start, self.stacks[tie] = 0.0, []
            for name in names:
                value = self.parts[tie][name] / 1e6
                self.stacks[tie] += right.barh(row, value, left=start, color=PART_COLOURS[name], edgecolor="none",
                                               linewidth=0.8)
                start += value
            right.annotate(f"{start:,.1f}M", (start, row), textcoords="offset points", xytext=(3, -3), fontsize=8)
        right.set_xlim(0, 1.22 * self.totals[False] / 1e6)
        right.set_yticks([0, 1], [tr("tied"), tr("untied")])
        right.invert_yaxis()
        right.set_xlabel(tr("total parameters (millions)"))
        right.set_title(tr("V·d = {saving:.1f}M = {share:.2f}% of the tied total", saving=self.saving / 1e6,
                           share=100 * self.saving / self.totals[True]), fontsize=10)
        self.live = LiveFigure(self.figure)
        # the bars, then the spines they start on (a spine is drawn over the bars, as in a full drawing)
        self.live.changing(self.head, self.stacks[True], self.stacks[False], left.spines["left"],
                           right.spines["left"], left.title)

    def show(self, tie: bool) -> dict:
        """Show the setting ``tie``: its head bar, its stacked bar outlined, its title; returns its numbers."""
        parts = self.parts[check_bool(tie, "tie")]
        self.head.set_width(parts["output head"] / 1e6)
        for stack_tie, segments in self.stacks.items():
            for segment in segments:  # outline the bar of the current setting
                segment.set_edgecolor("black" if stack_tie == tie else "none")
        self.figure.axes[0].title.set_text(tr("tied: the head adds nothing") if tie
                                           else tr("untied: the head is a second V×d matrix"))
        tied_total, untied_total, saving = self.totals[True], self.totals[False], self.saving
        return {
            N_("tie"): tie,
            "d_ff": self.d_ff,
            N_("total (this setting)"): sum(parts.values()),
            N_("tied total"): tied_total,
            N_("untied total"): untied_total,
            N_("saved by tying (V·d)"): saving,
            N_("saved, % of tied total"): round(100 * saving / tied_total, 3),
            N_("saved, % of untied total"): round(100 * saving / untied_total, 3),
        }


def breakdown_figure(tie: bool = True, vocab_size: int = 50_257, d_model: int = 768, n_layers: int = 12,
                     mlp_ratio: float = 4.0) -> PanelResult:
    """The lesson 04 panel: the parameter breakdown of a GPT-style model, tied or untied."""
    shown = _BreakdownFigure(vocab_size, d_model, n_layers, mlp_ratio)
    return PanelResult(shown.figure, shown.show(tie))


def breakdown_panel(tie: bool = True) -> TiePanel:
    """Widget: sliders for V, d, layers and MLP ratio of a GPT-style model, plus the tie toggle.

    Each model shape has its own figure, drawn in full the first time it is shown; a toggle of *tie* then
    redraws only the head bar, the outlines and the left title."""
    style = {"description_width": "initial"}
    controls = {
        "vocab_size": widgets.IntSlider(50_257, min=1_000, max=262_144, step=1, description="V",
                                        continuous_update=False, style=style),
        "d_model": widgets.IntSlider(768, min=64, max=16_384, step=64, description="d",
                                     continuous_update=False, style=style),
        "n_layers": widgets.IntSlider(12, min=1, max=128, description=tr("layers"), continuous_update=False,
                                      style=style),
        "mlp_ratio": widgets.FloatSlider(4.0, min=1.0, max=8.0, step=0.25, description=tr("MLP ratio"),
                                         continuous_update=False, style=style),
    }
    figures: OrderedDict = OrderedDict()  # (V, d, layers, MLP ratio) → _BreakdownFigure, the few last shown

    def compute(tie, vocab_size, d_model, n_layers, mlp_ratio):
        shape = (vocab_size, d_model, n_layers, mlp_ratio)
        if shape not in figures:
            figures[shape] = _BreakdownFigure(*shape)
            while len(figures) > FIGURES_KEPT:
                figures.popitem(last=False)
        figures.move_to_end(shape)
        shown = figures[shape]
        numbers = shown.show(tie)
        return PanelResult(shown.figure, numbers, png=shown.live.png())

    return TiePanel(compute, controls=controls, tie=tie,
                    title=N_("Where the parameters of a GPT-style model are, tied or untied"))
