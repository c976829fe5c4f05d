"""Lesson 04 — how many parameters does tying save, and what share of the model is that?

Tying the output head to the token embedding removes one V×d matrix: exactly ``V·d`` parameters.
Its *share* depends on the total it is divided by — the tied total or the untied total — so every
function here says which. The exact totals of real architectures come from
:mod:`lmtie_edu.architectures` (built with ``transformers`` on the meta device); this module is
pure arithmetic and figures, and imports nothing heavy.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import ipywidgets as widgets
import numpy as np

from .plotting import new_figure
from .validation import check_bool, check_choice, check_number, check_positive_int
from .widgets import PanelResult, TiePanel

BYTES_PER_ELEMENT = {"fp32": 4, "bf16": 2}
#: Tao et al. 2024 (arXiv:2407.13623): optimal vocabulary parameters N_v ∝ N_nv ** 0.83.
VOCAB_SCALING_EXPONENT = 0.83
#: The vocabulary sizes of the share-vs-size curves: Llama-2, GPT-2, Llama-3, Gemma-like.
CURVE_VOCABS = {"32K": 32_000, "50K": 50_257, "128K": 128_256, "256K": 256_000}
#: Width-to-depth ratio used to turn a model size into (d, layers) on the curves: GPT-3 175B has
#: d = 12288 and 96 layers (d / layers = 128).
D_PER_LAYER = 128


def tying_saving(vocab_size: int, d_model: int) -> int:
    """Parameters removed by tying: one V×d matrix, ``V·d``."""
    return check_positive_int(vocab_size, "vocab_size") * check_positive_int(d_model, "d_model")


def saved_share(vocab_size: int, d_model: int, total: int, *, of: str) -> float:
    """The saving ``V·d`` as a fraction of ``total``, which is the ``"tied"`` or the ``"untied"`` total.

    ``of`` only documents the caller's choice and checks consistency: an untied total must hold
    two V×d matrices, a tied one at least one.
    """
    saving = tying_saving(vocab_size, d_model)
    total = check_positive_int(total, "total")
    check_choice(of, "of", ("tied", "untied"))
    needed = saving * (2 if of == "untied" else 1)
    if total < needed:
        raise ValueError(f"an {of} total must be at least {needed:,} (it contains {needed // saving} V×d "
                         f"matri{'ces' if needed > saving else 'x'}); got total={total:,}")
    return saving / total


@dataclass(frozen=True)
class ModelCount:
    """Exact parameter counts of one architecture, built with its published tie setting and flipped.

    ``ties`` is read from the built model (is the head's weight the embedding's weight?).
    ``flipped_total`` is the count of the same architecture built with the opposite setting; when
    the library refuses to flip (``flipped_by_build=False``) it is ``total ± V·d`` instead.
    """

    name: str
    vocab_size: int
    d_model: int
    ties: bool
    total: int  # sum(p.numel() for p in model.parameters()) — a shared Parameter counted once
    flipped_total: int
    flipped_by_build: bool = True

    @property
    def saving(self) -> int:
        """One V×d matrix: what tying removes."""
        return self.vocab_size * self.d_model

    @property
    def total_tied(self) -> int:
        return self.total if self.ties else self.flipped_total

    @property
    def total_untied(self) -> int:
        return self.flipped_total if self.ties else self.total

    @property
    def share_of_tied(self) -> float:
        return self.saving / self.total_tied

    @property
    def share_of_untied(self) -> float:
        return self.saving / self.total_untied

    @property
    def non_vocab(self) -> int:
        """Parameters outside the V×d token matrix of the tied model (Tao et al.'s N_nv)."""
        return self.total_tied - self.saving


def format_table(counts: Sequence[ModelCount]) -> str:
    """A fixed-width text table of real counts: V, d, ties, totals, V·d and its two shares."""
    header = (f"{'model':<15}{'V':>9}{'d':>6}  {'ties':<5}{'total (as built)':>17}{'V·d':>13}"
              f"{'% of tied':>10}{'% of untied':>12}{'total if flipped':>18}")
    lines = [header, "-" * len(header)]
    for c in counts:
        lines.append(f"{c.name:<15}{c.vocab_size:>9,}{c.d_model:>6}  {'yes' if c.ties else 'no':<5}{c.total:>17,}"
                     f"{c.saving:>13,}{100 * c.share_of_tied:>9.2f}%{100 * c.share_of_untied:>11.2f}%"
                     f"{c.flipped_total:>18,}{'' if c.flipped_by_build else '*'}")
    if not all(c.flipped_by_build for c in counts):
        lines.append("* not buildable with the flipped setting in this transformers version: total ± V·d")
    return "\n".join(lines)


# -- a GPT-2-style parameter formula (what the widget computes) -------------------------------------

def gpt_parameter_breakdown(vocab_size: int, d_model: int, n_layers: int, *, d_ff: int | None = None,
                            n_positions: int = 1024, tie: bool = True) -> dict[str, int]:
    """Parameters of a GPT-2-style decoder, by part (exact for GPT-2; see the lesson for others).

    Per layer: two LayerNorms (scale + bias: 4d), attention with fused Q/K/V (d·3d + 3d) and an
    output projection (d·d + d), an MLP d → d_ff → d with biases (2·d·d_ff + d_ff + d). Plus the
    token table V·d, a learned position table n_positions·d (0 for rotary models), a final
    LayerNorm (2d) and, if untied, a bias-free head V·d.
    """
    V = check_positive_int(vocab_size, "vocab_size")
    d = check_positive_int(d_model, "d_model")
    L = check_positive_int(n_layers, "n_layers")
    d_ff = 4 * d if d_ff is None else check_positive_int(d_ff, "d_ff")
    P = check_positive_int(n_positions, "n_positions", minimum=0)
    check_bool(tie, "tie")
    return {
        "token embedding": V * d,
        "position embedding": P * d,
        "attention": L * (4 * d * d + 4 * d),
        "MLP": L * (2 * d * d_ff + d_ff + d),
        "layer norms": L * 4 * d + 2 * d,
        "output head": 0 if tie else V * d,
    }


def gpt_parameter_count(vocab_size: int, d_model: int, n_layers: int, *, d_ff: int | None = None,
                        n_positions: int = 1024, tie: bool = True) -> int:
    """Total of :func:`gpt_parameter_breakdown`."""
    return sum(gpt_parameter_breakdown(vocab_size, d_model, n_layers, d_ff=d_ff, n_positions=n_positions,
                                       tie=tie).values())


def d_ff_from_ratio(d_model: int, mlp_ratio: float) -> int:
    """MLP width ``round(mlp_ratio · d)`` (GPT-2 uses 4); the ratio must be a positive number."""
    d = check_positive_int(d_model, "d_model")
    check_number(mlp_ratio, "mlp_ratio", minimum=0, strict=True, expected="a positive number (GPT-2 uses 4)")
    return max(1, round(mlp_ratio * d))


# -- curves: the share as a function of size -------------------------------------------------------

def body_parameters(d_model) -> np.ndarray:
    """Non-vocabulary parameters of a GPT-style model of width d with d / layers = 128: 12·L·d²."""
    d = np.asarray(d_model, dtype=float)
    return 12 * (d / D_PER_LAYER) * d**2


def width_for_body(non_vocab) -> np.ndarray:
    """Inverse of :func:`body_parameters`: the width d of a model with ``non_vocab`` body parameters."""
    return (np.asarray(non_vocab, dtype=float) * D_PER_LAYER / 12) ** (1 / 3)


def vocab_parameters_by_law(non_vocab, *, anchor_non_vocab: float, anchor_vocab_params: float,
                            exponent: float = VOCAB_SCALING_EXPONENT) -> np.ndarray:
    """Tao et al.'s N_v ∝ N_nv^γ through one anchor point (the law fixes the slope, not the constant)."""
    return anchor_vocab_params * (np.asarray(non_vocab, dtype=float) / anchor_non_vocab) ** exponent


def matrix_bytes(vocab_size: int, d_model: int, dtype: str = "fp32") -> int:
    """Bytes of one V×d matrix stored in ``dtype`` ("fp32" or "bf16")."""
    check_choice(dtype, "dtype", BYTES_PER_ELEMENT)
    return tying_saving(vocab_size, d_model) * BYTES_PER_ELEMENT[dtype]


def _check_counts(counts) -> list[ModelCount]:
    counts = list(counts)
    if not counts or not all(isinstance(c, ModelCount) for c in counts):
        raise TypeError("counts must be a non-empty list of ModelCount (e.g. architectures.all_counts()); "
                        f"got {[type(c).__name__ for c in counts][:5]}")
    return counts


def _label(ax, counts, x_of, y_of):
    for c in counts:
        ax.scatter(x_of(c), y_of(c), color="black" if c.ties else "white", edgecolor="black", zorder=3, s=28)
        ax.annotate(c.name, (x_of(c), y_of(c)), textcoords="offset points", xytext=(4, 3), fontsize=7)


def share_vs_size_figure(counts: Sequence[ModelCount]):
    """Saved share of the *tied* total vs the tied total (log), real models as points, fixed-V curves."""
    counts = _check_counts(counts)
    fig, ax = new_figure(size=(8.0, 4.2), layout="constrained")  # static: crowded labels
    d = np.geomspace(256, 16384, 200)
    for label, V in CURVE_VOCABS.items():
        total = body_parameters(d) + V * d
        ax.plot(total, 100 * V * d / total, label=f"V = {label}", linewidth=1.4)
    _label(ax, counts, lambda c: c.total_tied, lambda c: 100 * c.share_of_tied)
    ax.set_xscale("log")
    ax.set_xlabel("parameters of the tied model (log scale)")
    ax.set_ylabel("V·d as % of the tied total")
    ax.set_title("What tying saves, by size (filled: ties; open: does not tie, saving if it did)", fontsize=10)
    ax.legend(title=f"GPT-style curves, d/layers = {D_PER_LAYER}", fontsize=8, title_fontsize=8)
    ax.grid(True, which="major", alpha=0.3)
    return fig


def memory_figure(counts: Sequence[ModelCount]):
    """Memory of one V×d matrix per real model, in fp32 and in bf16 (GiB)."""
    counts = _check_counts(counts)
    fig, ax = new_figure(size=(8.0, 3.6), layout="constrained")  # static: crowded labels
    x = np.arange(len(counts))
    for offset, dtype in ((-0.2, "fp32"), (0.2, "bf16")):
        gib = [matrix_bytes(c.vocab_size, c.d_model, dtype) / 2**30 for c in counts]
        ax.bar(x + offset, gib, width=0.4, label=dtype)
    ax.set_xticks(x, [c.name for c in counts], rotation=35, ha="right", fontsize=8)
    ax.set_ylabel("GiB for one V×d matrix")
    ax.set_title("Memory of the matrix that tying removes (weights only)", fontsize=10)
    ax.legend()
    return fig


def vocab_law_figure(counts: Sequence[ModelCount], *, anchor: ModelCount, anchor_vocab: int):
    """Share of the tied total vs N_nv: fixed vocabularies vs vocabularies growing as N_nv^0.83."""
    counts = _check_counts(counts)
    (anchor,) = _check_counts([anchor])
    anchor_vocab = check_positive_int(anchor_vocab, "anchor_vocab")
    fig, ax = new_figure(size=(8.0, 4.0), layout="constrained")  # static: crowded labels
    n_nv = np.geomspace(5e7, 5e11, 200)
    d = width_for_body(n_nv)
    for label in ("32K", "128K"):
        v_params = CURVE_VOCABS[label] * d
        ax.plot(n_nv, 100 * v_params / (n_nv + v_params), label=f"fixed V = {label}")
    law = vocab_parameters_by_law(n_nv, anchor_non_vocab=anchor.non_vocab,
                                  anchor_vocab_params=anchor_vocab * anchor.d_model)
    ax.plot(n_nv, 100 * law / (n_nv + law), color="black", linestyle="--",
            label=f"N_v ∝ N_nv^{VOCAB_SCALING_EXPONENT} (through {anchor.name} at V ≈ {anchor_vocab // 1000}K)")
    anchor_share = anchor_vocab * anchor.d_model / (anchor.non_vocab + anchor_vocab * anchor.d_model)
    ax.scatter(anchor.non_vocab, 100 * anchor_share, marker="*", s=120, color="black", zorder=4)
    ax.annotate(f"{anchor.name} with V = {anchor_vocab:,}", (anchor.non_vocab, 100 * anchor_share),
                textcoords="offset points", xytext=(-60, 8), fontsize=7)
    _label(ax, counts, lambda c: c.non_vocab, lambda c: 100 * c.share_of_tied)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("non-vocabulary parameters N_nv (log scale)")
    ax.set_ylabel("V·d as % of the tied total (log)")
    ax.set_title("If vocabularies grow with the model, the saving shrinks slowly", fontsize=10)
    ax.legend(fontsize=8)
    ax.grid(True, which="major", alpha=0.3)
    return fig


# -- the widget ---------------------------------------------------------------------------------------

PART_COLOURS = {"token embedding": "#4C72B0", "output head": "#DD8452", "position embedding": "#8172B3",
                "attention": "#55A868", "MLP": "#C44E52", "layer norms": "#937860"}


def breakdown_figure(tie: bool = True, vocab_size: int = 50_257, d_model: int = 768, n_layers: int = 12,
                     mlp_ratio: float = 4.0) -> PanelResult:
    """The lesson 04 panel: the parameter breakdown of a GPT-style model, tied or untied."""
    d_ff = d_ff_from_ratio(d_model, mlp_ratio)
    parts = gpt_parameter_breakdown(vocab_size, d_model, n_layers, d_ff=d_ff, tie=tie)
    other = gpt_parameter_breakdown(vocab_size, d_model, n_layers, d_ff=d_ff, tie=not tie)
    tied_parts, untied_parts = (parts, other) if tie else (other, parts)
    tied_total, untied_total = sum(tied_parts.values()), sum(untied_parts.values())
    saving = tying_saving(vocab_size, d_model)
    fig, (left, right) = new_figure(1, 2, size=(9.0, 3.4), margins=dict(left=0.19, right=0.97, wspace=0.32))
    names = list(parts)
    left.barh(names, [parts[n] / 1e6 for n in names], color=[PART_COLOURS[n] for n in names])
    left.invert_yaxis()
    left.set_xlabel("parameters (millions)")
    left.set_title("tied: the head adds nothing" if tie else "untied: the head is a second V×d matrix", fontsize=10)
    for row, totals in enumerate((tied_parts, untied_parts)):
        current = totals is parts  # outline the bar of the current setting
        start = 0.0
        for name in names:
            value = totals[name] / 1e6
            right.barh(row, value, left=start, color=PART_COLOURS[name], edgecolor="black" if current else "none",
                       linewidth=0.8)
            start += value
        right.annotate(f"{start:,.1f}M", (start, row), textcoords="offset points", xytext=(3, -3), fontsize=8)
    right.set_xlim(0, 1.22 * sum(untied_parts.values()) / 1e6)
    right.set_yticks([0, 1], ["tied", "untied"])
    right.invert_yaxis()
    right.set_xlabel("total parameters (millions)")
    right.set_title(f"V·d = {saving / 1e6:.1f}M = {100 * saving / tied_total:.2f}% of the tied total", fontsize=10)
    return PanelResult(fig, {
        "tie": tie,
        "d_ff": d_ff,
        "total (this setting)": sum(parts.values()),
        "tied total": tied_total,
        "untied total": untied_total,
        "saved by tying (V·d)": saving,
        "saved, % of tied total": round(100 * saving / tied_total, 3),
        "saved, % of untied total": round(100 * saving / untied_total, 3),
    })


def breakdown_panel(tie: bool = True) -> TiePanel:
    """Widget: sliders for V, d, layers and MLP ratio of a GPT-style model, plus the tie toggle."""
    style = {"description_width": "initial"}
    controls = {
        "vocab_size": widgets.IntSlider(50_257, min=1_000, max=262_144, step=1, description="V",
                                        continuous_update=False, style=style),
        "d_model": widgets.IntSlider(768, min=64, max=16_384, step=64, description="d",
                                     continuous_update=False, style=style),
        "n_layers": widgets.IntSlider(12, min=1, max=128, description="layers", continuous_update=False, style=style),
        "mlp_ratio": widgets.FloatSlider(4.0, min=1.0, max=8.0, step=0.25, description="MLP ratio",
                                         continuous_update=False, style=style),
    }
    return TiePanel(breakdown_figure, controls=controls, tie=tie,
                    title="Where the parameters of a GPT-style model are, tied or untied")


def benchmarks():
    """Redraw timing for `make bench` (the 70B meta build is declared in lmtie_edu.architectures)."""
    from .bench import toggle_benchmark

    return [toggle_benchmark("04 breakdown panel: tie toggle", breakdown_panel)]
