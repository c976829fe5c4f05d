"""Lesson 02's drawing parts: token arrows and labelled bars, built once and updated in place (a panel's
LiveFigure redraws only their ``artists``); :mod:`lmtie_edu.lesson02.figures` puts them together."""

from __future__ import annotations

import math

import torch

__all__ = ["BLUE", "GREEN", "GREY", "RED", "Arrows", "Bars", "arrow_limits", "draw_arrows", "draw_bars"]

RED, BLUE, GREEN, GREY = "#cc3311", "#4477aa", "#228833", "#bbbbbb"


def arrow_limits(heads, h=None) -> tuple[tuple, tuple, int]:
    """The arrows' frame: (xlim, ylim, tick step) that show every row of every matrix in ``heads`` and ``h``,
    with room for the labels beyond the tips."""
    W = torch.cat([head.detach() for head in heads])
    extent = float(W.abs().max())
    if h is not None:
        extent = max(extent, float(h.abs().max()))
    extent = 1.15 * extent + 0.3
    xs = W[:, 0].tolist() + ([float(h[0])] if h is not None else []) + [0.0]
    ys = W[:, 1].tolist() + ([float(h[1])] if h is not None else []) + [0.0]
    pad = 0.12 * extent + 0.25  # room for the labels beyond the tips
    return (min(xs) - pad, max(xs) + pad), (min(ys) - pad, max(ys) + pad), 2 if extent > 2 else 1


class Arrows:
    """Token vectors as arrows from the origin, each labelled just beyond its tip (along its direction, so
    arrows that point different ways get labels apart), plus the hidden state ``h`` in black. Built once,
    :meth:`update` moves them; :attr:`artists` are what a state changes, in drawing order."""

    def __init__(self, ax, labels, *, with_h: bool = True, color=BLUE):
        self.ax, self.labels, self.color = ax, labels, color
        zeros = [0.0] * len(labels)
        # one quiver artist for all arrows: much cheaper to render than one annotation per arrow
        self.tokens = ax.quiver(zeros, zeros, zeros, zeros, color=color, angles="xy", scale_units="xy", scale=1,
                                width=0.008, zorder=3)
        self.names = [ax.text(0.0, 0.0, label, fontsize=8, ha="center", va="center") for label in labels]
        self.h = ax.quiver([0.0], [0.0], [0.0], [0.0], color="black", angles="xy", scale_units="xy", scale=1,
                           width=0.011, zorder=4, visible=with_h)
        self.h_name = ax.text(0.0, 0.0, "h", fontsize=11, fontweight="bold", ha="center", va="center", visible=False)
        self.artists = [self.tokens, *self.names, self.h_name, self.h]
        ax.axhline(0, color=GREY, linewidth=0.6)
        ax.axvline(0, color=GREY, linewidth=0.6)
        ax.set_aspect("equal")

    def set_frame(self, frame) -> None:
        (x_low, x_high), (y_low, y_high), step = frame
        self.ax.set_xticks(range(-step * 10, step * 11, step))
        self.ax.set_yticks(range(-step * 10, step * 11, step))
        self.ax.set_xlim(x_low, x_high)
        self.ax.set_ylim(y_low, y_high)

    def update(self, W, h=None, *, highlight=()) -> None:
        points = W.detach().tolist()
        self.tokens.set_UVC([p[0] for p in points], [p[1] for p in points])
        self.tokens.set_color([RED if i in highlight else self.color for i in range(len(points))])
        for i, ((x, y), name) in enumerate(zip(points, self.names, strict=True)):
            length = math.hypot(x, y) or 1.0
            name.set_position((x + 0.3 * x / length, y + 0.3 * y / length))
            name.set_fontweight("bold" if i in highlight else "normal")
        self.h_name.set_visible(False)
        if h is None:
            return
        hx, hy = h.tolist()
        self.h.set_UVC([hx], [hy])
        # label h beside the middle of its shaft, on the side away from the token arrow nearest in angle
        length = math.hypot(hx, hy)
        side = 1.0
        if points:
            nearest = max(points, key=lambda p: (p[0] * hx + p[1] * hy) / ((math.hypot(*p) or 1.0) * (length or 1.0)))
            side = -1.0 if (hx * nearest[1] - hy * nearest[0]) > 0 else 1.0   # the nearest arrow is to the left
        if length > 0.05:  # a zero h is a dot at the origin: no label on top of it
            self.h_name.set_position((0.55 * hx - side * 0.3 * hy / length, 0.55 * hy + side * 0.3 * hx / length))
            self.h_name.set_visible(True)


def draw_arrows(ax, W, labels, h=None, *, highlight=(), color=BLUE) -> Arrows:
    """Token vectors as arrows from the origin, labelled, plus the hidden state ``h`` (see :class:`Arrows`)."""
    arrows = Arrows(ax, labels[:W.shape[0]], with_h=h is not None, color=color)
    arrows.set_frame(arrow_limits([W], h))
    arrows.update(W, h, highlight=highlight)
    return arrows


class Bars:
    """Horizontal bars, each labelled at its end with the token and the value (no axis ticks: a tick label
    costs more to render than a text, and widget redraws must stay fast). :meth:`update` sets the values and
    the x range; :attr:`artists` (bars, zero line, spines, labels) are what a state changes."""

    def __init__(self, ax, labels, *, title: str, fmt: str = "{:.2f}"):
        self.ax, self.labels, self.fmt = ax, labels, fmt
        self.bars = list(ax.barh(range(len(labels)), [0.0] * len(labels), color=BLUE))
        ax.set_yticks([])
        ax.set_xticks([])
        ax.set_ylim(len(labels) - 0.5, -0.5)  # first token on top
        self.zero = ax.axvline(0, color="#888888", linewidth=0.6)
        ax.set_title(title, fontsize=10)
        self.texts = [ax.text(0.0, i, "", va="center", fontsize=8) for i in range(len(labels))]
        self.artists = [*self.bars, self.zero, *ax.spines.values(), *self.texts]

    def update(self, values, *, highlight: int | None = None, xlim=None) -> None:
        values = [float(v) for v in values]
        for i, (v, bar, text) in enumerate(zip(values, self.bars, self.texts, strict=True)):
            bar.set_width(v)
            bar.set_facecolor(RED if i == highlight else BLUE)
            text.set_x(v)
            text.set_text(f" {self.labels[i]} {self.fmt.format(v)} " if v >= 0 else
                          f" {self.fmt.format(v)} {self.labels[i]} ")
            text.set_horizontalalignment("left" if v >= 0 else "right")
            text.set_fontweight("bold" if i == highlight else "normal")
        if xlim is None:
            low, high = min(values + [0.0]), max(values + [0.0])
            pad = 0.6 * (high - low or 1.0)
            xlim = (low - (pad if low < 0 else 0), high + pad)
        self.ax.set_xlim(*xlim)


def draw_bars(ax, values, labels, *, title: str, highlight: int | None = None, fmt: str = "{:.2f}") -> Bars:
    """Horizontal bars labelled with the token and the value (see :class:`Bars`)."""
    bars = Bars(ax, list(labels), title=title, fmt=fmt)
    bars.update(values, highlight=highlight)
    return bars
