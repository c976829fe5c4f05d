"""Lesson 03's figures and its panel: where one example's gradient lands, and which rows learn per step.

Everything here only draws (or prepares the small trained model the panel draws from); the
experiments themselves are written out in the lesson's cells and in :mod:`lmtie_edu.lesson03.gradients`.
"""

from __future__ import annotations

import copy
import functools

import ipywidgets as widgets
import torch
from matplotlib.ticker import FuncFormatter

from lmtie_edu.kit import diagrams
from lmtie_edu.kit.diagrams import HEAD, INK, LOOKUP, SHARED, arrow, canvas, note
from lmtie_edu.kit.live_figure import LiveFigure
from lmtie_edu.kit.panels import PanelResult, TiePanel
from lmtie_edu.kit.plotting import new_figure
from lmtie_edu.shared.language import N_, tr
from lmtie_edu.shared.models import TinyLM
from lmtie_edu.shared.seeding import seeded
from lmtie_edu.shared.toy_corpus import BOS, EOS, ZipfCorpus, zipf_corpus
from lmtie_edu.shared.training import train
from lmtie_edu.shared.validation import check_bool, check_token_ids, plain_number

from .gradients import gradient_parts, rows_touched
from .heatmap_figures import MAX_ENTRIES, MAX_MATRICES, GradientHeatmaps, plot_gradient_heatmaps

__all__ = ["MAX_ENTRIES", "MAX_MATRICES", "PANEL_D", "PANEL_STEPS", "PANEL_VOCAB", "decomposition_figure",
           "decomposition_panel", "demo_model", "draw_gradient_parts", "plot_gradient_heatmaps",
           "update_frequency_figure"]

PANEL_VOCAB, PANEL_D, PANEL_STEPS = 16, 8, 150   # the panel's model: V, d and its Adam steps


def demo_model() -> TinyLM:
    """The panel's model: a tied TinyLM (V=16, d=8) trained PANEL_STEPS (150) Adam steps on a Zipf corpus, so its
    softmax is not flat. Seeded inside (the learner's random state is left alone). Trained once; each call
    returns a copy of its own (still tied), so changing it changes neither the next call's model nor the panel."""
    return copy.deepcopy(_trained_demo())


@functools.lru_cache(maxsize=1)
def _trained_demo() -> TinyLM:
    with seeded(0):
        model = TinyLM(PANEL_VOCAB, PANEL_D, context=2, tie=True)
    corpus = zipf_corpus(400, PANEL_VOCAB, seed=1)
    train(model, corpus.inputs, corpus.targets, steps=PANEL_STEPS, batch_size=32, lr=1e-2, seed=0, show_progress=False)
    return model


def draw_gradient_parts():
    """The idea as a picture (V = 8, d = 4, no model): the gradient of the shared matrix arrives from both ends.
    Only the rows looked up (tokens 2, 5) get a lookup part; every row gets a head part (p_j - y_j) h, the
    target's (token 6) the largest; W.grad is their sum."""
    fig, ax = canvas(width=32, height=12.5, inches_per_cell=0.3)
    looked_up, target, rows, cols, y, faint = (2, 5), 6, 8, 4, 2.5, "#f5c6c6"   # faint: a small head part
    lookup = diagrams.matrix(ax, 6, y, rows, cols, name=tr("lookup part"), highlight={r: LOOKUP for r in looked_up})
    total = diagrams.matrix(ax, 14, y, rows, cols, name="W.grad", fill=faint,
                            highlight={**{r: SHARED for r in looked_up}, target: HEAD})
    head = diagrams.matrix(ax, 22, y, rows, cols, name=tr("head part"), fill=faint, highlight={target: HEAD})
    note(ax, 0.2, lookup.row_y(3.5), tr("input end:\nthe tokens\nlooked up"), color=LOOKUP)
    for r in looked_up:
        arrow(ax, (3.9, lookup.row_y(r)), lookup.row_start(r), tr("token {r}", r=r), color=LOOKUP, text_at=0.0,
              offset=(0.0, 0.12), fontsize=7.5, ha="left")
    note(ax, 28.0, head.row_y(3.5), tr("output end:\n(pⱼ − yⱼ)·h\nfor every j"), color=HEAD)
    for r in range(rows):
        arrow(ax, (27.6, head.row_y(r)), head.row_end(r), tr("target {r}", r=r) if r == target else "", color=HEAD,
              text_at=1.0, offset=(1.7, -0.12), fontsize=7.5, va="top", ha="left")
        for box in (lookup, head):                         # token ids (rows 2, 5 of the lookup part: the arrows)
            if box is head or r not in looked_up:
                note(ax, box.x - 0.25, box.row_y(r), str(r), ha="right", fontsize=7, color="0.45")
    for start, end in (((lookup.x + cols + 0.2, 6.5), (total.x - 0.2, 6.5)),
                       ((head.x - 0.7, 6.5), (total.x + cols + 0.2, 6.5))):
        arrow(ax, start, end, "+", color=INK, fontsize=13)
    for box, text, colour in ((lookup, N_("rows 2 and 5 only;\nthe rest exactly 0"), LOOKUP),
                              (total, N_("one .grad: the sum\n(rows 2, 5 get both)"), SHARED),
                              (head, N_("every row;\ntarget 6 the largest"), HEAD)):
        note(ax, box.x + cols / 2, 1.6, tr(text), ha="center", color=colour, fontsize=8.5)
    return fig


def update_frequency_figure(corpus: ZipfCorpus, untied_input, untied_output, tied):
    """Share of steps in which each row received a gradient, tokens ranked by how often they occur.

    Each argument after ``corpus`` is a (V,) tensor of step counts ÷ steps. The head line and the
    tied line are both 1.0 everywhere: they are drawn one over the other in contrasting styles.
    """
    if not isinstance(corpus, ZipfCorpus):
        raise TypeError(tr("corpus must be a ZipfCorpus (from zipf_corpus); got {type}", type=type(corpus).__name__))
    lines = {N_("untied: input rows (embedding.weight)"): untied_input,
             N_("untied: output rows (head.weight)"): untied_output,
             N_("tied: the shared rows"): tied}
    legend = {"tied: the shared rows": N_("tied: the shared rows — the same 1.0 as the head line")}
    for label, fraction in lines.items():
        what, size = tr(label), corpus.vocab_size
        if not isinstance(fraction, torch.Tensor):
            raise TypeError(tr("{what}: expected a tensor of shape ({size},); got {type}", what=what, size=size,
                               type=type(fraction).__name__))
        if fraction.is_meta or fraction.shape != (corpus.vocab_size,):
            raise ValueError(tr("{what}: expected a tensor of shape ({size},) with values; got {shape}{meta}",
                                what=what, size=size, shape=tuple(fraction.shape),
                                meta=tr(" on the meta device") if fraction.is_meta else ""))
        if fraction.is_complex():
            raise TypeError(tr("{what}: shares of steps must be real numbers; got dtype {dtype}", what=what,
                               dtype=fraction.dtype))
        if not bool(((fraction >= 0) & (fraction <= 1)).all()):
            raise ValueError(tr("{what}: shares of steps must lie in [0, 1] (no NaN)", what=what))
    lines = {label: fraction.detach() for label, fraction in lines.items()}
    untied_input = lines["untied: input rows (embedding.weight)"]
    order = torch.argsort((corpus.as_input + corpus.as_target).double(), descending=True, stable=True)
    ranks = torch.arange(1, len(order) + 1).numpy()
    fig, ax = new_figure(size=(8.6, 4.2), margins=dict(left=0.1, right=0.98, bottom=0.13, top=0.87))
    styles = [dict(color="tab:blue", linewidth=1.6),
              dict(color="tab:orange", linewidth=6, alpha=0.45),
              dict(color="black", linewidth=1.3, linestyle=(0, (4, 3)), marker="o", markersize=2.5, markevery=4)]
    for (label, fraction), style in zip(lines.items(), styles, strict=True):
        ax.plot(ranks, fraction.double()[order].numpy(), label=tr(legend.get(label, label)), **style)
    position = {int(token): rank for rank, token in enumerate(order.tolist(), start=1)}
    ax.annotate(tr("<eos>: only ever a target,\nits input row gets no gradient"), xy=(position[EOS], 0.0),
                xytext=(1.05, 0.12), fontsize=8, arrowprops=dict(arrowstyle="->", color="0.3"),
                bbox=dict(boxstyle="round", facecolor="white", edgecolor="none", alpha=0.85))
    ax.annotate(tr("<bos>: in every sentence's input"), xy=(position[BOS], float(untied_input[BOS])),
                xytext=(1.05, 0.6), fontsize=8, arrowprops=dict(arrowstyle="->", color="0.3"),
                bbox=dict(boxstyle="round", facecolor="white", edgecolor="none", alpha=0.85))
    ax.set_xscale("log")
    ax.xaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))
    ax.set_xlabel(tr("token, by frequency rank (1 = most frequent; log scale)"))
    ax.set_ylabel(tr("share of steps with a gradient"))
    ax.set_ylim(-0.04, 1.5)
    ax.set_yticks([0, 0.2, 0.4, 0.6, 0.8, 1.0])
    ax.legend(fontsize=8, loc="upper right", ncol=1, framealpha=0.95)
    ax.set_title(tr("Untied, a rare token's input row rarely gets a gradient;\n"
                    "every head row and every tied row gets one at every step"), fontsize=10)
    return fig


# -- the panel ---------------------------------------------------------------------------------------

TITLES = (N_("lookup path: input rows only"), N_("head path: every row"))
RECEIVED = {True: N_("embedding.grad = the sum (tied)"), False: N_("embedding.grad = lookup only")}


def _checked_example(first, second, target, tie) -> tuple[int, int, int]:
    first, second, target = (plain_number(v) for v in (first, second, target))
    for name, value in (("first", first), ("second", second), ("target", target)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(tr("{name} must be a token id (int in [0, {last}]); got {value!r}", name=name,
                               last=PANEL_VOCAB - 1, value=value))
        check_token_ids([value], PANEL_VOCAB, ranks=(1,), name=name)
    check_bool(tie, "tie")
    return first, second, target


class _Decomposition:
    """One example's figure, built once for both values of *tie*: its frame (colour range, log scale, marked
    rows) covers the tied and the untied embedding.grad, so a flip only swaps what the third axes shows."""

    def __init__(self, first: int, second: int, target: int):
        self.example = (first, second, target)
        self.parts = parts = _cached_parts(first, second, target)
        self.heatmaps = GradientHeatmaps((parts["input_part"], parts["output_part"], parts["tied"]),
                                         [*map(tr, TITLES), tr(RECEIVED[True])], inputs=(first, second), targets=(target,))
        self.live = LiveFigure(self.heatmaps.figure)
        self.live.changing(self.heatmaps.artists_of(2))

    def show(self, tie: bool) -> PanelResult:
        parts = self.parts
        received = parts["tied"] if tie else parts["input_part"]
        self.heatmaps.show(2, received, tr(RECEIVED[tie]))
        numbers = {
            N_("rows touched through the lookup"): rows_touched(parts["input_part"]),
            N_("rows touched through the head"): rows_touched(parts["output_part"]),
            N_("rows of embedding.grad non-zero"): rows_touched(received),
            N_("tied grad == lookup + head (within 1e-6)"): parts["max_abs_diff"] < 1e-6,
            N_("loss"): round(parts["loss"], 3),
        }
        return PanelResult(self.heatmaps.figure, numbers)


def decomposition_figure(first: int = 2, second: int = 3, target: int = 4, tie: bool = True) -> PanelResult:
    """One training example (context ``first, second`` → ``target``): the gradient through the lookup,
    through the head, and what the embedding matrix receives (tied: their sum; untied: lookup only)."""
    return _Decomposition(*_checked_example(first, second, target, tie)).show(tie)


def _live_decomposition():
    """A panel's compute: the figure is rebuilt only when the example changes; a flip of *tie* redraws the
    third axes alone over the drawn rest (a LiveFigure). One figure per panel, showing its current state."""
    current: list[_Decomposition] = []

    def compute(first: int, second: int, target: int, tie: bool) -> PanelResult:
        example = _checked_example(first, second, target, tie)
        if not current or current[0].example != example:
            current[:] = [_Decomposition(*example)]
        result = current[0].show(tie)
        result.png = current[0].live.png()
        return result

    return compute


@functools.lru_cache(maxsize=256)
def _cached_parts(first: int, second: int, target: int) -> dict:
    return gradient_parts(_trained_demo(), torch.tensor([[first, second]]), torch.tensor([target]))


def decomposition_panel(first: int = 2, second: int = 3, target: int = 4, tie: bool = True) -> TiePanel:
    """Widget: pick two input tokens and a target, toggle tying, watch where the gradient lands."""
    first, second, target = (plain_number(v) for v in (first, second, target))
    for name, value in (("first", first), ("second", second), ("target", target)):
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < PANEL_VOCAB:
            raise ValueError(tr("{name} must be a token id in [0, {last}]; got {value!r}", name=name,
                                last=PANEL_VOCAB - 1, value=value))
    check_bool(tie, "tie")
    options = list(range(PANEL_VOCAB))
    controls = {
        name: widgets.Dropdown(options=options, value=value, description=tr(label), layout=widgets.Layout(width="150px"))
        for name, value, label in (("first", first, N_("input 1")), ("second", second, N_("input 2")),
                                   ("target", target, N_("target")))
    }
    return TiePanel(_live_decomposition(), controls=controls, tie=tie,
                    title=N_("One example's gradient on the embedding matrix, split by path"))
