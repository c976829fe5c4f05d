"""Lesson 01's figures: the gradient rows of the panel, and the diagram of the one matrix in its two roles."""

from __future__ import annotations

import numpy as np
from matplotlib import colormaps
from matplotlib.colors import ListedColormap
from matplotlib.patches import Rectangle

from lmtie_edu.kit.diagrams import HEAD, INK, LOOKUP, SHARED, arrow, canvas, matrix, note
from lmtie_edu.kit.plotting import MAX_CELLS
from lmtie_edu.shared.language import tr
from lmtie_edu.shared.validation import check_matrix, check_token_ids

__all__ = ["GradientRows", "draw_gradient_rows", "draw_shared_matrix", "exponent_range", "gradient_exponents",
           "row_outlines", "show_rows"]

#: The most rows draw_gradient_rows draws (one outline artist each: 10,000 take seconds; lesson 01 draws 12).
MAX_ROWS = 10_000
#: |gradient| colours: the smallest non-zero value is already a clear green, so no non-zero row looks white.
_GREENS = ListedColormap(colormaps["Greens"](np.linspace(0.35, 1.0, 256))).with_extremes(bad="white")


def gradient_exponents(grad) -> np.ma.MaskedArray:
    """log₁₀ |grad|, with exact zeros masked (drawn white)."""
    values = check_matrix(grad, "grad").detach().abs().double().numpy()
    nonzero = values > 0
    return np.ma.masked_array(np.log10(np.where(nonzero, values, 1.0)), mask=~nonzero)


def exponent_range(*exponents: np.ma.MaskedArray) -> tuple[float, float]:
    """The log colour range that shows every given gradient (of gradient_exponents): at least one decade."""
    shown = [e for e in exponents if e.count()]
    high = max(float(e.max()) for e in shown) if shown else 0.0
    low = min(min(float(e.min()) for e in shown) if shown else -1.0, high - 1)
    return low, high


def row_outlines(ax, rows: int, cols: int) -> list[Rectangle]:
    """One outline per row of a (rows, cols) image, all hidden: :func:`show_rows` shows some."""
    return [ax.add_patch(Rectangle((-0.5, row - 0.5), cols, 1, fill=False, edgecolor="black", linewidth=1.6,
                                   visible=False)) for row in range(rows)]


def _checked_rows(rows, n_rows: int):
    """Rows to outline as a LongTensor: an id, a list, an array or a tensor of integers in [0, n_rows - 1]."""
    return check_token_ids(rows, n_rows, ranks=(0, 1, 2), name="highlight_rows")


def show_rows(outlines: list[Rectangle], rows) -> None:
    wanted = set(_checked_rows(rows, len(outlines)).unique().tolist())  # a clear error for -1, 999, 1.5, meta
    for row, outline in enumerate(outlines):
        outline.set_visible(row in wanted)


class GradientRows:
    """The artists of :func:`draw_gradient_rows`, kept so that a panel updates them in place (its LiveFigure
    redraws only :attr:`artists`, in drawing order, the axes' spines on top as in a full drawing)."""

    def __init__(self, ax, grad, *, highlight_rows=(), color_range: tuple[float, float] | None = None):
        shape = tuple(getattr(grad, "shape", ()))
        if len(shape) == 2 and (shape[0] > MAX_ROWS or shape[0] * shape[1] > MAX_CELLS):
            raise ValueError(tr("grad has shape {shape}; draw_gradient_rows draws at most {rows:,} rows and {cells:,} "
                                "entries (one outline per row: more would take minutes) — draw a slice, e.g. grad[:100]",
                                shape=shape, rows=MAX_ROWS, cells=MAX_CELLS))
        exponents = gradient_exponents(grad)
        _checked_rows(highlight_rows, exponents.shape[0])  # before anything is drawn
        low, high = color_range or exponent_range(exponents)
        self.image = ax.imshow(exponents, cmap=_GREENS, vmin=low, vmax=high, aspect="auto", interpolation="nearest")
        rows, cols = exponents.shape
        self.zeros = [ax.text((cols - 1) / 2, row, "0", ha="center", va="center", fontsize=7, color="#888888",
                              visible=False) for row in range(rows)] if rows <= 32 else []
        self.outlines = row_outlines(ax, rows, cols)
        self.artists = [self.image, *self.outlines, *ax.spines.values(), *self.zeros]
        self.update(grad, highlight_rows, exponents)
        ax.set_xlabel(tr("dimension"))
        if rows <= 32:
            ax.set_yticks(range(rows))
            ax.tick_params(axis="y", labelsize=7)
        bar = ax.figure.colorbar(self.image, ax=ax, shrink=0.85)
        bar.set_label(tr("log₁₀ |gradient|; white = exactly 0"), fontsize=8)
        bar.ax.tick_params(labelsize=7)

    def update(self, grad, highlight_rows=(), exponents=None) -> None:
        exponents = gradient_exponents(grad) if exponents is None else exponents
        self.image.set_data(exponents)
        zero_rows = np.ma.getmaskarray(exponents).all(axis=1)
        for row, text in enumerate(self.zeros):
            text.set_visible(bool(zero_rows[row]))
        show_rows(self.outlines, highlight_rows)


def draw_gradient_rows(ax, grad, *, title: str, highlight_rows=(), color_range=None) -> GradientRows:
    """|grad| on a log colour scale: every non-zero entry is green, exact zeros are white and their rows
    are marked "0", so which rows get gradient shows at any magnitude. ``color_range``: (low, high) decades,
    by default those of ``grad``."""
    drawn = GradientRows(ax, grad, highlight_rows=highlight_rows, color_range=color_range)
    ax.set_title(title, fontsize=10)
    return drawn


def draw_shared_matrix():
    """The idea of the tie: one matrix W; the lookup of token 2 reads row 2, and row 2 · h is the logit of
    token 2 (V = 6, d = 4, drawn as cells)."""
    fig, ax = canvas(width=25, height=11)
    i, rows, cols = 2, 6, 4
    W = matrix(ax, x=7, y=2.2, rows=rows, cols=cols, name="W  (V × d)", highlight={i: SHARED})
    note(ax, 0.3, 10.4, tr("embedding: look up token 2"), color=LOOKUP, fontsize=10, weight="bold")
    note(ax, 0.8, W.row_y(i), tr("token 2"), color=LOOKUP, fontsize=10)
    arrow(ax, (3.3, W.row_y(i)), W.row_start(i), tr("reads row 2"), color=LOOKUP, offset=(0, 0.3))
    note(ax, 12.0, W.y + 3, "@", fontsize=13, ha="center")
    matrix(ax, x=13.0, y=W.y + 1, rows=cols, cols=1, name="h", fill="#d9d9d9")
    note(ax, 15.0, W.y + 3, "=", fontsize=13, ha="center")
    logits = matrix(ax, x=16.0, y=W.y, rows=rows, cols=1, name="logits", highlight={i: HEAD})
    note(ax, 17.4, logits.row_y(i), tr("logit of token 2 = row 2 · h"), color=HEAD)
    note(ax, 12.0, 10.4, tr("output head: score every token"), color=HEAD, fontsize=10, weight="bold")
    note(ax, 0.3, 1.1, tr("tied (head.weight = embedding.weight): one matrix W, two roles —"), color=SHARED)
    note(ax, 0.3, 0.35, tr("its row 2 is token 2's input vector and token 2's output vector"), color=INK)
    return fig
