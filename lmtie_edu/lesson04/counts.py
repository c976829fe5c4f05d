"""Lesson 04 — the parameter count of a GPT-style model, and the panel that redraws it.

The lesson writes the counting out in its cells (the saving V·d, its two shares, the count of a
model from its hyper-parameters, whether a built model ties). This module keeps the input checks,
the GPT-style formula the panel needs (the very code of the lesson's cell: tests/lesson04/test_counts.py
keeps them identical). The panel that redraws it: :mod:`lmtie_edu.lesson04.breakdown_figures`; real
architectures: :mod:`lmtie_edu.lesson04.architectures`; static figures: :mod:`lmtie_edu.lesson04.figures`.
Nothing heavy is imported.
"""

from __future__ import annotations

from lmtie_edu.shared.language import tr
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
    check_number(mlp_ratio, "mlp_ratio", minimum=0, strict=True, expected=tr("a positive number (GPT-2 uses 4)"))
    if mlp_ratio > MAX_MLP_RATIO:
        raise ValueError(tr("mlp_ratio must be at most {limit} (real models use 2.7 to 8; a larger ratio is a typo, "
                            "and a huge one has no integer width); got {ratio!r}", limit=MAX_MLP_RATIO, ratio=mlp_ratio))
    return max(1, round(mlp_ratio * d))
