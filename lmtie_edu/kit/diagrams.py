"""Pieces for the lessons' diagrams: pictures of an idea (a matrix and its rows, vectors, arrows), not data plots.

A diagram is drawn on a blank canvas measured in cell units (one matrix cell = 1 × 1), so the lessons
place things by counting cells:

    fig, ax = canvas(width=24, height=10)
    W = matrix(ax, x=1, y=1, rows=6, cols=4, name="W", highlight={2: LOOKUP})
    arrow(ax, W.row_end(2), (12, W.row_y(2)), "row 2 is the embedding of token 2", color=LOOKUP)
    show(fig)

Colours: LOOKUP (the embedding role), HEAD (the output-head role), SHARED (both at once), GRAD (gradient).
"""

from __future__ import annotations

from dataclasses import dataclass

from matplotlib.patches import FancyArrowPatch, Rectangle

from lmtie_edu.kit.plotting import new_figure
from lmtie_edu.shared.validation import check_number, check_positive_int

LOOKUP, HEAD, SHARED, GRAD, PLAIN, INK = "#1f77b4", "#d62728", "#9467bd", "#2ca02c", "#f2f2f2", "#333333"


def canvas(width: float, height: float, *, inches_per_cell: float = 0.32):
    """A blank figure whose data coordinates run from (0, 0) to (width, height) cells."""
    width = check_number(width, "width", minimum=1, maximum=100)
    height = check_number(height, "height", minimum=1, maximum=100)
    fig, ax = new_figure(size=(width * inches_per_cell, height * inches_per_cell),
                         margins={"left": 0, "right": 1, "bottom": 0, "top": 1})
    ax.set_xlim(0, width)
    ax.set_ylim(0, height)
    ax.set_aspect("equal")
    ax.axis("off")
    return fig, ax


@dataclass(frozen=True)
class Box:
    """Where a drawn matrix sits: its lower-left corner, rows and columns (row 0 at the top)."""
    x: float
    y: float
    rows: int
    cols: int

    def row_y(self, row: int) -> float:
        return self.y + self.rows - row - 0.5

    def row_start(self, row: int) -> tuple[float, float]:
        return (self.x, self.row_y(row))

    def row_end(self, row: int) -> tuple[float, float]:
        return (self.x + self.cols, self.row_y(row))

    def top(self) -> tuple[float, float]:
        return (self.x + self.cols / 2, self.y + self.rows)

    def bottom(self) -> tuple[float, float]:
        return (self.x + self.cols / 2, self.y)


def matrix(ax, x: float, y: float, rows: int, cols: int, *, name: str = "", highlight: dict | None = None,
           row_labels: list[str] | None = None, fill: str = PLAIN, name_side: str = "top") -> Box:
    """Draw a rows × cols grid with its lower-left corner at (x, y); ``highlight`` colours whole rows."""
    rows, cols = check_positive_int(rows, "rows"), check_positive_int(cols, "cols")
    highlight = highlight or {}
    box = Box(x, y, rows, cols)
    for row in range(rows):
        colour = highlight.get(row, fill)
        for col in range(cols):
            ax.add_patch(Rectangle((x + col, box.row_y(row) - 0.5), 1, 1, facecolor=colour, edgecolor="white",
                                   linewidth=1.2, alpha=0.85 if row in highlight else 1.0))
        if row_labels:
            ax.text(x - 0.3, box.row_y(row), row_labels[row], ha="right", va="center", fontsize=9, color=INK)
    if name:
        above = name_side == "top"
        ax.text(x + cols / 2, y + rows + 0.4 if above else y - 0.4, name, ha="center",
                va="bottom" if above else "top", fontsize=11, color=INK, weight="bold")
    return box


def arrow(ax, start, end, text: str = "", *, color: str = INK, curve: float = 0.0, text_at: float = 0.5,
          offset: tuple[float, float] = (0.0, 0.35), fontsize: float = 9, **text_kw) -> None:
    """An arrow from ``start`` to ``end`` (cell coordinates), with ``text`` placed along it."""
    check_number(text_at, "text_at", minimum=0, maximum=1)
    ax.add_patch(FancyArrowPatch(start, end, arrowstyle="-|>", mutation_scale=12, color=color, linewidth=1.6,
                                 connectionstyle=f"arc3,rad={curve}", shrinkA=2, shrinkB=2))
    if text:
        px = start[0] + (end[0] - start[0]) * text_at + offset[0]
        py = start[1] + (end[1] - start[1]) * text_at + offset[1]
        ax.text(px, py, text, ha=text_kw.pop("ha", "center"), va=text_kw.pop("va", "bottom"), fontsize=fontsize,
                color=color, **text_kw)


def note(ax, x: float, y: float, text: str, *, color: str = INK, fontsize: float = 9, **kw) -> None:
    """Plain text at (x, y) in cell coordinates."""
    ax.text(x, y, text, color=color, fontsize=fontsize, ha=kw.pop("ha", "left"), va=kw.pop("va", "center"), **kw)
