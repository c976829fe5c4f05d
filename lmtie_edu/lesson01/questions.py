"""Lesson 01: the predict-first questions' options, answers and explanations.

Each question itself is written once, in the lesson's "Predict first." markdown cell just above the cell
that asks it (``predict.<name>.ask()``); the widget shows only the choices, so nothing is read twice.
"""

from lmtie_edu.kit.predict import Choice
from lmtie_edu.shared.language import N_

lookup_exact = Choice(
    "lookup_exact",
    [N_("exactly 0"), N_("tiny but not 0 (floating-point rounding, around 1e-7)"), N_("large: the product mixes rows of W")],
    N_("exactly 0"),
    N_("Each number of the product is a sum of V terms: one is 1 × W[i, k], all the others are 0 × something = 0. "
    "Multiplying by 0 or 1 and adding zeros are exact in floating point, so the product is bit for bit row i of W."),
)

repeated_row = Choice(
    "repeated_row",
    [N_("g_1 + g_2"), N_("(g_1 + g_2) / 2"), N_("g_2 only: the later position overwrites"), N_("zero: a repeated id cancels out")],
    N_("g_1 + g_2"),
    N_("The table is used once per position, and the gradient is the sum over positions of x_t^T g_t: the terms of "
    "positions 1 and 2 both land in row 5. Autograd does the same — it accumulates every use into .grad."),
)

requires_grad_table = Choice(
    "requires_grad_table",
    [N_("gradient: no; listed: no"), N_("gradient: yes; listed: no"), N_("gradient: yes; listed: yes"),
     N_("gradient: no; listed: yes")],
    N_("gradient: yes; listed: no"),
    N_("requires_grad=True is all autograd needs to compute a gradient. But a module registers an attribute as a "
    "parameter only when it is an nn.Parameter, so the gradient is computed and then ignored: an optimiser "
    "built from model.parameters() never updates the table."),
)

# A choice, not a Number: the Number widget's empty value (NaN) prints a JSON warning into the stored output.
untied_rows = Choice(
    "untied_rows",
    [N_("2"), N_("3"), N_("4"), N_("12")],
    N_("2"),
    N_("Untied, W is used only by the lookup, and only the inputs 2, 5, 5 are looked up: each token predicts the "
    "next one, so 9 is only a target and its gradient goes to the separate head. Rows 2 and 5 — a repeated id "
    "is still one row. Tied, the head is W, and its softmax sends gradient to all 12 rows."),
)
