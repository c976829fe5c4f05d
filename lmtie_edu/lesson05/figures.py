"""Lesson 05 — the figures and the retraining panel of the tied-autoencoder lesson.

The panel retrains with a training function: the lesson passes its own ``train_seeds`` (the cell); the
default is the identical copy in :mod:`lmtie_edu.lesson05.model`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence

import ipywidgets as widgets
import numpy as np
import torch
from matplotlib.axes import Axes

from lmtie_edu.kit.panels import PanelResult, TiePanel
from lmtie_edu.kit.plotting import new_figure
from lmtie_edu.shared.language import N_, tr
from lmtie_edu.shared.models import count_parameters
from lmtie_edu.shared.validation import check_choice, check_positive_int

from . import experiment as ae
from . import model as autoencoder_model

SHOWN_DIGITS = 8  # test images shown in the panel's reconstructions
FLOOR_ZERO = 1e-9  # a PCA floor below this is rounding noise of an exact reconstruction (k near 64)
MAX_GAP, MAX_MONTAGE = 16, 10_000_000  # pixels between digits; cells of one montage (80 MB of float64)


def _check_axes(ax) -> Axes:
    if not isinstance(ax, Axes):
        raise TypeError(tr("ax must be a matplotlib Axes (e.g. from new_figure()); got {type}", type=type(ax).__name__))
    return ax


def digit_montage(rows: Sequence[torch.Tensor], gap: int = 1) -> np.ndarray:
    """Tile rows of 8×8 images into one array (one imshow: fast to draw), NaN in the gaps."""
    if isinstance(rows, torch.Tensor) or not isinstance(rows, Sequence) or not rows:
        raise TypeError(tr("rows must be a non-empty list of (n, 64) tensors, one per row of the montage"))
    rows = [np.asarray(ae.check_images(r.detach() if isinstance(r, torch.Tensor) else r, f"rows[{i}]"),
                       dtype=float).reshape(-1, 8, 8) for i, r in enumerate(rows)]
    gap = check_positive_int(gap, "gap", minimum=0)
    if gap > MAX_GAP:
        raise ValueError(tr("gap must be an integer in [0, {limit}] (pixels between two 8×8 digits); got {gap:,}",
                            limit=MAX_GAP, gap=gap))
    n_rows, n_cols = len(rows), max(len(r) for r in rows)
    if n_rows * (8 + gap) * n_cols * (8 + gap) > MAX_MONTAGE:
        raise ValueError(tr("a montage of {rows} rows × {cols} digits is too large to draw (more than "
                            "{limit:,} pixels); show fewer digits", rows=n_rows, cols=n_cols, limit=MAX_MONTAGE))
    out = np.full((n_rows * (8 + gap) - gap, n_cols * (8 + gap) - gap), np.nan)
    for i, images in enumerate(rows):
        for j, image in enumerate(images):
            out[i * (8 + gap):i * (8 + gap) + 8, j * (8 + gap):j * (8 + gap) + 8] = image
    return out


def normalised_rows(weight: torch.Tensor) -> torch.Tensor:
    """Each row divided by its largest absolute value, so filters of different sizes share one colour scale."""
    w = ae.check_images(weight.detach() if isinstance(weight, torch.Tensor) else weight, "weight", None)
    return w / w.abs().amax(dim=1, keepdim=True).clamp_min(1e-12)


def _check_marked(marked) -> np.ndarray | None:
    if marked is None:
        return None
    mask = np.asarray(marked.detach() if isinstance(marked, torch.Tensor) else marked)
    if mask.dtype != bool or mask.shape != (ae.N_PIXELS,):
        raise TypeError(tr("marked must be a boolean mask of the {pixels} pixels, shape ({pixels},); "
                           "got dtype {dtype} and shape {shape}", pixels=ae.N_PIXELS, dtype=mask.dtype,
                           shape=mask.shape))
    return mask


def draw_digits(ax, rows: Sequence[torch.Tensor], *, title: str = "", row_labels: Sequence[str] = (),
                symmetric: bool = False, marked=None):
    """Rows of digits (or filters, with ``symmetric=True``) as one image; ``marked`` (a (64,) boolean mask)
    puts a small grey dot on those pixels of every tile. ``row_labels`` are shown in the lesson's language."""
    _check_axes(ax)
    mask = _check_marked(marked)
    montage = digit_montage(rows)
    if symmetric:
        limit = float(np.nanmax(np.abs(montage))) or 1.0
        ax.imshow(montage, cmap="RdBu_r", vmin=-limit, vmax=limit, interpolation="nearest")
    else:
        ax.imshow(montage, cmap="gray_r", vmin=0, vmax=1, interpolation="nearest")
    if mask is not None:
        rows_at, cols_at = np.nonzero(mask.reshape(8, 8))
        limits = ax.get_xlim(), ax.get_ylim()
        for i, images in enumerate(rows):
            for j in range(len(images)):
                ax.plot(cols_at + 9 * j, rows_at + 9 * i, ".", color="0.45", ms=2.5)
        ax.set_xlim(*limits[0])
        ax.set_ylim(*limits[1])
    ax.set_xticks([])
    # in the lesson's language: a label a cell wrote in English ("input") is translated where the catalogue has it
    ax.set_yticks([4 + 9 * i for i in range(len(row_labels))], [tr(label) for label in row_labels], fontsize=8)
    ax.set_title(title, fontsize=10)
    for spine in ax.spines.values():
        spine.set_visible(False)


def draw_curves(ax, runs: Sequence[ae.Run], *, label: str, color: str, floor: float | None = None):
    """Held-out MSE against steps, one line per seed (log scale)."""
    _check_axes(ax)
    runs = ae.check_runs(runs)
    for i, run in enumerate(runs):
        ax.plot(run.steps, run.test_mse, color=color, alpha=0.8, lw=1.2, label=label if i == 0 else None)
    if floor is not None:
        ax.axhline(floor, color="black", ls="--", lw=1, label=tr("PCA floor (held-out)"))
    ax.set_yscale("log")
    ax.set_xlabel(tr("training step"))
    ax.set_ylabel(tr("held-out MSE per pixel"))
    ax.legend(fontsize=8)


def draw_error_bars(ax, entries: Sequence[tuple[str, Sequence[ae.Run], str]], *, floor: float | None = None):
    """Bars of held-out MSE mean ± std over seeds, each seed as a dot; optional PCA floor line."""
    _check_axes(ax)
    if isinstance(entries, (str, bytes)) or not isinstance(entries, Sequence) or not entries or not all(
            isinstance(e, (tuple, list)) and len(e) == 3 for e in entries):
        raise TypeError(tr("entries must be a list of (label, runs, colour) triples; got {entries!r:.80}",
                           entries=entries))
    for i, (_label, runs, color) in enumerate(entries):
        mean, std = ae.summarise(runs)
        ax.bar(i, mean, yerr=std, color=color, alpha=0.6, capsize=6)
        ax.plot([i] * len(runs), [r.final_test_mse for r in runs], "k.", ms=4)
    ax.set_xticks(range(len(entries)), [label for label, _, _ in entries], fontsize=8)
    if floor is not None:
        ax.axhline(floor, color="black", ls="--", lw=1, label=tr("PCA floor"))
        ax.legend(fontsize=8)
    ax.set_ylabel(tr("held-out MSE per pixel"))


def _significant(value: float, digits: int = 3) -> str:
    """``digits`` significant digits, as text: a trained float32 error differs in later digits across CPUs."""
    return f"{value:#.{digits}g}"


def autoencoder_figure(tie: bool = True, hidden: int = 16, activation: str = "sigmoid", output: str = "linear",
                       seeds: Sequence[int] = ae.PANEL_SEEDS, train: Callable | None = None) -> PanelResult:
    """Retrain the chosen configuration once per seed with ``train`` (nothing cached) and draw what came out."""
    hidden = check_positive_int(hidden, "hidden")
    if hidden > ae.N_PIXELS:
        raise ValueError(tr("hidden must be at most {pixels} (the number of pixels); got {hidden}",
                            pixels=ae.N_PIXELS, hidden=hidden))
    check_choice(activation, "activation", ae.ACTIVATIONS)
    check_choice(output, "output", ae.OUTPUTS)
    train = autoencoder_model.train_seeds if train is None else train  # the copy of the lesson's cell by default
    data = ae.load_digits_split()
    runs = ae.check_runs(train(hidden, tie=tie, activation=activation, output=output, seeds=seeds, data=data),
                         what=N_("train(...) must return"))
    floor = ae.pca_mse(data.train, data.test, hidden)
    mean, std = ae.summarise(runs)
    name = (tr("tied {activation}, h={hidden}", activation=activation, hidden=hidden) if tie
            else tr("untied {activation}, h={hidden}", activation=activation, hidden=hidden)) \
        + (tr(", sigmoid out") if output == "sigmoid" else "")
    color = "tab:blue" if tie else "tab:orange"
    fig, (bars, curves, recon) = new_figure(1, 3, size=(11.0, 3.4))
    # fixed positions (no layout engine: a redraw renders once): narrow bars, wide reconstructions
    for ax, box in ((bars, [0.07, 0.2, 0.13, 0.68]), (curves, [0.29, 0.14, 0.30, 0.74]), (recon, [0.68, 0.08, 0.31, 0.8])):
        ax.set_position(box)
    draw_error_bars(bars, [(name.replace(", ", "\n"), runs, color)])
    bars.bar(1, floor, color="gray", alpha=0.6)
    bars.set_xticks([0, 1], [name.replace(", ", "\n"), tr("PCA\nk={hidden}", hidden=hidden)], fontsize=7)
    exact = floor < FLOOR_ZERO  # k = h components (almost) reconstruct every pixel: no ratio to show
    bars.set_title(tr("held-out MSE, {count} seeds:\n", count=len(runs)) + (tr("the PCA floor is 0") if exact else
                   tr("{ratio:.2f}× the PCA floor", ratio=mean / floor)), fontsize=10)
    draw_curves(curves, runs, label=name, color=color, floor=None if exact else floor)
    curves.set_title(tr("learning curves (one line per seed)"), fontsize=10)
    shown = data.test[:SHOWN_DIGITS]
    with torch.no_grad():
        recon_rows = [shown, runs[0].model(shown).clamp(0, 1), ae.pca_reconstruct(data.train, shown, hidden).clamp(0, 1)]
    draw_digits(recon, recon_rows, title=tr("test digits and reconstructions (seed 0)"),
                row_labels=[tr("input"), tr("autoencoder"), tr("PCA k={hidden}", hidden=hidden)])
    return PanelResult(fig, {
        N_("seeds"): str(list(seeds)),
        N_("held-out MSE mean"): _significant(mean),
        N_("held-out MSE std"): _significant(std, 2),
        N_("PCA floor (held-out)"): _significant(floor),
        N_("mean / PCA"): tr("— (the PCA floor is 0)") if exact else _significant(mean / floor),
        N_("parameters"): count_parameters(runs[0].model),
    })


def autoencoder_panel(tie: bool = True, hidden: int = 16, activation: str = "sigmoid", output: str = "linear",
                      train: Callable | None = None) -> TiePanel:
    """Widget: tie toggle, hidden size, code activation, output; every change retrains 3 seeds from scratch
    with ``train`` (the lesson passes its own ``train_seeds``)."""
    if train is not None and not callable(train):
        raise TypeError(tr("train must be a training function like train_seeds; got {type}", type=type(train).__name__))
    controls = {
        "hidden": widgets.IntSlider(min=2, max=ae.N_PIXELS, step=1, description=tr("hidden h"),
                                     continuous_update=False),
        "activation": widgets.Dropdown(options=list(ae.ACTIVATIONS), description=tr("activation")),
        "output": widgets.Dropdown(options=list(ae.OUTPUTS), description=tr("output")),
    }  # their starting values: `values=` below, checked like set()
    return TiePanel(functools.partial(autoencoder_figure, train=train), controls=controls, tie=tie,
                    values={"hidden": hidden, "activation": activation, "output": output},
                    title=N_("Tied (W, Wᵀ) or untied autoencoder on 8×8 digits — every change retrains 3 seeds"))


def comparison_figure(runs: dict, *, floor: float, colors: dict, codes: Sequence[str] = ("linear", "relu", "sigmoid")):
    """§4's figure: held-out MSE bars for every (code, tie) run group, then one learning-curve panel per code."""
    if not isinstance(runs, dict) or not runs:
        raise TypeError(tr("runs must be a dict {{(activation, tie): runs}}; got {type}", type=type(runs).__name__))
    # the bars' panel wider: its six two-line labels ("untied\nsigmoid") would touch each other
    fig, axes = new_figure(1, 1 + len(codes), size=(13.0, 3.4), layout="constrained",
                           width_ratios=[1.45] + [1] * len(codes))
    entries = [(tr("tied\n{activation}", activation=activation) if tie else tr("untied\n{activation}", activation=activation),
                group, colors[tie])
               for (activation, tie), group in runs.items()]
    draw_error_bars(axes[0], entries, floor=floor)
    axes[0].set_title(tr("held-out MSE, mean ± std (dots: seeds)"), fontsize=10)
    axes[0].tick_params(axis="x", labelsize=7)
    for ax, activation in zip(axes[1:], codes, strict=True):
        for tie in (True, False):
            draw_curves(ax, runs[(activation, tie)], label=tr("tied") if tie else tr("untied"), color=colors[tie],
                        floor=floor if tie else None)
        ax.set_title(tr("{activation} code: learning curves", activation=activation), fontsize=10)
    fig.suptitle(tr("on average tied (blue) ends below untied (orange) for every code; no model reaches the PCA floor "
                    "(dashed)"), fontsize=11)
    return fig
