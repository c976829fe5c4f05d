"""Lesson 03: the predict-first questions' options, answers and explanations.

Each question itself is written once, in the lesson's "Predict first." markdown cell just above the cell
that asks it (``predict.<name>.ask()``); the widget shows only the choices, so nothing is read twice.
"""

from lmtie_edu.kit.predict import Choice
from lmtie_edu.shared.language import N_

tied_rows = Choice(
    "tied_rows",
    [N_("4: the input tokens"), N_("5: the input and the target tokens"), N_("12: every row")],
    N_("12: every row"),
    N_("The lookup part reaches only the 4 input rows, but the head part reaches every row: row j of the head "
    "gradient is (p_j - y_j) times h, and a softmax gives every token a probability above zero. Tied, the "
    "matrix receives the sum of both parts."),
)

largest_head_row = Choice(
    "largest_head_row",
    [N_("the target's row (token 4)"), N_("the likeliest token's row (token 2)"), N_("all rows are the same size")],
    N_("the target's row (token 4)"),
    N_("Row j has the size |p_j - y_j| times |h|, and h is the same for every row. For the target, |0.04 - 1| is "
    "about 0.96; for token 2, |0.53 - 0| is 0.53. A badly predicted target gets the strongest pull."),
)

eos_input_steps = Choice(
    "eos_input_steps",
    [N_("none of them"), N_("about half of them"), N_("nearly all of them"), N_("all 200")],
    N_("none of them"),
    N_("Frequency does not matter here: <eos> ends every sentence, so it is only ever a target and never read. "
    "An input row gets a gradient only when its token is looked up, so untied it never gets one. Tied, the "
    "same row is also <eos>'s output row and gets a gradient at every step."),
)
