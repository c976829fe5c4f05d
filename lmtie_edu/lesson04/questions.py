"""Lesson 04: the predict-first questions' options, answers and explanations.

Each question itself is written once, in the lesson's "Predict first." markdown cell just above the cell
that asks it (``predict.<name>.ask()``); the widget shows only the choices, so nothing is read twice.
"""

from lmtie_edu.kit.predict import Choice
from lmtie_edu.shared.language import N_

count_every_name = Choice(
    "count_every_name",
    [N_("the same number"), N_("more, by exactly V·d"), N_("twice as many")],
    N_("more, by exactly V·d"),
    N_("The tied matrix has two names, transformer.wte.weight and lm_head.weight. parameters() yields each Parameter "
    "once; listing every name yields the shared one twice, so the count grows by exactly one V×d matrix — and "
    "nothing else is shared."),
)

large_llamas_tie = Choice(
    "large_llamas_tie",
    [N_("all three"), N_("only Llama-3-8B (its vocabulary is large)"), N_("none of them")],
    N_("none of them"),
    N_("All three publish tie_word_embeddings = false and keep a separate lm_head; the build confirms it. In the Llama "
    "family only the small Llama-3.2-1B and -3B tie, where the 128K × d matrix is a large share of the model."),
)

tenfold_model = Choice(
    "tenfold_model",
    [N_("by 10: the share falls like 1/N"), N_("by about 4.6: like N^(-2/3)"), N_("by about 2.2: like N^(-1/3)"),
     N_("not at all: V·d grows with the model")],
    N_("by about 4.6: like N^(-2/3)"),
    N_("The body grows like d³ (12·L·d² with L proportional to d) while V·d grows only like d. Ten times the body "
    "means d grows by 10^(1/3), so the share V·d / N falls by 10 / 10^(1/3) = 10^(2/3) ≈ 4.6."),
)

gpt_formula_on_llama = Choice(
    "gpt_formula_on_llama",
    [N_("exactly the right number"), N_("too few parameters"), N_("too many parameters")],
    N_("too few parameters"),
    N_("Two differences pull in opposite directions: grouped-query attention makes K and V smaller than the formula "
    "assumes (too many), but the SwiGLU MLP has three d × d_ff matrices where the formula counts two (too few). "
    "With d_ff = 3.5·d the missing third matrix is by far the larger effect: about 13 % too few."),
)
