"""Lesson 04 — the parameter count of a GPT-style model, and the panel that redraws it.

The lesson writes the counting out in its cells (the saving V·d, its two shares, the count of a
model from its hyper-parameters, whether a built model ties). This module keeps the input checks,
the GPT-style formula the panel needs (the very code of the lesson's cell: tests/lesson04/test_counts.py
keeps them identical) and the panel. Real architectures: :mod:`lmtie_edu.lesson04.architectures`; static
figures: :mod:`lmtie_edu.lesson04.figures`. Nothing heavy is imported.
"""

from __future__ import annotations

import ipywidgets as widgets

from lmtie_edu.kit.panels import PanelResult, TiePanel
from lmtie_edu.kit.plotting import new_figure
from lmtie_edu.shared.validation import check_bool, check_number, check_positive_int

MAX_MLP_RATIO = 1000


def check_gpt_shape(vocab_size, d_model, n_layers, d_ff, n_positions, tie) -> tuple[int, int, int, int, int]:
    """Check the hyper-parameters of :func:`gpt_parameter_breakdown`; return (V, d, L, d_ff, P) as ints.

    ``d_ff=None`` means GPT-2's ``4·d``; ``n_positions`` may be 0 (no learned position table).
    """
    V = check_positive_int(vocab_size, "vocab_size")
    d = check_positive_int(d_model, "d_model")
    L = check_positive_int(n_layers, "n_layers")
    d_ff = 4 * d if d_ff is None else check_positive_int(d_ff, "d_ff")
    P = check_positive_int(n_positions, "n_positions", minimum=0)
    check_bool(tie, "tie")
    return V, d, L, d_ff, P


# The same code as the lesson's cell.
def gpt_parameter_breakdown(vocab_size, d_model, n_layers, *, d_ff=None, n_positions=1024, tie=True):
    """Parameters of a GPT-2-style decoder, by part (every weight matrix with its bias)."""
    V, d, L, d_ff, P = check_gpt_shape(vocab_size, d_model, n_layers, d_ff, n_positions, tie)
    return {
        "token embedding": V * d,                           # the V×d matrix that tying shares
        "position embedding": P * d,                        # a learned table, P positions
        "attention": L * (d * 3 * d + 3 * d + d * d + d),   # fused Q/K/V, then the output projection
        "MLP": L * (d * d_ff + d_ff + d_ff * d + d),        # d → d_ff → d
        "layer norms": L * 2 * (2 * d) + 2 * d,             # scale and bias: two per layer, one final
        "output head": 0 if tie else V * d,                 # untied: a second V×d matrix, no bias
    }


def d_ff_from_ratio(d_model: int, mlp_ratio: float) -> int:
    """MLP width ``round(mlp_ratio · d)`` (GPT-2 uses 4); the ratio must be a positive number."""
    d = check_positive_int(d_model, "d_model")
    check_number(mlp_ratio, "mlp_ratio", minimum=0, strict=True, expected="a positive number (GPT-2 uses 4)")
    if mlp_ratio > MAX_MLP_RATIO:
        raise ValueError(f"mlp_ratio must be at most {MAX_MLP_RATIO} (real models use 2.7 to 8; a larger ratio is a "
                         f"typo, and a huge one has no integer width); got {mlp_ratio!r}")
    return max(1, round(mlp_ratio * d))


# -- the panel ---------------------------------------------------------------------------------------

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
    saving = vocab_size * d_model
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
    right.set_xlim(0, 1.22 * untied_total / 1e6)
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
