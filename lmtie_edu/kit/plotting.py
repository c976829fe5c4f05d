"""Figures without pyplot's global state.

Everything here builds ``matplotlib.figure.Figure`` objects directly: nothing is registered with
pyplot, so a widget that redraws a hundred times leaks no figures, and a notebook cell shows a
figure only when it asks to (``show(fig)``).
"""

from __future__ import annotations

import io

import numpy as np
from matplotlib.figure import Figure

from lmtie_edu.shared.validation import check_number, check_positive_int

DPI = 90


def new_figure(nrows: int = 1, ncols: int = 1, *, size: tuple[float, float] = (8.0, 3.4), layout: str | None = None,
               margins: dict | None = None, **subplot_kw):
    """Return ``(fig, axes)`` like ``plt.subplots`` but outside pyplot (nothing to close).

    No automatic layout by default: "constrained"/"tight" layouts draw the figure twice, which
    doubles a widget's redraw time. Fixed margins suit the lessons' figures; pass
    ``layout="constrained"`` for a static figure with crowded labels, or ``margins`` (keywords of
    ``Figure.subplots_adjust``) to place the axes yourself.
    """
    nrows, ncols = check_positive_int(nrows, "nrows"), check_positive_int(ncols, "ncols")
    if not (isinstance(size, tuple | list) and len(size) == 2):
        raise TypeError(f"size must be (width, height) in inches, e.g. (8.0, 3.4); got {size!r}")
    size = tuple(check_number(v, "size", minimum=0.5, maximum=40, expected="a width/height in inches from 0.5 to 40")
                 for v in size)
    fig = Figure(figsize=size, dpi=DPI, layout=layout)
    if layout is None:
        fig.subplots_adjust(**{"left": 0.08, "right": 0.97, "bottom": 0.15, "top": 0.88, "wspace": 0.3,
                               "hspace": 0.45, **(margins or {})})
    return fig, fig.subplots(nrows, ncols, subplot_kw=subplot_kw or None)


def figure_to_png(fig: Figure) -> bytes:
    """Render ``fig`` to PNG bytes (what the widgets send to the browser)."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=DPI)
    return buffer.getvalue()


def show(fig: Figure) -> None:
    """Display ``fig`` in a notebook as a PNG (its text form is stable, so nbval can compare the cell)."""
    from IPython.display import Image, display

    display(Image(figure_to_png(fig)))


def heatmap(ax, matrix, *, title: str = "", xlabel: str = "", ylabel: str = "", symmetric: bool = True,
            cmap: str | None = None, colorbar: bool = True, highlight_rows=()):
    """Draw a matrix as an image with rows top to bottom; optionally outline some rows.

    ``symmetric`` centres the colour scale on zero (for weights and gradients).
    """
    if getattr(matrix, "is_meta", False):
        raise ValueError("matrix is a meta tensor (a shape without values): there is nothing to draw")
    try:
        values = np.asarray(matrix.detach().cpu() if hasattr(matrix, "detach") else matrix, dtype=float)
    except (TypeError, ValueError) as error:
        raise TypeError(f"matrix must be a 2-D tensor or array of numbers; got {type(matrix).__name__}") from error
    if values.ndim != 2 or values.size == 0:
        raise ValueError(f"matrix must be 2-D with at least one row and column; got shape {values.shape}")
    rows = sorted(set(int(r) for r in highlight_rows))
    if rows and not 0 <= rows[0] <= rows[-1] < values.shape[0]:
        raise ValueError(f"highlight_rows must lie in [0, {values.shape[0] - 1}]; got {rows}")
    finite = values[np.isfinite(values)]  # NaN/inf cells are drawn blank, not allowed to wreck the scale
    if symmetric:
        limit = float(np.abs(finite).max(initial=0.0)) or 1.0
        image = ax.imshow(values, cmap=cmap or "RdBu_r", vmin=-limit, vmax=limit, aspect="auto",
                          interpolation="nearest")
    else:
        image = ax.imshow(values, cmap=cmap or "viridis", aspect="auto", interpolation="nearest")
    for row in rows:
        ax.add_patch(_row_outline(row, values.shape[1]))
    ax.set_title(title, fontsize=10)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if values.shape[0] <= 32:
        ax.set_yticks(range(values.shape[0]))
        ax.tick_params(axis="y", labelsize=7)
    if colorbar:
        ax.figure.colorbar(image, ax=ax, shrink=0.85)
    return image


def _row_outline(row: int, width: int):
    from matplotlib.patches import Rectangle

    return Rectangle((-0.5, row - 0.5), width, 1, fill=False, edgecolor="black", linewidth=1.6)
