"""Lesson 03's figures and its panel: where one example's gradient lands, and which rows learn per step.

Everything here only draws (or prepares the small trained model the panel draws from); the
experiments themselves are written out in the lesson's cells and in :mod:`lmtie_edu.lesson03.gradients`.
"""

from __future__ import annotations

import copy
import functools
import numbers

import ipywidgets as widgets
import torch
from matplotlib.colors import SymLogNorm
from matplotlib.patches import Rectangle
from matplotlib.ticker import FuncFormatter

from lmtie_edu.kit.panels import PanelResult, TiePanel
from lmtie_edu.kit.plotting import new_figure
from lmtie_edu.shared.models import TinyLM
from lmtie_edu.shared.seeding import seeded
from lmtie_edu.shared.toy_corpus import BOS, EOS, ZipfCorpus, zipf_corpus
from lmtie_edu.shared.training import train
from lmtie_edu.shared.validation import check_bool, check_token_ids, plain_number

from .gradients import gradient_parts, rows_touched

PANEL_VOCAB, PANEL_D = 16, 8
MAX_MATRICES = 12        # side by side, 3.3 inches each: a figure at most 40 inches wide
MAX_ENTRIES = 4_000_000  # per matrix: a heatmap shows no more (and drawing more takes long)
LINEAR_FRACTION = 3e-3  # symmetric-log colours: linear below 0.3 % of the largest |value|, logarithmic above


def demo_model() -> TinyLM:
    """The panel's model: a tied TinyLM (V=16, d=8) trained 150 Adam steps on a Zipf corpus, so its
    softmax is not flat. Seeded inside (the learner's random state is left alone). Trained once; each call
    returns a copy of its own (still tied), so changing it changes neither the next call's model nor the panel."""
    return copy.deepcopy(_trained_demo())


@functools.lru_cache(maxsize=1)
def _trained_demo() -> TinyLM:
    with seeded(0):
        model = TinyLM(PANEL_VOCAB, PANEL_D, context=2, tie=True)
    corpus = zipf_corpus(400, PANEL_VOCAB, seed=1)
    train(model, corpus.inputs, corpus.targets, steps=150, batch_size=32, lr=1e-2, seed=0, show_progress=False)
    return model


def _check_text(value, name: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{name} must be text (a str); got {value!r:.80}")
    return value


def _check_matrices(matrices, titles) -> list[torch.Tensor]:
    if isinstance(matrices, torch.Tensor) or not isinstance(matrices, (list, tuple)) or not matrices:
        raise TypeError("matrices must be a non-empty list of (rows, cols) tensors, one per panel")
    if len(matrices) > MAX_MATRICES:
        raise ValueError(f"plot_gradient_heatmaps draws at most {MAX_MATRICES} matrices side by side (a figure at "
                         f"most 40 inches wide); got {len(matrices)} — split them over several figures")
    if isinstance(titles, str) or not isinstance(titles, (list, tuple)) or len(titles) != len(matrices):
        error = ValueError if isinstance(titles, (list, tuple)) else TypeError
        raise error(f"titles must be a list of {len(matrices)} strings, one per matrix; got {titles!r:.80}")
    for index, title in enumerate(titles):
        _check_text(title, f"titles[{index}]")
    checked = []
    for index, matrix in enumerate(matrices):
        name = f"matrices[{index}]"
        if not isinstance(matrix, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor (rows, cols); got {type(matrix).__name__}")
        if matrix.is_meta or matrix.dim() != 2 or not matrix.numel():
            raise ValueError(f"{name} must be a non-empty 2-D tensor with values (not meta); got shape "
                             f"{tuple(matrix.shape)}{' on the meta device' if matrix.is_meta else ''}")
        if matrix.dtype == torch.bool or matrix.is_complex():
            raise TypeError(f"{name} must hold real numbers (a gradient); got dtype {matrix.dtype}")
        if matrix.numel() > MAX_ENTRIES:
            raise ValueError(f"{name} must have at most {MAX_ENTRIES:,} entries (a heatmap cannot show more, and "
                             f"drawing them takes long); got {tuple(matrix.shape)} = {matrix.numel():,}")
        if matrix.shape != matrices[0].shape:
            raise ValueError(f"all matrices must have one shape; {name} is {tuple(matrix.shape)}, "
                             f"matrices[0] is {tuple(matrices[0].shape)}")
        matrix = matrix.detach().to_dense().double()
        if not bool(torch.isfinite(matrix).all()):
            raise ValueError(f"{name} contains NaN or inf")
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
    """Gradient matrices side by side on one symmetric-log colour scale centred on zero.

    A linear scale makes a row with 1 % of the largest value look white; on a symmetric-log scale
    every non-zero row is coloured and only exact zeros stay white. Rows of the ``inputs`` tokens
    are outlined; tick labels mark inputs (``in``) and targets (``tgt``).
    """
    matrices = _check_matrices(matrices, titles)
    _check_text(suptitle, "suptitle")
    rows, width = matrices[0].shape
    inputs = sorted(set(_marked_rows(inputs, rows, "inputs")))
    targets = set(_marked_rows(targets, rows, "targets"))
    limit = max(float(m.abs().max()) for m in matrices) or 1.0
    norm = SymLogNorm(linthresh=limit * LINEAR_FRACTION, linscale=0.5, vmin=-limit, vmax=limit, base=10)
    fig, axes = new_figure(1, len(matrices), size=(min(3.3 * len(matrices) + 0.9, 40.0), 3.8),
                           margins=dict(left=0.08, right=0.86, bottom=0.1, top=0.8 if suptitle else 0.88,
                                        wspace=0.12))
    axes = list(axes) if len(matrices) > 1 else [axes]
    for index, (ax, matrix, title) in enumerate(zip(axes, matrices, titles, strict=True)):
        image = ax.imshow(matrix.numpy(), cmap="RdBu_r", norm=norm, aspect="auto", interpolation="nearest")
        for row in inputs:
            ax.add_patch(Rectangle((-0.5, row - 0.5), width, 1, fill=False, edgecolor="black", linewidth=1.5))
        ax.set_title(title, fontsize=10)
        ax.set_xlabel("dimension")
        ax.set_xticks([])
        if index == 0:
            # label a few rows plus every marked one (each tick label costs render time)
            shown = sorted({0, rows - 1, *range(0, rows, max(5, -(-rows // 10))), *inputs, *targets})
            marks = [f"{i}{' in' if i in inputs else ''}{' tgt' if i in targets else ''}" for i in shown]
            ax.set_yticks(shown, marks, fontsize=7)
            ax.set_ylabel("row (token id)")
        else:
            ax.set_yticks([])
    if suptitle:
        fig.suptitle(suptitle, fontsize=10.5)
    colorbar = fig.colorbar(image, ax=axes, shrink=0.85, pad=0.03)
    ticks = [-limit, -limit / 10, -limit / 100, 0.0, limit / 100, limit / 10, limit]
    colorbar.set_ticks(ticks, labels=[f"{t:.1g}" if t else "0" for t in ticks])
    colorbar.set_label("gradient (symmetric log scale)", fontsize=8)
    return fig


def update_frequency_figure(corpus: ZipfCorpus, untied_input, untied_output, tied):
    """Share of steps in which each row received a gradient, tokens ranked by how often they occur.

    Each argument after ``corpus`` is a (V,) tensor of step counts ÷ steps. The head line and the
    tied line are both 1.0 everywhere: they are drawn one over the other in contrasting styles.
    """
    if not isinstance(corpus, ZipfCorpus):
        raise TypeError(f"corpus must be a ZipfCorpus (from zipf_corpus); got {type(corpus).__name__}")
    lines = {"untied: input rows (embedding.weight)": untied_input,
             "untied: output rows (head.weight)": untied_output,
             "tied: the shared rows — the same 1.0 as the head line": tied}
    for label, fraction in lines.items():
        what = label.split(' —')[0]
        if not isinstance(fraction, torch.Tensor):
            raise TypeError(f"{what}: expected a tensor of shape ({corpus.vocab_size},); got {type(fraction).__name__}")
        if fraction.is_meta or fraction.shape != (corpus.vocab_size,):
            raise ValueError(f"{what}: expected a tensor of shape ({corpus.vocab_size},) with values; got "
                             f"{tuple(fraction.shape)}{' on the meta device' if fraction.is_meta else ''}")
        if fraction.is_complex():
            raise TypeError(f"{what}: shares of steps must be real numbers; got dtype {fraction.dtype}")
        if not bool(((fraction >= 0) & (fraction <= 1)).all()):
            raise ValueError(f"{what}: shares of steps must lie in [0, 1] (no NaN)")
    lines = {label: fraction.detach() for label, fraction in lines.items()}
    untied_input = lines["untied: input rows (embedding.weight)"]
    order = torch.argsort((corpus.as_input + corpus.as_target).double(), descending=True, stable=True)
    ranks = torch.arange(1, len(order) + 1).numpy()
    fig, ax = new_figure(size=(8.6, 4.2), margins=dict(left=0.1, right=0.98, bottom=0.13, top=0.87))
    styles = [dict(color="tab:blue", linewidth=1.6),
              dict(color="tab:orange", linewidth=6, alpha=0.45),
              dict(color="black", linewidth=1.3, linestyle=(0, (4, 3)), marker="o", markersize=2.5, markevery=4)]
    for (label, fraction), style in zip(lines.items(), styles, strict=True):
        ax.plot(ranks, fraction.double()[order].numpy(), label=label, **style)
    position = {int(token): rank for rank, token in enumerate(order.tolist(), start=1)}
    ax.annotate("<eos>: only ever a target,\nits input row gets no gradient", xy=(position[EOS], 0.0),
                xytext=(1.05, 0.12), fontsize=8, arrowprops=dict(arrowstyle="->", color="0.3"),
                bbox=dict(boxstyle="round", facecolor="white", edgecolor="none", alpha=0.85))
    ax.annotate("<bos>: in every sentence's input", xy=(position[BOS], float(untied_input[BOS])),
                xytext=(1.05, 0.6), fontsize=8, arrowprops=dict(arrowstyle="->", color="0.3"),
                bbox=dict(boxstyle="round", facecolor="white", edgecolor="none", alpha=0.85))
    ax.set_xscale("log")
    ax.xaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))
    ax.set_xlabel("token, by frequency rank (1 = most frequent; log scale)")
    ax.set_ylabel("share of steps with a gradient")
    ax.set_ylim(-0.04, 1.5)
    ax.set_yticks([0, 0.2, 0.4, 0.6, 0.8, 1.0])
    ax.legend(fontsize=8, loc="upper right", ncol=1, framealpha=0.95)
    ax.set_title("Untied, a rare token's input row rarely gets a gradient;\n"
                 "every head row and every tied row gets one at every step", fontsize=10)
    return fig


# -- the panel ---------------------------------------------------------------------------------------

def decomposition_figure(first: int = 2, second: int = 3, target: int = 4, tie: bool = True) -> PanelResult:
    """One training example (context ``first, second`` → ``target``): the gradient through the lookup,
    through the head, and what the embedding matrix receives (tied: their sum; untied: lookup only)."""
    first, second, target = (plain_number(v) for v in (first, second, target))
    for name, value in (("first", first), ("second", second), ("target", target)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"{name} must be a token id (int in [0, {PANEL_VOCAB - 1}]); got {value!r}")
        check_token_ids([value], PANEL_VOCAB, ranks=(1,), name=name)
    check_bool(tie, "tie")
    parts = _cached_parts(first, second, target)
    received = parts["tied"] if tie else parts["input_part"]
    titles = ["lookup path: input rows only", "head path: every row",
              "embedding.grad = the sum (tied)" if tie else "embedding.grad = lookup only"]
    fig = plot_gradient_heatmaps((parts["input_part"], parts["output_part"], received), titles,
                                 inputs=(first, second), targets=(target,))
    numbers = {
        "rows touched through the lookup": rows_touched(parts["input_part"]),
        "rows touched through the head": rows_touched(parts["output_part"]),
        "rows of embedding.grad non-zero": rows_touched(received),
        "tied grad == lookup + head (within 1e-6)": parts["max_abs_diff"] < 1e-6,
        "loss": round(parts["loss"], 3),
    }
    return PanelResult(fig, numbers)


@functools.lru_cache(maxsize=256)
def _cached_parts(first: int, second: int, target: int) -> dict:
    return gradient_parts(_trained_demo(), torch.tensor([[first, second]]), torch.tensor([target]))


def decomposition_panel(first: int = 2, second: int = 3, target: int = 4, tie: bool = True) -> TiePanel:
    """Widget: pick two input tokens and a target, toggle tying, watch where the gradient lands."""
    first, second, target = (plain_number(v) for v in (first, second, target))
    for name, value in (("first", first), ("second", second), ("target", target)):
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < PANEL_VOCAB:
            raise ValueError(f"{name} must be a token id in [0, {PANEL_VOCAB - 1}]; got {value!r}")
    check_bool(tie, "tie")
    options = list(range(PANEL_VOCAB))
    controls = {
        name: widgets.Dropdown(options=options, value=value, description=label, layout=widgets.Layout(width="150px"))
        for name, value, label in (("first", first, "input 1"), ("second", second, "input 2"),
                                   ("target", target, "target"))
    }
    return TiePanel(decomposition_figure, controls=controls, tie=tie,
                    title="One example's gradient on the embedding matrix, split by path")
