"""More explanations of known mistakes in the lesson 02 exercises (``exercises`` adds them to each check's own;
``mistakes`` computes what each mistake gives on a case)."""

from lmtie_edu.shared.language import N_

COSINE = {
    "std_only": N_("you divided each row by its standard deviation: that measures the spread around the row's "
                "mean, not its length, so the rows' lengths still differ. Divide by the Euclidean norm."),
    "norm_clamped_at_one": N_("you divided each row by its norm clamped at 1 (or kept the rows shorter than 1 as "
                           "they were): the short rows keep their lengths. Every row must end with length 1: "
                           "divide by the norm itself."),
    "token_cosines": N_("you returned the (V, V) matrix of the cosines between tokens, unit rows times "
                     "their transpose. The exercise asks for the head itself: W with each row divided "
                     "by its length, of W's shape (V, d)."),
    "sqrt_of_norm": N_("you divided each row by the square root of its length, so the rows keep a part "
                    "of their lengths (√|w_i| each). Divide by the length itself, the Euclidean norm."),
    "squared_norm": N_("you divided each row by its squared length (the sum of squares, without the "
                    "square root): a row of length |w_i| ends with length 1/|w_i|, and the short rows "
                    "win. Divide by the Euclidean norm, the square root of that sum."),
    "l1_norm": N_("you divided each row by the sum of its absolute values (the L1 norm): the rows' "
               "Euclidean lengths still differ, so the logits still depend on them. Divide by the "
               "Euclidean norm."),
    "signed_sum": N_("you divided each row by the sum of its entries: signed numbers, so a row can be "
                  "divided by a small or negative number, and the rows' lengths still differ. Divide by "
                  "the Euclidean norm."),
    "transposed_head": N_("you returned the normalised matrix transposed, (d, V). The head keeps W's "
                       "shape (V, d): one unit row per token."),
    "max_entry": N_("you divided each row by its largest absolute entry: the rows' Euclidean lengths "
                 "still differ, so the logits still depend on them. Divide by the Euclidean norm."),
}

TOKENS = {
    "squeezed": N_("you returned a bare int, not a list: with one token in the answer, .squeeze() makes a 0-d "
                "tensor and .tolist() an int. Return a list in every case, e.g. with .flatten().tolist()."),
    "absolute_logits": N_("you compared the absolute values of the logits: a token pointing away from e_i "
                       "(a large negative logit) then beats it. The sign matters: compare the logits "
                       "themselves with e_i·e_i."),
    "own_norm": N_("you compared each token's logit e_i·e_j with its own squared length |e_j|², not "
                "with token i's |e_i|². Token i's own logit, e_i·e_i, is the bar every token must "
                "pass."),
    "never_any": N_("you returned no token in every case, but some tokens do beat token i. A nearest-"
                 "vector or cosine test gives that (e_i is nearest to itself, and no cosine exceeds "
                 "its own 1); the tied head compares inner products, which grow with length: compare "
                 "the logits e_i·e_j with e_i·e_i."),
    "positive_logits": N_("you listed every other token with a positive logit, e_i·e_j > 0. A token "
                       "beats i only when its logit exceeds token i's own, e_i·e_i = |e_i|², not 0."),
    "one_based": N_("your positions are one too large: you counted tokens from 1. Token ids start at 0, "
                 "like the rows of W."),
    "unsorted": N_("your list holds the right tokens, but not in increasing order. Return them sorted "
                "(sorted(...), or the order of torch.nonzero)."),
}

HEAD = {
    "bias_not_parameter": N_("you assigned a plain tensor to head.bias, and a module refuses that: a parameter must "
                          "be an nn.Parameter (trainable). Keep nn.Linear's own bias and zero it in place, or wrap "
                          "the zeros in nn.Parameter."),
    "weight_not_parameter": N_("you assigned a tensor that is not a Parameter to head.weight (a transpose, .data, "
                            ".detach(), a copy…), and a module refuses that. The tie is the embedding's Parameter "
                            "itself: head.weight = embedding.weight."),
    "no_bias": N_("your head has no bias (bias=False, or a bias set to None). The exercise asks for a tied "
               "head with a bias of its own: one zero per token, shape (V,)."),
    "bias_column": N_("your bias has shape (V, 1), a column. A Linear layer's bias is a vector, one entry "
                   "per output: shape (V,), as nn.Linear(d, V) makes it."),
    "one_bias": N_("your bias holds one number for all tokens. A bias shared by every token adds the same "
                "to every logit and changes no probability: the head needs one entry per token, shape "
                "(V,), as nn.Linear(d, V) makes it."),
    "bias_per_feature": N_("your bias has d entries, one per hidden feature. The bias is added to the "
                        "logits, so it has one entry per token: shape (V,), as nn.Linear(d, V) makes it."),
    "frozen_bias": N_("your bias does not require gradients, so it would never train. Keep it a "
                   "trainable Parameter (only its starting value is zero)."),
}
