"""Lesson 02: the predict-first questions' options, answers and explanations.

Each question itself is written once, in the lesson's "Predict first." markdown cell just above the cell
that asks it (``predict.<name>.ask()``); the widget shows only the choices, so nothing is read twice.
"""

from lmtie_edu.kit.predict import Choice
from lmtie_edu.shared.language import N_

top_token_toy = Choice(
    "top_token_toy",
    [N_("cat"), N_("dog"), N_("the")],
    N_("the"),
    N_("A logit is |h|·|w_i|·cos θ_i. 'cat' has the better angle, but 'the' is about twice as long and its cosine is "
    "still large, so its product is larger. The head asks for the largest inner product, not for the nearest vector."),
)

longer_hidden_state = Choice(
    "longer_hidden_state",
    [N_("another token takes the top"), N_("the same top token, with a higher probability"),
     N_("the same top token, with a lower probability"), N_("nothing changes: only the direction of h matters")],
    N_("the same top token, with a higher probability"),
    N_("Every logit is multiplied by the same factor, so the order of the tokens cannot change. But the gaps between "
    "the logits grow, and the softmax turns larger gaps into a sharper distribution: |h| acts as an inverse "
    "temperature."),
)

self_win_high_dimension = Choice(
    "self_win_high_dimension",
    [N_("about 0.1 % (chance: 1 in V)"), N_("about half"), N_("nearly all")],
    N_("nearly all"),
    N_("Token x scores |e_x|², every other token e_x·e_j. In high dimension random vectors are nearly orthogonal and "
    "nearly equally long, so e_x·e_j is close to 0 while |e_x|² is close to 1: the input token wins almost always."),
)

gpt2_repeats_input = Choice(
    "gpt2_repeats_input",
    [N_("almost all of them"), N_("about half"), N_("almost none (a few at most)")],
    N_("almost none (a few at most)"),
    N_("The head is tied, but it is not fed e_x: the position embedding and every block add to the residual stream, "
    "and at GPT-2's standard initialisation what they add is many times longer than e_x. The toy table above "
    "shows what that does to the self-prediction."),
)
