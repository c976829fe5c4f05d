"""Lesson 07: the predict-first questions' options, answers and explanations.

Each question itself is written once, in the lesson's "Predict first." markdown cell just above the cell
that asks it (``predict.<name>.ask()``); the widget shows only the choices, so nothing is read twice.
Each answer is what the cell after the question prints; tests/lesson07/test_pitfalls.py recomputes it.
"""

from lmtie_edu.kit.predict import Choice

aliased_after_one_step = Choice(
    "aliased_after_one_step",
    ["0: same memory, so it trains like the tie",
     "about 1e-7: only float rounding differs",
     "about 0.05: the size of one Adam step",
     "about 0.1: twice the learning rate"],
    "about 0.05: the size of one Adam step",
    "Autograd still sees two leaves, so the alias gets two gradients and two Adam updates (each with its own "
    "moment estimates) applied to one storage, where the tie gets one update of the summed gradient. Adam's "
    "first step moves each entry by about the learning rate per update, so the two models differ by about 0.05.",
)

moved_after_late_tie = Choice(
    "moved_after_late_tie",
    ["not at all: 0", "a little: about 0.05", "about 1, as much as a matrix tied before the optimiser was built"],
    "not at all: 0",
    "The optimiser holds references to the Parameter objects it was given, and the new shared Parameter is not "
    "one of them. Its gradient is computed at every step and never applied: it does not move at all, while the "
    "rest of the network trains and the loss still goes down a little.",
)

state_dict_count_of_a_tie = Choice(
    "state_dict_count_of_a_tie",
    ["the same number", "64,000 more", "64,000 fewer"],
    "64,000 more",
    "parameters() yields each Parameter object once, however many modules hold it. A state dict has one key per "
    "module attribute, so the tied matrix appears under embedding.weight and head.weight and is summed twice, "
    "although both keys read one storage.",
)

adam_state_after_untie = Choice(
    "adam_state_after_untie",
    ["0", "128", "256", "512"],
    "256",
    "Adam keeps two moment estimates (exp_avg and exp_avg_sq) per trained number. Untying adds one V x d matrix "
    "of 16 x 8 = 128 numbers, so the state grows by 2 x 128 = 256 numbers.",
)
