"""Lesson 07: the predict-first questions' options, answers and explanations.

Each question itself is written once, in the lesson's "Predict first." markdown cell just above the cell
that asks it (``predict.<name>.ask()``); the widget shows only the choices, so nothing is read twice.
Each answer is what the cell after the question prints; tests/lesson07/test_pitfalls.py recomputes it.
"""

from lmtie_edu.kit.predict import Choice
from lmtie_edu.shared.language import N_

aliased_after_one_step = Choice(
    "aliased_after_one_step",
    [N_("0: same memory, so it trains like the tie"),
     N_("about 1e-7: only float rounding differs"),
     N_("about 0.05: the size of one Adam step"),
     N_("about 0.1: twice the learning rate")],
    N_("about 0.05: the size of one Adam step"),
    N_("Autograd still sees two leaves, so the alias gets two gradients and two Adam updates (each with its own "
    "moment estimates) applied to one storage, where the tie gets one update of the summed gradient. Adam's "
    "first step moves each entry by about the learning rate per update, so the two models differ by about 0.05."),
)

moved_after_late_tie = Choice(
    "moved_after_late_tie",
    [N_("not at all: 0"), N_("a little: about 0.05"), N_("about 1, as much as a matrix tied before the optimiser was built")],
    N_("not at all: 0"),
    N_("The optimiser holds references to the Parameter objects it was given, and the new shared Parameter is not "
    "one of them. Its gradient is computed at every step and never applied: it does not move at all, while the "
    "rest of the network trains and the loss still goes down a little."),
)

state_dict_count_of_a_tie = Choice(
    "state_dict_count_of_a_tie",
    [N_("the same number"), N_("64,000 more"), N_("64,000 fewer")],
    N_("64,000 more"),
    N_("parameters() yields each Parameter object once, however many modules hold it. A state dict has one key per "
    "module attribute, so the tied matrix appears under embedding.weight and head.weight and is summed twice, "
    "although both keys read one storage."),
)

adam_state_after_untie = Choice(
    "adam_state_after_untie",
    [N_("0"), N_("128"), N_("256"), N_("512")],
    N_("256"),
    N_("Adam keeps two moment estimates (exp_avg and exp_avg_sq) per trained number. Untying adds one V x d matrix "
    "of 16 x 8 = 128 numbers, so the state grows by 2 x 128 = 256 numbers."),
)
