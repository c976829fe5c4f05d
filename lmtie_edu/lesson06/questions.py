"""Lesson 06: the predict-first questions' options, answers and explanations.

Each question itself is written once, in the lesson's "Predict first." markdown cell just above the cell
that asks it (``predict.<name>.ask()``); the widget shows only the choices, so nothing is read twice.
"""

from lmtie_edu.kit.predict import Choice, Number
from lmtie_edu.shared.language import N_

parameters_removed = Number(
    "parameters_removed",
    32000,
    N_("The untied model has two V × d matrices, the embedding E and the output matrix O; tied, O is E, so one of "
    "them goes: V·d = 1000 × 32 = 32,000 numbers. Nothing else changes — the MLP in between is the same."),
)

end_of_budget_75 = Choice(
    "end_of_budget_75",
    [N_("the tied model"), N_("the untied model"), N_("no difference beyond seed noise")],
    N_("the tied model"),
    N_("With little text and several passes over it, the untied model — V·d more parameters, free to use different "
    "vectors on the input and the output side — fits the training text better and over-fits sooner, so by the "
    "end of the budget its perplexity on new text has risen above the tied model's, in every seed."),
)

early_stopped_75 = Choice(
    "early_stopped_75",
    [N_("it stays: the tied model is lower in every seed"), N_("it is gone: the difference changes sign between seeds"),
     N_("it reverses: the untied model is lower in every seed")],
    N_("it is gone: the difference changes sign between seeds"),
    N_("The advantage at the end of the budget came from over-fitting more slowly. Early stopping goes back to the "
    "point before either model over-fitted, so what is left is the difference between the two best "
    "checkpoints — here smaller than the spread between seeds."),
)

output_rows_reached = Choice(
    "output_rows_reached",
    [N_("rarely, like its input row (a few % of the steps)"), N_("in about half of the steps"), N_("in every step")],
    N_("in every step"),
    N_("The softmax gives every word some probability, and the loss pushes the probability of every wrong word "
    "down, so every output row gets a gradient in every step (tiny for a rare word, but not zero). An input row "
    "gets one only in the steps whose batch contains its word."),
)
