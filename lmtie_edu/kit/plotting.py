"""Figures without pyplot's global state.

Everything here builds ``matplotlib.figure.Figure`` objects directly: nothing is registered with
pyplot, so a widget that redraws a hundred times leaks no figures, and a notebook cell shows a
figure only when it asks to (``show(fig)``).
"""

from __future__ import annotations

import io
import itertools
import math
import numbers

from lmtie_edu.shared import notebook as _notebook
from lmtie_edu.shared.validation import check_bool, check_choice, check_number, check_positive_int

_notebook.use_writable_matplotlib_dir()  # before matplotlib is imported: a read-only home then stays quiet

import numpy as np  # noqa: E402
import torch  # noqa: E402
from matplotlib import colormaps  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402
from matplotlib.colors import Colormap  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

DPI = 90
MAX_AXES = 100  # each takes tens of milliseconds to build and draw: 150 x 150 axes would run for minutes
MAX_CELLS = 4_000_000  # more cells than a screen has pixels: slice the matrix first
LAYOUTS = (None, "constrained", "tight", "compressed")
MARGINS = {"left": 0.08, "right": 0.97, "bottom": 0.15, "top": 0.88, "wspace": 0.3, "hspace": 0.45}


def _check_margins(margins) -> dict:
    if margins is None:
        return dict(MARGINS)
    if not isinstance(margins, dict):
        raise TypeError(f"margins must be a dict of {list(MARGINS)}, e.g. {{'left': 0.1}}; got {margins!r:.80}")
    unknown = [key for key in margins if key not in MARGINS]
    if unknown:
        raise ValueError(f"margins can only set {list(MARGINS)}; got {unknown}")
    placed = {**MARGINS}
    for key, value in margins.items():
        if key in ("wspace", "hspace"):
            placed[key] = check_number(value, f"margins[{key!r}]", minimum=0, maximum=10)
        else:
            placed[key] = check_number(value, f"margins[{key!r}]", minimum=0, maximum=1,
                                       expected="a fraction of the figure in [0, 1]")
    for low, high in (("left", "right"), ("bottom", "top")):
        if placed[low] >= placed[high]:
            raise ValueError(f"margins: {low} must be smaller than {high}; got {low}={placed[low]:g}, "
                             f"{high}={placed[high]:g}")
    return placed


def new_figure(nrows: int = 1, ncols: int = 1, *, size: tuple[float, float] = (8.0, 3.4), layout: str | None = None,
               margins: dict | None = None, width_ratios: list[float] | None = None, **subplot_kw):
    """Return ``(fig, axes)`` like ``plt.subplots`` but outside pyplot (nothing to close).

    No automatic layout by default: "constrained"/"tight" layouts draw the figure twice, which
    doubles a widget's redraw time. Fixed margins suit the lessons' figures; pass
    ``layout="constrained"`` for a static figure with crowded labels, or ``margins`` (keywords of
    ``Figure.subplots_adjust``) to place the axes yourself. ``width_ratios``: the columns' relative widths.
    """
    nrows, ncols = check_positive_int(nrows, "nrows"), check_positive_int(ncols, "ncols")
    if nrows * ncols > MAX_AXES:
        raise ValueError(f"new_figure({nrows}, {ncols}) would draw {nrows * ncols:,} axes; at most {MAX_AXES} "
                         f"axes fit a figure (each takes tens of milliseconds: more would run for minutes)")
    if not (isinstance(size, tuple | list) and len(size) == 2):
        raise TypeError(f"size must be (width, height) in inches, e.g. (8.0, 3.4); got {size!r}")
    size = tuple(check_number(v, "size", minimum=0.5, maximum=40, expected="a width/height in inches from 0.5 to 40")
                 for v in size)
    check_choice(layout, "layout", LAYOUTS)
    placed = _check_margins(margins) if layout is None else None
    if layout is not None and margins is not None:
        raise ValueError(f"margins place the axes by hand, layout={layout!r} places them automatically: pass one")
    fig = Figure(figsize=size, dpi=DPI, layout=layout)
    if placed is not None:
        fig.subplots_adjust(**placed)
    try:
        return fig, fig.subplots(nrows, ncols, width_ratios=width_ratios, subplot_kw=subplot_kw or None)
    except (TypeError, ValueError, AttributeError, KeyError) as error:
        raise TypeError(f"the keywords {sorted(subplot_kw)} are not options of an Axes "
                        f"(matplotlib says: {error})") from error


def _as_figure(fig) -> Figure:
    """The Figure of what a learner may pass to show(): a Figure, new_figure()'s (fig, axes), an Axes,
    an array of axes or a PanelResult."""
    candidate = fig
    if isinstance(candidate, tuple | list) and candidate:
        candidate = candidate[0]
    if isinstance(candidate, np.ndarray) and candidate.size:
        candidate = candidate.flat[0]
    for _ in range(3):  # an Axes's .figure may be a SubFigure, whose .figure is the Figure
        if isinstance(candidate, Figure):
            return candidate
        candidate = getattr(candidate, "figure", None)
    raise TypeError(f"fig must be a matplotlib Figure, e.g. fig, ax = new_figure(); ...; show(fig); "
                    f"got {type(fig).__name__}")


def figure_to_png(fig: Figure, *, fast: bool = False) -> bytes:
    """Render ``fig`` to PNG bytes (what the widgets send to the browser).

    ``fast=True`` (a panel's redraw) compresses at zlib level 1: the same pixels (PNG is lossless), encoded in
    about half the time for a file some 10 % larger — a click waits for the encoder, a stored notebook does
    not."""
    check_bool(fast, "fast")
    buffer = io.BytesIO()
    _as_figure(fig).savefig(buffer, format="png", dpi=DPI, pil_kwargs={"compress_level": 1} if fast else None)
    return buffer.getvalue()


def show(fig: Figure) -> None:
    """Display ``fig`` in a notebook as a PNG (its text form is stable, so nbval can compare the cell).

    ``fig`` may also be what ``new_figure()`` returned, an Axes of the figure, or a panel's result."""
    from IPython.display import Image, display

    display(Image(figure_to_png(fig)))


def _matrix_values(matrix) -> np.ndarray:
    """A real matrix as float64 values; a clear error for what cannot be drawn."""
    if getattr(matrix, "is_meta", False):
        raise ValueError("matrix is a meta tensor (a shape without values): there is nothing to draw")
    shape = tuple(getattr(matrix, "shape", ()))
    if shape and len(shape) != 2:  # said before a 10**8-value tensor is converted
        raise ValueError(f"matrix must be 2-D with at least one row and column; got shape {shape}")
    if not shape and isinstance(matrix, list | tuple):  # nested lists: their rows, and the first row's length
        first = matrix[0] if matrix else ()
        shape = (len(matrix), len(first) if isinstance(first, list | tuple) else 1)
    if len(shape) == 2 and shape[0] * shape[1] > MAX_CELLS:
        raise ValueError(f"matrix has {shape[0] * shape[1]:,} cells {shape}; heatmap draws at most {MAX_CELLS:,} "
                         f"(more than a screen shows) — draw a slice, e.g. matrix[:100]")
    if isinstance(matrix, torch.Tensor):
        matrix = matrix.detach().cpu()
        matrix = matrix.to_dense() if matrix.is_sparse else matrix
        if matrix.is_complex():
            raise TypeError(f"matrix must hold real numbers; got dtype {matrix.dtype} (draw .abs() or .real)")
        matrix = matrix.double()  # bfloat16 has no NumPy counterpart
    try:
        values = np.asarray(matrix)
        if np.iscomplexobj(values):
            raise TypeError(f"matrix must hold real numbers; got dtype {values.dtype} (draw abs() or .real)")
        values = values.astype(float)
    except (TypeError, ValueError) as error:
        if "real numbers" in str(error):
            raise
        raise TypeError(f"matrix must be a 2-D tensor or array of numbers; got {type(matrix).__name__}") from error
    if values.ndim != 2 or values.size == 0:
        raise ValueError(f"matrix must be 2-D with at least one row and column; got shape {values.shape}")
    return values


def _row_numbers(highlight_rows, n_rows: int) -> list[int]:
    if getattr(highlight_rows, "is_meta", False):
        raise ValueError("highlight_rows is a meta tensor (a shape without values): pass the row numbers themselves")
    too_many = ValueError(f"highlight_rows lists more than {MAX_CELLS:,} rows (more than heatmap draws; checking them "
                          f"would take minutes) — pass the distinct rows, e.g. sorted(set(ids))")
    if isinstance(highlight_rows, torch.Tensor | np.ndarray):
        if math.prod(highlight_rows.shape) > MAX_CELLS:
            raise too_many
        highlight_rows = highlight_rows.tolist()
    if isinstance(highlight_rows, numbers.Integral) and not isinstance(highlight_rows, bool):
        highlight_rows = [highlight_rows]
    bad = TypeError(f"highlight_rows must be row numbers (integers), e.g. [0, 3]; got {highlight_rows!r:.80}")
    if isinstance(highlight_rows, str | bytes) or not hasattr(highlight_rows, "__iter__"):
        raise bad
    rows = list(itertools.islice(highlight_rows, MAX_CELLS + 1))  # range(10**8) is not drawn to its end
    if len(rows) > MAX_CELLS:
        raise too_many
    if any(isinstance(r, bool | np.bool_) or not isinstance(r, numbers.Integral) for r in rows):
        raise bad
    rows = sorted(set(int(r) for r in rows))
    if rows and not 0 <= rows[0] <= rows[-1] < n_rows:
        raise ValueError(f"highlight_rows must lie in [0, {n_rows - 1}]; got {rows[0] if rows[0] < 0 else rows[-1]}")
    return rows


def heatmap(ax, matrix, *, title: str = "", xlabel: str = "", ylabel: str = "", symmetric: bool = True,
            cmap: str | None = None, colorbar: bool = True, highlight_rows=()):
    """Draw a matrix as an image with rows top to bottom; optionally outline some rows.

    ``symmetric`` centres the colour scale on zero (for weights and gradients).
    """
    if not isinstance(ax, Axes):
        hint = " (new_figure() returns (fig, ax): pass the ax)" if isinstance(ax, tuple | list) else ""
        hint = " (index it: axes[0])" if isinstance(ax, np.ndarray) else hint
        raise TypeError(f"ax must be one matplotlib Axes{hint}; got {type(ax).__name__}")
    values = _matrix_values(matrix)
    rows = _row_numbers(highlight_rows, values.shape[0])
    check_bool(symmetric, "symmetric"), check_bool(colorbar, "colorbar")
    if cmap is not None and not isinstance(cmap, Colormap) and not (isinstance(cmap, str) and cmap in colormaps):
        raise ValueError(f"cmap must be the name of a matplotlib colormap, e.g. 'viridis' or 'RdBu_r'; got {cmap!r:.80}")
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
