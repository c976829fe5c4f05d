"""Lesson 07 — predict, then run: an alias after one Adam step, a tie the optimiser never saw, counting a
tied state dict, and the optimiser state an untie adds. Each answer is what the cell after the question
prints; tests/test_pitfalls.py recomputes it."""

from ..predict import Choice

aliased_after_one_step = Choice(
    "aliased_after_one_step",
    "After head.weight.data = embedding.weight.data the two Parameters read the same memory. Started from the "
    "same values as a truly tied model, how far apart are the two models' matrices after one Adam step "
    "(learning rate 0.05), as the largest difference of an entry?",
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
    "The optimiser is built first; then a new Parameter (a copy of the embedding) is put into both the "
    "embedding and the head. After 20 Adam steps with learning rate 0.05, how far has the shared matrix moved "
    "(the largest change of an entry)?",
    ["not at all: 0", "a little: about 0.05", "about 1, as much as a matrix tied before the optimiser was built"],
    "not at all: 0",
    "The optimiser holds references to the Parameter objects it was given, and the new shared Parameter is not "
    "one of them. Its gradient is computed at every step and never applied: it does not move at all, while the "
    "rest of the network trains and the loss still goes down a little.",
)

state_dict_count_of_a_tie = Choice(
    "state_dict_count_of_a_tie",
    "A tied TinyLM(1000, 64) has one 1000 x 64 matrix in two roles (V·d = 64,000). Compared with "
    "summing numel() over model.parameters(), what does summing numel() over its state_dict() give?",
    ["the same number", "64,000 more", "64,000 fewer"],
    "64,000 more",
    "parameters() yields each Parameter object once, however many modules hold it. A state dict has one key per "
    "module attribute, so the tied matrix appears under embedding.weight and head.weight and is summed twice, "
    "although both keys read one storage.",
)

adam_state_after_untie = Choice(
    "adam_state_after_untie",
    "A tied TinyLM(16, 8) (V = 16, d = 8) is untied and a new Adam optimiser is built. After a step, how many "
    "more numbers does Adam's state hold than it held for the tied model?",
    ["0", "128", "256", "512"],
    "256",
    "Adam keeps two moment estimates (exp_avg and exp_avg_sq) per trained number. Untying adds one V x d matrix "
    "of 16 x 8 = 128 numbers, so the state grows by 2 x 128 = 256 numbers.",
)
