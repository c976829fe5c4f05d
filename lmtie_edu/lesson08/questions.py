"""Lesson 08: the predict-first questions' options, answers and explanations.

Each question itself is written once, in the lesson's "Predict first." markdown cell just above the cell
that asks it (``predict.<name>.ask()``). Each answer is what the cell after the question prints;
tests/lesson08/test_questions.py recomputes the ones that need no training.
"""

from lmtie_edu.kit.predict import Choice, Number
from lmtie_edu.shared.language import N_

share_removed = Number(
    "share_removed", 35.56,
    N_("The tie removes one V x d matrix: 1000 x 32 = 32,000 of the untied model's 89,984 parameters, about 36 %. "
    "In a model this small the vocabulary matrix is a large share of everything, as in MobileLLM's 125M models."),
    tolerance=0.1,
)

echo_at_std_one = Choice(
    "echo_at_std_one",
    [N_("about 1 in 1000 (chance)"), N_("about half"), N_("nearly all")],
    N_("nearly all"),
    N_("With std 1 the token's own row dominates the residual stream (positions and blocks start at std 0.02), so "
    "after the final LayerNorm h points along the input word's row, and the tied head scores each word by h . e_j: "
    "the input word's own row wins, with a logit near d. The model starts by predicting its input, with a loss "
    "far above ln V."),
)

module_type_rule = Choice(
    "module_type_rule",
    [N_("in the decay group only"), N_("in the no-decay group only"), N_("in both groups")],
    N_("in both groups"),
    N_("Module by module, the shared matrix is visited twice: as the nn.Embedding's weight (no decay) and as the "
    "nn.Linear head's weight (decay). It lands in both groups, and AdamW refuses the groups."),
)

untied_after_one_step = Choice(
    "untied_after_one_step",
    [N_("yes: they start equal and get the same update"), N_("no: they get different gradients, so they drift apart")],
    N_("no: they get different gradients, so they drift apart"),
    N_("Loaded into an untied model, the two matrices are two Parameters that happen to start equal. The head's "
    "gradient reaches every row at every step; the embedding's only the rows of the input words, so after one step "
    "they differ. In the tied model they are one Parameter and cannot differ."),
)

best_test_model = Choice(
    "best_test_model",
    [N_("the untied model"), N_("the tied model of the same width"), N_("the deeper tied model at the untied budget")],
    N_("the untied model"),
    N_("At this size and budget (3 seeds, at most 300 steps of 16 windows) the untied model reaches the lowest test "
    "perplexity; the extra blocks of the deeper tied model do not recover the gap within the step budget. "
    "MobileLLM's result (depth recovers what tying costs) is not reproduced here."),
)
