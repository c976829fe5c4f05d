"""Lesson 03's gradient heatmaps: matrices side by side on one linear colour scale, each row's norm as a bar.

:func:`plot_gradient_heatmaps` draws them once. :class:`GradientHeatmaps` keeps the drawn artists, so a panel
can show another matrix in one of the axes (:meth:`GradientHeatmaps.show`) without building the figure again.
Its frame — colour range, log scale of the bars, ticks, marked rows — is fixed by the matrices it was built
with: build it with every matrix a control can show (within their range), and the frame holds for each.
"""

from __future__ import annotations

import math
import numbers

import torch
from matplotlib.axis import Axis
from matplotlib.patches import Rectangle

from lmtie_edu.kit.plotting import new_figure
from lmtie_edu.shared.language import tr
from lmtie_edu.shared.validation import check_token_ids

MAX_MATRICES = 12        # side by side, 3.3 inches each: a figure at most 40 inches wide
MAX_ENTRIES = 4_000_000  # per matrix: a heatmap shows no more (and drawing more takes long)


def check_text(value, name: str) -> str:
    if not isinstance(value, str):
        raise TypeError(tr("{name} must be text (a str); got {value!r:.80}", name=name, value=value))
    return value


def _check_matrices(matrices, titles) -> list[torch.Tensor]:
    if isinstance(matrices, torch.Tensor) or not isinstance(matrices, (list, tuple)) or not matrices:
        raise TypeError(tr("matrices must be a non-empty list of (rows, cols) tensors, one per panel"))
    if len(matrices) > MAX_MATRICES:
        raise ValueError(tr("plot_gradient_heatmaps draws at most {limit} matrices side by side (a figure at most 40 "
                            "inches wide); got {count} — split them over several figures", limit=MAX_MATRICES,
                            count=len(matrices)))
    if isinstance(titles, str) or not isinstance(titles, (list, tuple)) or len(titles) != len(matrices):
        error = ValueError if isinstance(titles, (list, tuple)) else TypeError
        raise error(tr("titles must be a list of {count} strings, one per matrix; got {titles!r:.80}",
                       count=len(matrices), titles=titles))
    for index, title in enumerate(titles):
        check_text(title, f"titles[{index}]")
    checked = []
    for index, matrix in enumerate(matrices):
        name = f"matrices[{index}]"
        if not isinstance(matrix, torch.Tensor):
            raise TypeError(tr("{name} must be a torch.Tensor (rows, cols); got {type}", name=name,
                               type=type(matrix).__name__))
        if matrix.is_meta or matrix.dim() != 2 or not matrix.numel():
            raise ValueError(tr("{name} must be a non-empty 2-D tensor with values (not meta); got shape {shape}{meta}",
                                name=name, shape=tuple(matrix.shape),
                                meta=tr(" on the meta device") if matrix.is_meta else ""))
        if matrix.dtype == torch.bool or matrix.is_complex():
            raise TypeError(tr("{name} must hold real numbers (a gradient); got dtype {dtype}", name=name,
                               dtype=matrix.dtype))
        if matrix.numel() > MAX_ENTRIES:
            raise ValueError(tr("{name} must have at most {limit:,} entries (a heatmap cannot show more, and drawing "
                                "them takes long); got {shape} = {count:,}", name=name, limit=MAX_ENTRIES,
                                shape=tuple(matrix.shape), count=matrix.numel()))
        if matrix.shape != matrices[0].shape:
            raise ValueError(tr("all matrices must have one shape; {name} is {shape}, matrices[0] is {first}",
                                name=name, shape=tuple(matrix.shape), first=tuple(matrices[0].shape)))
        matrix = matrix.detach().to_dense().double()
        if not bool(torch.isfinite(matrix).all()):
            raise ValueError(tr("{name} contains NaN or inf", name=name))
        checked.append(matrix)
    return checked


def _marked_rows(values, rows: int, name: str) -> list[int]:
    """Row ids to mark (``inputs``/``targets``): an int, a list or a tensor of any shape (flattened)."""
    if isinstance(values, numbers.Integral) and not isinstance(values, bool):
        values = [int(values)]
    elif isinstance(values, torch.Tensor):
        values = values.flatten()
    elif isinstance(values, (list, tuple, range)):
        values = list(values)
    return check_token_ids(values, rows, ranks=(1, 2), name=name).flatten().tolist()


def plot_gradient_heatmaps(matrices, titles, *, inputs=(), targets=(), suptitle: str = ""):
    """Gradient matrices side by side, each with the norm of its rows drawn beside it.

    The heatmaps share one *linear* colour scale centred on zero, so a strong row looks strong and a weak one
    pale. To the right of each, in the same axes, a bar per row gives its norm on a shared *logarithmic* scale:
    a row that a linear scale shows as white still has a bar, and only an exactly zero row has none (it is
    marked 0). Rows of the ``inputs`` tokens are outlined; the bars of the ``targets`` rows are red; tick labels
    mark inputs (``in``) and targets (``tgt``).
    """
    return GradientHeatmaps(matrices, titles, inputs=inputs, targets=targets, suptitle=suptitle).figure


class GradientHeatmaps:
    """The figure of :func:`plot_gradient_heatmaps`, kept so one axes can show another matrix of the same shape
    (one whose entries and row norms lie within the range of those it was built with)."""

    def __init__(self, matrices, titles, *, inputs=(), targets=(), suptitle: str = ""):
        matrices = _check_matrices(matrices, titles)
        check_text(suptitle, "suptitle")
        rows, width = self.shape = matrices[0].shape
        inputs = sorted(set(_marked_rows(inputs, rows, "inputs")))
        self.targets = set(_marked_rows(targets, rows, "targets"))
        self.limit = max(float(m.abs().max()) for m in matrices) or 1.0
        positive = torch.cat([n[n > 0] for n in (m.norm(dim=1) for m in matrices)])
        high = float(positive.max()) * 2 if len(positive) else 1.0
        floor = min(float(positive.min()) * 0.5 if len(positive) else high, high / 60)  # over a decade shown
        self.floor, self.high = max(floor, high * 1e-6), high                           # at most six decades
        self.start, length = width - 0.5 + 0.15 * width, 0.9 * width  # where the bars sit, in heatmap columns
        self.length = length
        decades = [10.0 ** k for k in range(math.ceil(math.log10(self.floor)), math.floor(math.log10(high)) + 1)]
        n = len(matrices)
        self.figure, axes = new_figure(1, n, size=(min(3.6 * n + 0.9, 40.0), 3.9),
                                       margins=dict(left=0.08, right=0.88, bottom=0.13,
                                                    top=0.78 if suptitle else 0.86, wspace=0.1))
        self.axes = list(axes) if n > 1 else [axes]
        self._images, self._bars, self._zeros = [], [], []
        for index, (ax, title) in enumerate(zip(self.axes, titles, strict=True)):
            self._images.append(ax.imshow(torch.zeros(rows, width).numpy(), cmap="RdBu_r", vmin=-self.limit,
                                          vmax=self.limit, aspect="auto", interpolation="nearest"))
            for row in inputs:
                ax.add_patch(Rectangle((-0.5, row - 0.5), width, 1, fill=False, edgecolor="black", linewidth=1.5))
            self._bars.append(ax.hlines([], self.start, [], linewidth=min(9.0, 170 / rows)))  # one artist per axes
            self._zeros.append(ax.plot([], [], linestyle="none", marker="$0$", markersize=5, color="0.35")[0])
            ax.axvline(width - 0.5 + 0.075 * width, color="0.8", linewidth=0.8)
            ax.set_xlim(-0.5, self.start + length)
            ax.set_ylim(rows - 0.5, -0.5)
            ax.set_xticks([self._bar_x(v) for v in decades], [f"{v:g}" for v in decades], fontsize=7)
            ax.set_xlabel(tr("dimensions  |  row norm (log scale)"), fontsize=8)
            ax.set_title(title, fontsize=10, y=1.0)   # placed, not auto-placed: drawn alone it stays there
            if index == 0:
                # label a few rows plus every marked one (each tick label costs render time)
                shown = sorted({0, rows - 1, *range(0, rows, max(5, -(-rows // 10))), *inputs, *self.targets})
                is_in, is_target = tr(" in"), tr(" tgt")
                marks = [f"{i}{is_in if i in inputs else ''}{is_target if i in self.targets else ''}" for i in shown]
                ax.set_yticks(shown, marks, fontsize=7)
                ax.set_ylabel(tr("row (token id)"))
            else:
                ax.set_yticks([])
            self.show(index, matrices[index])
        if suptitle:
            self.figure.suptitle(suptitle, fontsize=10.5)
        colorbar = self.figure.colorbar(self._images[0], ax=self.axes, shrink=0.85, pad=0.02, fraction=0.025)
        colorbar.set_label(tr("gradient (linear scale)"), fontsize=8)
        colorbar.ax.tick_params(labelsize=7)

    def _bar_x(self, value: float) -> float:
        """A norm -> its bar's end, on the log scale."""
        return self.start + self.length * (math.log10(max(value, self.floor)) - math.log10(self.floor)) / (
            math.log10(self.high / self.floor))

    def show(self, index: int, matrix: torch.Tensor, title: str | None = None) -> None:
        """Show ``matrix`` (the frame's shape, within its scale) in axes ``index``: heatmap, bars, 0 marks."""
        matrix = matrix.detach().double()
        if tuple(matrix.shape) != tuple(self.shape):
            raise ValueError(tr("this figure shows {shape} matrices; got {got}", shape=tuple(self.shape),
                                got=tuple(matrix.shape)))
        rows = self.shape[0]
        self._images[index].set_data(matrix.numpy())
        values = matrix.norm(dim=1).tolist()
        drawn = [row for row in range(rows) if values[row] > 0]
        self._bars[index].set_segments([[(self.start, row), (self._bar_x(values[row]), row)] for row in drawn])
        self._bars[index].set_colors(["tab:red" if row in self.targets else "0.55" for row in drawn] or "0.55")
        zero = [row for row in range(rows) if values[row] == 0] if rows <= 40 else []  # no bar: marked 0
        self._zeros[index].set_data([self.start + 0.3] * len(zero), zero)
        if title is not None:
            self.axes[index].set_title(check_text(title, "title"), fontsize=10, y=1.0)

    def artists_of(self, index: int) -> list:
        """What axes ``index`` draws besides its axis ticks and labels, in the order it draws them (for
        ``LiveFigure.changing``: the heatmap, its outlines, bars, 0 marks, spines and title)."""
        ax = self.axes[index]
        children = [a for a in ax.get_children() if a is not ax.patch and not isinstance(a, Axis)]
        return sorted(children, key=lambda artist: artist.get_zorder())
