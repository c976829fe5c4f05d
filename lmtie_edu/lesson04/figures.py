"""Lesson 04 figures: the saved share against model size, the memory of one V×d matrix, the vocabulary law.

Every number drawn is computed in the lesson's cells and passed in: ``rows`` are the counted real
models (dicts with ``name``, ``vocab_size``, ``d_model``, ``ties``, ``tied_total``, ``untied_total``),
``curves`` map a legend label to ``(x, share)`` arrays. These functions only draw.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable, Mapping

import numpy as np
import torch
from matplotlib.patches import Patch

from lmtie_edu.kit.plotting import new_figure
from lmtie_edu.shared.language import tr
from lmtie_edu.shared.validation import check_number

ROW_KEYS = ("name", "vocab_size", "d_model", "ties", "tied_total", "untied_total")


def _check_rows(rows) -> list[Mapping]:
    if isinstance(rows, Mapping) or not isinstance(rows, Iterable) or isinstance(rows, str):
        raise TypeError(tr("rows must be a list of dicts with keys {keys}; got {type}", keys=list(ROW_KEYS),
                           type=type(rows).__name__))
    rows = list(rows)
    if not rows:
        raise ValueError(tr("rows is empty: count at least one model first"))
    checked = []
    for row in rows:
        if not isinstance(row, Mapping) or any(k not in row for k in ROW_KEYS):
            got = sorted(row) if isinstance(row, Mapping) else type(row).__name__
            raise TypeError(tr("each row must be a dict with keys {keys}; got {got}", keys=list(ROW_KEYS), got=got))
        if not isinstance(row["name"], str):
            raise TypeError(tr("each row's name must be a str (the label drawn); got {name!r}", name=row["name"]))
        for key in ROW_KEYS[1:]:
            value = row[key]
            ok = (isinstance(value, (bool, np.bool_)) if key == "ties"
                  else isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_)))
            if not ok or (key != "ties" and value < 1):
                message = (tr("row {name!r}: {key} must be True or False; got {value!r}") if key == "ties"
                           else tr("row {name!r}: {key} must be an integer >= 1; got {value!r}"))
                raise ValueError(message.format(name=row["name"], key=key, value=value))
        if row["untied_total"] <= row["tied_total"]:
            raise ValueError(tr("row {name!r}: the untied total must exceed the tied total (it holds one more V×d "
                                "matrix); got {untied:,} <= {tied:,}", name=row["name"], untied=row["untied_total"],
                                tied=row["tied_total"]))
        # NumPy numbers are fine; the figures compute with Python ones
        checked.append({**row, "ties": bool(row["ties"]), **{k: int(row[k]) for k in ROW_KEYS[1:] if k != "ties"}})
    return checked


def _as_array(values, what: str) -> np.ndarray:
    """Numbers as a float array; a tensor may require grad (it is detached), a meta tensor has no values."""
    if isinstance(values, torch.Tensor):
        if values.is_meta:
            raise ValueError(tr("{what} is a meta tensor (a shape without values); compute it on the CPU", what=what))
        values = values.detach().cpu().double()
    try:
        return np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(tr("{what} must be numeric arrays (a list, array or tensor of numbers)", what=what)) from None


def _check_curves(curves) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    if not isinstance(curves, Mapping) or not curves:
        raise TypeError(tr("curves must be a non-empty dict {{label: (x, share)}}; got {type}",
                           type=type(curves).__name__))
    checked = {}
    for label, pair in curves.items():
        if isinstance(pair, (str, bytes, Mapping)) or not isinstance(pair, Iterable) or len(list(pair)) != 2:
            raise TypeError(tr("curve {label!r} must be a pair (x, share) of numeric arrays", label=label))
        x, share = (_as_array(a, tr("curve {label!r}: {part}", label=label, part=part)) for a, part in zip(pair, ("x", "share"), strict=True))
        if x.ndim != 1 or x.shape != share.shape or x.size < 2:
            raise ValueError(tr("curve {label!r}: x and share must be 1-D arrays of the same length >= 2; got shapes "
                                "{x} and {share}", label=label, x=x.shape, share=share.shape))
        if not (np.isfinite(x).all() and np.isfinite(share).all() and (x > 0).all()):
            raise ValueError(tr("curve {label!r}: x must be positive and every value finite (no NaN or inf)",
                                label=label))
        if ((share <= 0) | (share >= 1)).any():
            raise ValueError(tr("curve {label!r}: a share must lie strictly between 0 and 1", label=label))
        checked[str(label)] = (x, share)
    return checked


def _share_of_tied(row) -> float:
    return row["vocab_size"] * row["d_model"] / row["tied_total"]


def _line_obstacles(ax, to_points: float) -> list[tuple[float, float, float, float]]:
    """Small boxes along every line drawn so far (curves, the law's dashed line), in points: a label placed on
    one of them would be crossed by it."""
    boxes = []
    for line in ax.get_lines():
        xy = np.column_stack(line.get_data()).astype(float)
        xy = xy[np.isfinite(xy).all(axis=1) & (xy > 0).all(axis=1)]
        if len(xy) < 2:
            continue
        display = ax.transData.transform(xy) * to_points
        steps = np.linspace(0, 1, 8)[:, None]  # points between the samples: a steep segment is covered too
        for start, end in zip(display[:-1], display[1:], strict=True):
            for x, y in start + steps * (end - start):
                boxes.append((x - 1.5, y - 1.5, x + 1.5, y + 1.5))
    return boxes


def _label_points(ax, points) -> None:
    """Scatter (x, y, name, ties) points and label each where its text box overlaps no earlier label.

    Text boxes are estimated in points (7-pt font: ~4.1 pt per character, 8 pt high); the candidates are
    right/left of the point, then above/below, in that order; markers, earlier labels and the lines already
    drawn are obstacles (a label crossed by no line is preferred; if every candidate is crossed, the first one
    that overlaps no other label). The layout is computed first, so that the boxes are where they are drawn.
    """
    for x, y, _, ties in points:
        ax.scatter(x, y, color="black" if ties else "white", edgecolor="black", zorder=3, s=28)
    if ax.figure.get_layout_engine() is not None:
        ax.figure.draw_without_rendering()  # constrained layout: place the axes before measuring in them
    to_points = 72 / ax.figure.dpi
    markers = [tuple(v * to_points for v in ax.transData.transform((x, y))) for x, y, _, _ in points]
    placed: list[tuple[float, float, float, float]] = [(mx - 4, my - 4, mx + 4, my + 4) for mx, my in markers]
    lines = _line_obstacles(ax, to_points)

    def overlaps(box, others) -> bool:
        return any(box[0] < b[2] and b[0] < box[2] and box[1] < b[3] and b[1] < box[3] for b in others)

    for x, y, name, _ in sorted(points, key=lambda p: (p[0], p[1])):
        px, py = (v * to_points for v in ax.transData.transform((x, y)))
        width, height = 4.1 * len(name), 8.0
        candidates = [(dx, dy, (px + dx, py + dy, px + dx + width, py + dy + height))
                      for dx, dy in ((4, 2), (4, -10), (-4 - width, 2), (-4 - width, -10), (4, 11), (4, -19),
                                     (-width / 2, 12), (-width / 2, -20))]
        free = [c for c in candidates if not overlaps(c[2], placed)]
        dx, dy, box = next((c for c in free if not overlaps(c[2], lines)), free[0] if free else candidates[0])
        placed.append(box)
        ax.annotate(name, (x, y), textcoords="offset points", xytext=(dx, dy), fontsize=7)


def share_vs_size_figure(rows, curves):
    """Saved share of the *tied* total against the tied total (log), real models as points over curves."""
    rows, curves = _check_rows(rows), _check_curves(curves)
    fig, ax = new_figure(size=(8.0, 4.2), layout="constrained")  # static: crowded labels
    for label, (total, share) in curves.items():
        ax.plot(total, 100 * share, label=label, linewidth=1.4)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_ylim(0.2, 100)
    ax.set_xlabel(tr("parameters of the tied model (log scale)"))
    ax.set_ylabel(tr("V·d as % of the tied total (log scale)"))
    ax.set_title(tr("At a fixed vocabulary the saved share falls fast with size\n"
                    "(filled: ties; open: does not tie, plotted at the share it would save)"), fontsize=10)
    ax.legend(title=tr("GPT-style curves, d / layers = 128"), fontsize=8, title_fontsize=8)
    ax.grid(True, which="major", alpha=0.3)
    # last, so that the labels' boxes are measured in the final layout
    _label_points(ax, [(r["tied_total"], 100 * _share_of_tied(r), r["name"], r["ties"]) for r in rows])
    return fig


def memory_figure(rows):
    """Memory of one V×d matrix per real model, in fp32 and in bf16 (GiB); models that do not tie hatched."""
    rows = _check_rows(rows)
    fig, ax = new_figure(size=(8.0, 3.6), layout="constrained")  # static: crowded labels
    x = np.arange(len(rows))
    hatch = ["" if r["ties"] else "///" for r in rows]
    for offset, dtype, size, colour in ((-0.2, "fp32", 4, "#4C72B0"), (0.2, "bf16", 2, "#DD8452")):
        gib = [size * r["vocab_size"] * r["d_model"] / 2**30 for r in rows]
        ax.bar(x + offset, gib, width=0.4, label=dtype, color=colour, hatch=hatch, edgecolor="white", linewidth=0)
    handles, _ = ax.get_legend_handles_labels()
    handles.append(Patch(facecolor="lightgrey", edgecolor="white", hatch="///", label=tr("hatched: does not tie")))
    ax.set_xticks(x, [r["name"] for r in rows], rotation=35, ha="right", fontsize=8)
    ax.set_ylabel(tr("GiB for one V×d matrix"))
    ax.set_title(tr("Memory of one V×d matrix (weights only), in fp32 and bf16"), fontsize=10)
    ax.legend(handles=handles, fontsize=8)
    return fig


def vocab_law_figure(rows, curves, *, anchor: tuple[float, float, str], dashed: str | None = None):
    """Share of the tied total against N_nv (log–log): fixed vocabularies and a growing one.

    ``anchor`` is ``(N_nv, share, label)``: the point the growing-vocabulary curve was drawn through;
    ``dashed`` names the curve drawn as a black dashed line (the law).
    """
    rows, curves = _check_rows(rows), _check_curves(curves)
    if not (isinstance(anchor, tuple) and len(anchor) == 3):
        raise TypeError(tr("anchor must be a tuple (N_nv, share, label); got {anchor!r}", anchor=anchor))
    n_nv, share, label = anchor
    n_nv = check_number(n_nv, tr("anchor's N_nv"), minimum=0, strict=True, expected=tr("a positive number"))
    share = check_number(share, tr("anchor's share"), minimum=0, maximum=1, strict=True)
    fig, ax = new_figure(size=(8.0, 4.0), layout="constrained")  # static: crowded labels
    for name, (x, y) in curves.items():
        ax.plot(x, 100 * y, label=name, linestyle="--" if name == dashed else "-",
                color="black" if name == dashed else None)
    ax.scatter(n_nv, 100 * share, marker="*", s=120, color="black", zorder=4)
    ax.annotate(str(label), (n_nv, 100 * share), textcoords="offset points", xytext=(-40, -16), fontsize=7)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(2e7, 1e12)
    ax.set_xlabel(tr("non-vocabulary parameters N_nv (log scale)"))
    ax.set_ylabel(tr("V·d as % of the tied total (log)"))
    # The Chinese title writes the law without $…$ (mathtext's fonts have no Chinese glyphs).
    ax.set_title(tr(r"The share falls with size either way; a vocabulary growing as $N_v \propto N_{nv}^{0.83}$"
                    " slows the fall"), fontsize=10)
    ax.legend(fontsize=8)
    ax.grid(True, which="major", alpha=0.3)
    _label_points(ax, [(r["tied_total"] - r["vocab_size"] * r["d_model"], 100 * _share_of_tied(r), r["name"],
                        r["ties"]) for r in rows])  # last: measured in the final layout
    return fig
