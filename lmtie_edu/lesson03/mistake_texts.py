"""More explanations of known mistakes in the lesson 03 exercises (``exercises`` adds them to each check's own;
``mistakes`` computes what each mistake gives on a case)."""

from lmtie_edu.shared.language import N_

HEAD = {
    "elementwise_not_outer": N_("you multiplied p - y (V numbers) and h (d numbers) elementwise, or as a dot "
                             "product: their sizes differ. Row j of the gradient is (p_j - y_j) times all of h: "
                             "an outer product, torch.outer(p - y, h), of shape (V, d)."),
    "own_row_for_h": N_("you multiplied each p_j - y_j by row j of W_out instead of by h: that is the way the "
                     "logit z_j changes with h, not with W_out. Logit z_j = w_j·h changes with row w_j at the "
                     "rate h: row j of the gradient is (p_j - y_j) h."),
    "absolute_difference": N_("you took the absolute value of p - y, so the target row points the wrong way: its "
                           "p_target - 1 is negative, and that sign is what pulls the target's row towards h. "
                           "Keep the signs: (p - y) ⊗ h."),
    "h_normalised": N_("you divided h by its length. Logit z_j = w_j·h changes with row w_j at the rate h itself: "
                    "row j of the gradient is (p_j - y_j) h, with h as it is."),
    "target_shifted": N_("your one-hot marks the token after the target (target + 1): an off-by-one. The "
                      "one-hot y has its 1 at index target itself."),
}

LOOKUP = {
    "divided_by_vocab": N_("you divided the gradient by vocab_size. The lookup only routes each upstream row to "
                        "its id's row, adding them up: nothing divides."),
    "times_count": N_("a repeated id received the sum of its gradients times its number of occurrences: counted "
                   "twice over. The sum of its positions' upstream rows already holds one term per "
                   "occurrence."),
    "rows_up_to_largest_id": N_("your gradient stops at the largest id looked up: it has (largest id + 1) rows, "
                             "not vocab_size. The gradient has the matrix's shape, one row per token of the "
                             "vocabulary (F.one_hot without num_classes, or torch.bincount without minlength, "
                             "stops there)."),
    "unique_rows_only": N_("your gradient has one row per distinct id looked up, not one per token of the "
                        "vocabulary. It has the matrix's shape (vocab_size, d): row i at index i, zero for the "
                        "rows never looked up."),
}

STARVED = {
    "neither_read_nor_predicted": N_("you listed the tokens that are neither read nor predicted: absent from the "
                                  "data altogether. The starved rows are those of tokens predicted but never "
                                  "read: the targets minus the inputs."),
    "symmetric_difference": N_("you listed the tokens in one of the two sets but not both (the symmetric "
                            "difference): that also lists the tokens read but never predicted, whose rows do get "
                            "gradients. The starved ones are the targets minus the inputs."),
    "last_window_only": N_("you compared every target with the last input window only (inputs[-1]). A token is "
                        "read if it occurs in any window: gather the ids of all of inputs."),
    "read_at_most_once": N_("you also listed the targets that are read once. One read is enough: a token read "
                         "even once is looked up, and its input row gets a gradient. Starved are the targets "
                         "never read."),
    "first_target_dropped": N_("you left the first target out (targets[1:], an off-by-one). Every target is a "
                            "token the model learns to predict: check all of them against the inputs."),
}
