"""More explanations of known mistakes in the lesson 04 exercises (``exercises`` adds them to each check's own;
``mistakes`` computes what each mistake gives on a case)."""

from lmtie_edu.shared.language import N_

SHARES = {
    "precedence_slip": N_("one of your shares is V·d / total ± V·d: Python divides before it adds or subtracts. Put "
                       "the denominator in parentheses: V·d / (total + V·d), V·d / (total − V·d)."),
    "total_for_both": N_("you divided V·d by `total` for both shares. `total` is one of the two totals only, the "
                      "build's own: the other is V·d more (a build that ties) or V·d less (one that does not)."),
    "untied_for_both": N_("both your shares divide V·d by the untied total. The first share is of the tied total, "
                       "which holds the matrix once: the untied total minus V·d."),
    "untied_plus_two": N_("your second share divides by the tied total + 2·V·d. Untying adds one matrix, the "
                       "head's: the untied total is the tied total + V·d."),
}

CONFIG = {
    "projection_biases": N_("you counted biases in the attention projections (Q, K, V, and perhaps the output). "
                         "Llama-style projections have weights only, no bias (the config's attention_bias is "
                         "false by default)."),
    "rounded_share": N_("you rounded the share. Return it as computed, unrounded: rounding is for printing it."),
    "tie_missed": N_("this model ties (its config says tie_word_embeddings: true), but you returned (0, 0.0), as "
                  "for a model that does not. Read the flag as the boolean it is, config.get(\"tie_word_embeddings\", "
                  "False), and count the saving V·d."),
    "one_norm_per_layer": N_("you counted one RMSNorm per layer. A Llama-style layer has two, one before attention "
                          "and one before the MLP: 2·d per layer (and one more d for the final norm)."),
    "no_norms": N_("your total leaves out every RMSNorm: the two of each layer (2·d) and the final one (d). Each is "
                "a scale vector of d parameters."),
    "one_layer_short": N_("your total counts one layer fewer than num_hidden_layers (an off-by-one in a range, "
                       "say). Every one of the num_hidden_layers layers has its parameters."),
    "percent": N_("your share is 100 times too large: the exercise asks for a share (a fraction such as 0.21), "
               "not a percentage."),
    "untied_share_not_zero": N_("for a model that does not tie, you returned 0 parameters saved, rightly, but a "
                             "share above 0. Nothing was saved, so the share of the published total is 0.0 "
                             "too."),
}

VOCAB = {
    "one_past_the_bound": N_("your V is one too large: V − 1 already reaches the share. The smallest whole number "
                          "at least as large as the bound is math.ceil(bound); one more overshoots."),
    "sign_slip": N_("your bound has (1 + share) where (1 − share) belongs: from V·d ≥ share·(N + V·d), moving "
                 "share·V·d to the left gives V·d·(1 − share) ≥ share·N."),
    "share_dropped": N_("your bound lost the share in its numerator: N / (d·(1 − share)). From "
                     "V·d·(1 − share) ≥ share·N, the bound is share·N / (d·(1 − share))."),
    "d_in_numerator": N_("you multiplied by the width d where you should divide by it: the bound is "
                      "share·N / (d·(1 − share)), a number of tokens."),
    "precedence_slip": N_("your bound multiplies by (1 − share) where it should divide: share·N / d·(1 − share) is "
                       "(share·N / d)·(1 − share) in Python. Put the whole denominator in parentheses: "
                       "share·N / (d·(1 − share))."),
}
