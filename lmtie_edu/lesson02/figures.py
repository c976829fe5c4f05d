"""Lesson 02 figures and the "move the hidden state" panel (drawing only; the numbers come from
:func:`lmtie_edu.lesson02.logits.score_table`)."""

from __future__ import annotations

import ipywidgets as widgets
import torch

from lmtie_edu.kit.diagrams import HEAD, LOOKUP, SHARED, arrow, canvas, matrix, note
from lmtie_edu.kit.live_figure import LiveFigure
from lmtie_edu.kit.panels import PanelResult, TiePanel
from lmtie_edu.kit.plotting import new_figure
from lmtie_edu.shared.language import N_, tr
from lmtie_edu.shared.validation import check_bool, check_matrix, check_positive_int

from .artists import GREEN, GREY, RED, Arrows, Bars, arrow_limits, draw_bars
from .logits import hidden_from_polar, score_table, toy_vocabulary

#: geometry_figure labels every token (an arrow and two bars each): beyond this many the labels overlap.
MAX_DRAWN_TOKENS = 60


def _check_labels(labels, W) -> list[str]:
    if isinstance(labels, str) or not hasattr(labels, "__len__"):
        raise TypeError(tr("labels must be a list of {count} token names; got {type}", count=W.shape[0],
                           type=type(labels).__name__))
    if len(labels) != W.shape[0]:
        raise ValueError(tr("labels must name every row of W: expected {count} labels, got {got}", count=W.shape[0],
                            got=len(labels)))
    return [str(label) for label in labels]


class GeometryFigure:
    """The arrows, the logits and the softmax of one head and one h, built once and updated in place.
    ``heads``: every matrix the figure may show; the arrows' frame holds all of them (and h)."""

    def __init__(self, labels, heads):
        self.labels, self.heads, self.frame = labels, heads, None
        self.figure, axes = new_figure(1, 3, size=(10.5, 4.0),
                                       margins=dict(left=0.04, right=0.98, bottom=0.08, top=0.9, wspace=0.3))
        for ax, box in zip(axes, ((0.04, 0.08, 0.42, 0.82), (0.52, 0.08, 0.21, 0.82), (0.77, 0.08, 0.21, 0.82)),
                           strict=True):
            ax.set_position(box)  # the arrows get the widest panel: their labels must not touch
        self.arrows = Arrows(axes[0], labels)
        self.logits = Bars(axes[1], labels, title="logits = h · w_i")
        self.softmax = Bars(axes[2], labels, title="softmax", fmt="{:.3f}")
        self.changing = [*self.arrows.artists, axes[0].title, *self.logits.artists, *self.softmax.artists]

    def show(self, h, W, title: str) -> tuple[dict, bool]:
        """Draw ``W`` (one of the heads) with ``h``; return the scores and whether the frame changed."""
        with torch.no_grad():
            scores = score_table(h, W)
        frame = arrow_limits(self.heads, h)
        changed = frame != self.frame
        if changed:
            self.arrows.set_frame(frame)
            self.frame = frame
        self.arrows.update(W, h, highlight=(scores["top"],))
        self.arrows.ax.set_title(title, fontsize=10, y=1.0)  # a fixed place (where matplotlib puts it)
        self.logits.update(scores["logits"], highlight=scores["top"])
        self.softmax.update(scores["probabilities"], highlight=scores["top"], xlim=(0, 1.6))
        return scores, changed


def geometry_figure(h: torch.Tensor, W: torch.Tensor, labels, *, title: str = N_("token vectors and h")):
    """Arrows (the head's rows and h), the logits as bars, the softmax as bars; the top token in red."""
    W = check_matrix(W, "W")
    if W.shape[1] != 2:
        raise ValueError(tr("W must have shape (V, 2) here: geometry_figure draws its rows as arrows in the plane; got "
                            "{shape} — norm_cosine_figure draws a head of any width d", shape=tuple(W.shape)))
    if W.shape[0] > MAX_DRAWN_TOKENS:
        raise ValueError(tr("geometry_figure draws and labels at most {limit} tokens (an arrow and two bars "
                            "each, or the labels overlap); got W with {rows} rows", limit=MAX_DRAWN_TOKENS,
                            rows=W.shape[0]))
    if not isinstance(title, str):
        raise TypeError(tr("title must be text; got {title}", title=repr(title)))
    with torch.no_grad():
        score_table(h, W)  # checks h before anything is built
    view = GeometryFigure(_check_labels(labels, W), [W])
    scores, _ = view.show(h, W, tr(title))  # the default title is translated where it is shown
    return view.figure, scores


def norm_cosine_figure(h: torch.Tensor, W: torch.Tensor, labels, *, k: int = 6):
    """Every row of a d-dimensional head by its two exact numbers: cosine with ``h`` and length.

    A logit is ‖h‖·‖w_i‖·cos θ_i, so tokens on one dashed curve ‖w‖ = z / (‖h‖ cos θ) have the same
    logit z; the top token is the one on the highest curve. Right: the softmax of the ``k`` best tokens
    (plus the nearest vector if it is not among them). Returns the figure and the scores of the full head.
    """
    W = check_matrix(W, "W").detach()
    with torch.no_grad():  # plain numbers for drawing, even if h or W take part in a graph
        scores = score_table(h, W)  # checks h too
        h_norm = float(h.norm())
    if h_norm == 0:
        raise ValueError(tr("h must not be the zero vector here: the cosines with h are undefined"))
    labels = _check_labels(labels, W)
    k = min(check_positive_int(k, "k"), W.shape[0])   # best k of V: all of them when k ≥ V
    if h_norm * float(scores["norms"].max()) == 0:
        raise ValueError(tr("W must have a row that is not zero: every cosine and logit is 0, there is nothing to draw"))
    top, nearest = scores["top"], scores["nearest"]
    fig, axes = new_figure(1, 2, size=(9.0, 3.8), margins=dict(left=0.08, right=0.98, bottom=0.14, top=0.84, wspace=0.25))
    ax = axes[0]
    cos, norms = scores["cosines"].tolist(), scores["norms"].tolist()
    ax.scatter(cos, norms, s=10, color=GREY, label=tr("other tokens"))
    y_max = 1.12 * max(norms)
    for index, color in ((top, RED), (nearest, GREEN)):
        z = float(scores["logits"][index])
        grid = torch.linspace(max(z / (h_norm * y_max), 0.02), 1.0, 100)
        ax.plot(grid, z / (h_norm * grid), "--", color=color, linewidth=1)
        ax.scatter([cos[index]], [norms[index]], s=45, color=color, zorder=3,
                   label=tr("{token}: top (largest logit)", token=labels[index]) if index == top
                   else tr("{token}: nearest vector to h", token=labels[index]))
    ax.set_xlim(min(cos) - 0.05, 1.0)
    ax.set_ylim(0, y_max)
    ax.set_xlabel(tr("cos θ between w_i and h"))
    ax.set_ylabel(tr("length ‖w_i‖"))
    ax.legend(loc="lower left", fontsize=8, frameon=False)
    ax.set_title(tr("top {top} is longer; nearest {nearest} points closer to h\n"
                    "dashed: rows with the same logit ‖h‖‖w‖cos θ", top=labels[top], nearest=labels[nearest]),
                 fontsize=9)
    shown = scores["logits"].argsort(descending=True)[:k].tolist()
    if nearest not in shown:
        shown.append(nearest)
    draw_bars(axes[1], scores["probabilities"][shown], [labels[i] for i in shown],
              title=tr("softmax over all {count} tokens (best {k})", count=W.shape[0], k=k), highlight=0,
              fmt="{:.3f}")
    return fig, scores


# -- the diagram ----------------------------------------------------------------------------------------

def draw_shared_matrix():
    """The idea of the lesson as a picture: one matrix W (V × d) whose row i is read by the lookup of token i
    and, in the head, multiplied by h to give the logit z_i — the same row in both roles."""
    fig, ax = canvas(width=27, height=11.5)
    i = 3  # the row drawn as "row i"
    W = matrix(ax, x=10.5, y=1.0, rows=8, cols=4, name="W  (V × d)", highlight={i: SHARED})
    z = matrix(ax, x=23.5, y=1.0, rows=8, cols=1, name="logits z", highlight={i: HEAD})
    y = W.row_y(i)
    note(ax, 0.3, y, tr("token i"), fontsize=10, weight="bold")
    arrow(ax, (3.2, y), W.row_start(i), tr("lookup reads row i"), color=LOOKUP)
    note(ax, 0.3, y - 1.4, tr("row i = e_i, the input vector;\nthe body turns the context\ninto h"), color=LOOKUP,
         fontsize=8, va="top")
    h = matrix(ax, x=15.0, y=8.6, rows=1, cols=4, name=tr("h  (from the body)"))
    arrow(ax, W.row_end(i), z.row_start(i), tr("h · row i = z_i"), color=HEAD, text_at=0.72, offset=(0.0, 0.3))
    arrow(ax, h.bottom(), (h.bottom()[0], y + 0.25), color=HEAD)
    note(ax, 14.8, y - 1.1, tr("the head: h times every row j\ngives z_j; the same row i\nthat the lookup read gives z_i"),
         color=HEAD, fontsize=8, va="top")
    note(ax, W.x - 0.2, 0.35, tr("tied: one Parameter, two roles"), color=SHARED, fontsize=9, ha="left")
    return fig


# -- the panel ----------------------------------------------------------------------------------------

def _show_logits(view: GeometryFigure, angle, length, tie) -> tuple[dict, bool]:
    check_bool(tie, "tie")
    h = hidden_from_polar(angle, length)  # every check before anything is drawn
    W = view.heads[0] if tie else view.heads[1]
    scores, changed = view.show(h, W, tr("head rows = W_emb (tied)") if tie else tr("head rows = W_out (untied)"))
    labels = view.labels
    return {
        "h": f"({h[0].item():.2f}, {h[1].item():.2f})",
        N_("top token (largest h·w)"): labels[scores["top"]],   # the kit translates each name where it shows it
        N_("p(top)"): scores["probabilities"][scores["top"]].item(),
        N_("nearest vector to h"): labels[scores["nearest"]],
        N_("logit of the nearest"): scores["logits"][scores["nearest"]].item(),
    }, changed


def _logits_view() -> GeometryFigure:
    """The panel's figure: the arrows' frame holds both heads (W_emb tied, W_out untied), so a toggle keeps it."""
    labels, embedding, head = toy_vocabulary()
    return GeometryFigure(labels, [embedding, head])


def logits_figure(angle: int = 60, length: float = 1.3, tie: bool = True) -> PanelResult:
    """The lesson 02 panel: the head's rows (W_emb when tied, an independent W_out when not), h, bars."""
    view = _logits_view()
    numbers, _ = _show_logits(view, angle, length, tie)
    return PanelResult(view.figure, numbers)


def logits_panel(angle: int = 60, length: float = 1.3, tie: bool = True) -> TiePanel:
    """Widget: turn and stretch the hidden state, toggle tying, watch the logits and the softmax.

    The figure is drawn whole once; a state redraws only the arrows, bars and labels (a LiveFigure), and the
    whole figure only when h reaches beyond the arrows' frame (``forget_background``)."""
    view = _logits_view()
    live = LiveFigure(view.figure)
    live.changing(view.changing)

    def compute(tie, angle, length):
        numbers, frame_changed = _show_logits(view, angle, length, tie)
        if frame_changed:
            live.forget_background()
        return PanelResult(view.figure, numbers, png=live.png())

    controls = {
        "angle": widgets.IntSlider(min=0, max=355, step=5, description=tr("angle of h (°)")),
        "length": widgets.FloatSlider(min=0.0, max=3.0, step=0.1, description=tr("length ‖h‖")),
    }  # their starting values: `values=` below, checked like set()
    values = {"angle": angle, "length": length}   # checked (NumPy numbers too) by TiePanel, like set()
    return TiePanel(compute, controls=controls, tie=tie, values=values,
                    title=N_("Move the hidden state: which token gets the largest inner product?"))  # the kit translates it
