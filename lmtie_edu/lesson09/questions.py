"""Lesson 09: the predict-first questions' options, answers and explanations.

Each question itself is written once, in the lesson's "Predict first." markdown cell just above the cell that
asks it (``predict.<name>.ask()``). Each answer is what the cells after the question print;
tests/lesson09/test_questions.py recomputes them.
"""

from lmtie_edu.kit.predict import Choice
from lmtie_edu.shared.language import N_

never_seen_rows_tied = Choice(
    "never_seen_rows_tied",
    [N_("shorter than the frequent words' rows"), N_("about as long"), N_("longer than the frequent words' rows")],
    N_("longer than the frequent words' rows"),
    N_("As a head, the matrix gets a gradient in every row at every position (lesson 03): a word that is not the "
    "target is pushed away from the hidden state h by its probability times h. A never-seen id is never the "
    "target, so it is only ever pushed, always against the same average h. Its probability is tiny, so the push "
    "is tiny — but it keeps its sign, and Adam then steps about the full learning rate per coordinate: the row "
    "grows along that one direction. In the untied model the lookup row of a never-seen id gets no gradient at "
    "all: it keeps its small random start, shrunk a little by weight decay."),
)

norm_detector_tied = Choice(
    "norm_detector_tied",
    [N_("it finds them as well as in the untied model"), N_("about chance (AUC near 0.5)"),
     N_("it ranks them last (AUC near 0)")],
    N_("it ranks them last (AUC near 0)"),
    N_("The detector flags the shortest rows. In the tied model the never-seen rows are the longest of all (§2), so "
    "every one of them ranks below every word of the text: the AUC is near 0, worse than a coin."),
)

cycle_tied_next = Choice(
    "cycle_tied_next",
    [N_("close to 1"), N_("the same as it gives the previous token"), N_("close to 0")],
    N_("the same as it gives the previous token"),
    N_("Tied, the score of j after i is e_i · e_j, which is also the score of i after j. Over the whole cycle, "
    "every forward pair (i, i+1) is a backward pair for token i+1, so the model cannot raise one without the "
    "other: next and previous end up with the same probability. And with rows of similar length, e_i · e_i is "
    "the largest score of row i (Cauchy–Schwarz): the token itself gets the most."),
)
