"""Lesson 07 — the lesson's picture and its panel.

- ``draw_three_way_sharing``: the diagram of one matrix in three roles of an encoder–decoder (encoder
  input, decoder input, output head), drawn with ``lmtie_edu.kit.diagrams``.
- ``tying_method_panel``: share, copy, or a new Parameter after the optimiser. The lesson's cells run each
  method once and print what happens; the panel replays the same small experiment (``TinyLM(16, 8)``,
  Adam, a fixed batch), following three entries of the embedding E and of the head H over the steps.
"""

from __future__ import annotations

import functools
from collections import OrderedDict

import ipywidgets as widgets
import torch
import torch.nn.functional as F
from matplotlib.patches import Rectangle
from matplotlib.ticker import MaxNLocator
from torch import nn

from lmtie_edu.kit.diagrams import GRAD, HEAD, INK, LOOKUP, SHARED, arrow, canvas, matrix, note
from lmtie_edu.kit.live_figure import LiveFigure
from lmtie_edu.kit.panels import PanelResult, TiePanel
from lmtie_edu.kit.plotting import new_figure
from lmtie_edu.shared.language import N_, labelled_options, tr
from lmtie_edu.shared.models import TinyLM
from lmtie_edu.shared.seeding import seeded
from lmtie_edu.shared.tying import shares_parameter
from lmtie_edu.shared.validation import check_bool, check_choice, check_number, check_positive_int

from .checks import check_size
from .pitfalls import demo_data, in_optimiser

METHODS = (N_("share"), N_("copy"), N_("new Parameter after optimiser"))  # values; tr(method) is the label
# Which entries of the (V, d) matrices the panel follows: (token row, dimension).
TRACKED = ((1, 0), (4, 2), (7, 5))
FIGURES_KEPT = 8  # the panel's figures, one per (method, steps) recently shown


def draw_three_way_sharing():
    """One V × d matrix read in three roles: encoder input, decoder input (a row each) and output head (every row)."""
    fig, ax = canvas(width=30, height=13)
    box = {"boxstyle": "round,pad=0.45", "facecolor": "white", "edgecolor": INK, "linewidth": 1.2}
    note(ax, 5.5, 11.3, tr("encoder"), ha="center", fontsize=10, bbox=box)
    note(ax, 24.5, 11.3, tr("decoder"), ha="center", fontsize=10, bbox=box)
    arrow(ax, (8.2, 11.3), (21.8, 11.3), tr("encoder output"), fontsize=8.5)
    W = matrix(ax, x=13, y=2, rows=7, cols=4, fill=SHARED, highlight={1: LOOKUP, 4: LOOKUP},
               name=tr("W: one Parameter, V × d"), name_side="bottom")
    ax.add_patch(Rectangle((W.x - 0.12, W.y - 0.12), W.cols + 0.24, W.rows + 0.24, fill=False, edgecolor=HEAD,
                           linewidth=2.2))  # the head's frame: it reads every row
    arrow(ax, W.row_start(1), (5.5, 10.4), color=LOOKUP, curve=-0.25)
    note(ax, 3.2, 8.2, tr("① encoder input:\nthe row of a source token"), color=LOOKUP)
    arrow(ax, W.row_end(4), (23.3, 10.4), color=LOOKUP, curve=0.25)
    note(ax, 17.5, 9.8, tr("② decoder input:\nthe row of a target token"), color=LOOKUP)
    arrow(ax, (25.6, 10.4), (W.x + W.cols + 0.25, 3.0), color=HEAD, curve=-0.35)
    note(ax, 26.0, 6.2, tr("③ output head:\nlogits = h Wᵀ,\nevery row"), color=HEAD)
    note(ax, 0.5, 4.0, tr("gradient, in one .grad:\n∇W = ∇① + ∇② + ∇③"), color=GRAD)
    return fig


def build_with_method(method: str, *, tie: bool = True, vocab_size: int = 16, d_model: int = 8,
                      seed: int = 0, lr: float = 0.05) -> tuple[TinyLM, torch.optim.Optimizer]:
    """A TinyLM and its Adam optimiser, the head 'tied' to the embedding by ``method``.

    - ``"share"``: ``head.weight = embedding.weight`` *before* the optimiser is built — a real tie.
    - ``"copy"``: two Parameters, the head's values copied from the embedding (``copy_``) — equal
      at step 0, independent afterwards.
    - ``"new Parameter after optimiser"``: the optimiser is built first, then a *new*
      ``nn.Parameter`` is put into both modules — a real tie that the optimiser never sees.
    ``tie=False`` ignores ``method``: two independently initialised matrices (the baseline).
    """
    check_choice(method, "method", METHODS)
    check_bool(tie, "tie")
    vocab_size = check_size(vocab_size, "vocab_size", minimum=2, maximum=100_000)
    d_model = check_size(d_model, "d_model", maximum=4096)
    check_number(lr, "lr", minimum=0, strict=True)
    seed = check_positive_int(seed, "seed", minimum=0)
    with seeded(seed):  # TinyLM draws its weights from the global generator; the learner's is restored
        model = TinyLM(vocab_size, d_model, tie=tie and method == "share")
    if tie and method == "copy":
        with torch.no_grad():
            model.head.weight.copy_(model.embedding.weight)
    optimiser = torch.optim.Adam(model.parameters(), lr=lr)
    if tie and method == "new Parameter after optimiser":
        shared = nn.Parameter(model.embedding.weight.detach().clone())
        model.embedding.weight = shared
        model.head.weight = shared
    return model, optimiser


def track_tying(method: str, *, tie: bool = True, steps: int = 10, seed: int = 0) -> dict:
    """Train a few Adam steps on a fixed batch; record the tracked entries of both matrices at every step.

    Returns ``embedding`` and ``head`` ((steps + 1, len(TRACKED)) tensors: the values of the tracked
    entries), ``max_difference`` (max |E − H| over the whole matrix, per step), ``moved`` (max |E − E₀|
    per step) and whether the two matrices are one Parameter / in the optimiser.
    """
    steps = check_size(steps, "steps", maximum=1000)
    model, optimiser = build_with_method(method, tie=tie, seed=seed)
    inputs, targets = demo_data(model.vocab_size, model.context, seed=seed)
    start = model.embedding.weight.detach().clone()
    rows, cols = zip(*TRACKED, strict=True)
    emb, head, difference, moved = [], [], [], []

    def record():
        e, h = model.embedding.weight.detach(), model.head.weight.detach()
        emb.append(e[list(rows), list(cols)].clone())
        head.append(h[list(rows), list(cols)].clone())
        difference.append((e - h).abs().max().item())
        moved.append((e - start).abs().max().item())

    record()
    for _ in range(steps):
        loss = F.cross_entropy(model(inputs), targets)
        optimiser.zero_grad(set_to_none=True)
        loss.backward()
        optimiser.step()
        record()
    return {
        "embedding": torch.stack(emb), "head": torch.stack(head),
        "max_difference": difference, "moved": moved,
        "one Parameter": shares_parameter(model.embedding.weight, model.head.weight),
        "embedding in optimiser": in_optimiser(model.embedding.weight, optimiser),
        "head in optimiser": in_optimiser(model.head.weight, optimiser),
    }


@functools.lru_cache(maxsize=64)
def _cached_track(method: str, tie: bool, steps: int) -> dict:
    # A learner flips back and forth between the same few states: train each state once.
    return track_tying(method, tie=tie, steps=steps)


def _check_state(tie, method, steps) -> tuple[bool, str, int]:
    check_choice(method, "method", METHODS)
    return check_bool(tie, "tie"), method, check_size(steps, "steps", maximum=1000)


class _MethodFigure:
    """The panel's figure for one method and number of steps (see :func:`tying_method_figure`).

    The frame — axes limits (fitted to the tied *and* the untied run), ticks, labels, legends — is the same for
    both values of *tie*; :meth:`show` puts one run's values into the lines and sets the two titles. The figure
    is built once, and :attr:`live` redraws only the lines and titles."""

    COLOURS = ("tab:blue", "tab:orange", "tab:green")

    def __init__(self, method: str, steps: int):
        self.method, self.steps = method, steps
        self.runs = {tie: _cached_track(method, tie, steps) for tie in (True, False)}
        self.figure, (left, right) = new_figure(1, 2, size=(8.6, 3.4), margins={"left": 0.1})
        x, first = range(steps + 1), self.runs[True]
        self.entries = []
        for k, (row, col) in enumerate(TRACKED):
            # E as a wide pale band, H as a dashed line on top: where E = H the dashes run inside the band
            (band,) = left.plot(x, first["embedding"][:, k], color=self.COLOURS[k], lw=6, alpha=0.35,
                                solid_capstyle="butt", label=f"E[{row},{col}]")
            (dashes,) = left.plot(x, first["head"][:, k], color=self.COLOURS[k], lw=1.4, ls="--", marker=".",
                                  label=f"H[{row},{col}]")
            self.entries.append((band, dashes))
        values = torch.cat([run[key].flatten() for run in self.runs.values() for key in ("embedding", "head")])
        low, high = values.min().item(), values.max().item()
        span = max(high - low, 0.1)
        left.set_ylim(low - 0.08 * span, high + 0.45 * span)  # headroom: the legend sits above the lines
        left.set_xlabel(tr("optimiser step"))
        left.set_ylabel(tr("weight value"))
        left.legend(fontsize=6.5, ncol=3, loc="upper left", title=tr("E wide band, H dashed"), title_fontsize=6.5)
        # grey as a wide pale band, red dashed on top: when both sit at zero, the red dashes run inside the grey band
        (self.moved,) = right.plot(x, first["moved"], color="tab:gray", lw=7, alpha=0.45, solid_capstyle="butt",
                                   label=tr("max |E − E₀| (did E move?)"))
        (self.difference,) = right.plot(x, first["max_difference"], color="tab:red", lw=1.6, ls="--", marker="o",
                                        ms=3.5, label="max |E − H|")
        right.set_xlabel(tr("optimiser step"))
        top = max(0.1, *(max(run["max_difference"] + run["moved"]) for run in self.runs.values())) * 1.3
        right.set_ylim(bottom=-0.04 * top, top=top)  # a line at 0 runs clear of the x axis
        right.legend(fontsize=7, loc="upper left")
        for ax in (left, right):
            # Few, whole-number ticks: text layout is most of a redraw's cost.
            ax.xaxis.set_major_locator(MaxNLocator(nbins=5, integer=True))
            ax.yaxis.set_major_locator(MaxNLocator(nbins=5))
            # y=1.0 fixes the title's place (a changing title placed automatically would move: see LiveFigure)
            ax.set_title("", fontsize=9, y=1.0)
        self.live = LiveFigure(self.figure)
        self.live.changing([line for entry in self.entries for line in entry], self.moved, self.difference,
                           left.title, right.title)

    def show(self, tie: bool) -> dict:
        """Show the run of ``tie``: its values in the lines, the titles read off them; returns its numbers."""
        out, steps = self.runs[check_bool(tie, "tie")], self.steps
        for k, (band, dashes) in enumerate(self.entries):
            band.set_ydata(out["embedding"][:, k])
            dashes.set_ydata(out["head"][:, k])
        self.moved.set_ydata(out["moved"])
        self.difference.set_ydata(out["max_difference"])
        label = tr(self.method) if tie else tr("tie off: two independent matrices")
        # Each title states what the run shows, read off the numbers (not assumed from the method's name).
        equal, trained = max(out["max_difference"]) == 0.0, out["moved"][-1] > 0
        story = {(True, True): N_("one matrix, and it trains"), (True, False): N_("one matrix, never updated"),
                 (False, True): N_("start equal, then drift apart") if out["max_difference"][0] == 0
                 else N_("two different matrices")}.get((equal, trained), N_("E does not train"))
        left, right = self.figure.axes
        left.title.set_text(tr("{method}: {story}", method=label, story=tr(story)) if tie else label)
        right.title.set_text(tr("{equal}; {moves}", equal=tr("E = H at every step") if equal else tr("E and H differ"),
                                moves=tr("E moves") if trained else tr("E never moves")))
        # the names are shown as they are written here (the notebook prints this dict), so translated here
        return {
            tr("method"): label,
            tr("one Parameter (E is H)"): out["one Parameter"],
            tr("E in optimiser"): out["embedding in optimiser"],
            tr("H in optimiser"): out["head in optimiser"],
            tr("max |E − H| at step 0"): out["max_difference"][0],
            tr("max |E − H| after {steps} steps", steps=steps): out["max_difference"][-1],
            tr("max |E − E₀| after {steps} steps", steps=steps): out["moved"][-1],
        }


def tying_method_figure(tie: bool = True, method: str = "share", steps: int = 10) -> PanelResult:
    """The lesson 07 panel: tracked entries of E (wide band) and H (dashed) over optimiser steps, and max |E − H|.

    Both plots' limits cover the tied and the untied run of ``method``, so a toggle of *tie* keeps the axes."""
    tie, method, steps = _check_state(tie, method, steps)
    shown = _MethodFigure(method, steps)
    return PanelResult(shown.figure, shown.show(tie))


def tying_method_panel(method: str = "share", steps: int = 10, tie: bool = True) -> TiePanel:
    """Widget: choose how the head is 'tied' and watch both matrices over a few Adam steps.

    Each (method, steps) has its own figure, built and drawn in full the first time it is shown; a toggle of
    *tie* then redraws only the lines and titles."""
    check_choice(method, "method", METHODS)
    steps = check_size(steps, "steps", maximum=40, why=N_("the range of the steps slider"))
    check_bool(tie, "tie")
    method_control = widgets.ToggleButtons(options=labelled_options(METHODS), value=method,
                                           description=tr("method"), style={"button_width": "auto"})
    steps_control = widgets.IntSlider(value=steps, min=1, max=40, description=tr("steps"), continuous_update=False)
    figures: OrderedDict = OrderedDict()  # (method, steps) → _MethodFigure, the few most recently shown

    def compute(tie, method, steps):
        tie, method, steps = _check_state(tie, method, steps)
        if (method, steps) not in figures:
            figures[method, steps] = _MethodFigure(method, steps)
            while len(figures) > FIGURES_KEPT:
                figures.popitem(last=False)
        figures.move_to_end((method, steps))
        shown = figures[method, steps]
        numbers = shown.show(tie)
        return PanelResult(shown.figure, numbers, png=shown.live.png())

    return TiePanel(compute, controls={"method": method_control, "steps": steps_control}, tie=tie,
                    title=N_("Share, copy, or tie after the optimiser: which one trains one matrix?"))
