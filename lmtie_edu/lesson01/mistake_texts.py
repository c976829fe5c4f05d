"""More explanations of known mistakes in the lesson 01 exercises (``exercises`` adds them to each check's own;
``mistakes`` computes what each mistake gives on a case)."""

from lmtie_edu.shared.language import N_

BAG = {
    "unit_rows": N_("you added up the rows of W divided by their lengths (unit rows), not the rows themselves. The "
                 "bag sums the embedding vectors as they are."),
    "float32_counts": N_("your one-hot or counts are float32 (.float(), or the default dtype) while W is float64, "
                      "and PyTorch does not multiply tensors of different dtypes. Convert them to W's own dtype: "
                      ".to(W.dtype)."),
    "first_token_only": N_("you returned the vector of each sequence's first token only. The bag of a sequence is the "
                        "sum of the vectors of all its tokens: count every position."),
    "last_position_dropped": N_("your bags leave out each sequence's last position (ids[:, :-1], as for next-token "
                             "inputs). A bag holds every token of the sequence: sum over all T positions."),
    "first_position_dropped": N_("your bags leave out each sequence's first position (ids[:, 1:], as for next-token "
                              "targets). A bag holds every token of the sequence: sum over all T positions."),
    "max_pooled": N_("you took, for each of the d numbers, the largest over the sequence's tokens (a max pool). The "
                  "bag is the sum of the tokens' vectors: every occurrence adds its row."),
    "scaled_by_sqrt_t": N_("your bags are the sums divided by √T, the square root of the sequence's length. Nothing "
                        "divides here: the bag is the plain sum of the tokens' rows of W."),
    "divided_by_batch": N_("your bags are the sums divided by B, the number of sequences. Each sequence has its own "
                        "bag, the plain sum of its tokens' rows: nothing divides by the batch size."),
    "counts_not_multiplied": N_("you returned the (B, V) table of counts: the product with W is missing. Multiply "
                             "the counts by W to add up the rows: (B, V) @ (V, d) gives one (d,) bag per "
                             "sequence."),
    "whole_batch_per_row": N_("every row of your answer is the same: the bag of the whole batch (a sum over the "
                           "sequences too). Each sequence has its own bag: sum over the positions only (dim=1)."),
}

STEP = {
    "distinct_per_sequence": N_("you counted an id once per sequence, however often it occurs in it. Every "
                             "occurrence is a lookup and a term of the sum: a row looked up twice in one "
                             "sequence moves twice."),
    "not_flattened": N_("torch.bincount takes a 1-D tensor, and these ids are (B, T): flatten them first, "
                     "torch.bincount(ids.flatten(), minlength=W.shape[0])."),
    "mean_over_all_lookups": N_("you divided the step by the number of lookups (ids.numel()), as for a loss "
                             "averaged over all positions. This loss is a plain sum (W[ids].sum()): nothing divides "
                             "the count."),
    "mean_over_positions": N_("you divided the step by the sequence length T, as for a loss averaged over the "
                           "positions. This loss is a plain sum (W[ids].sum()): nothing divides the count."),
    "lr_squared": N_("your rows moved by lr² times the count: the learning rate is applied twice. The step is -lr "
                  "times the gradient, once."),
    "no_lr": N_("your rows moved by the whole count: the learning rate is missing. SGD steps by lr times the "
             "gradient: W − lr · counts."),
    "rows_set": N_("you set the looked-up rows to −lr instead of subtracting from them: their old values are gone. "
                "SGD moves each row from where it is: W − lr · gradient."),
    "last_position_only": N_("you counted only the ids at the last position of each sequence. Every position is a "
                          "lookup and a term of the sum: count the ids of all positions."),
    "first_sequence_only": N_("you counted the ids of the first sequence only. The loss sums the lookups of every "
                           "sequence of the batch: count the ids of all of ids."),
}

ROWS = {
    "up_to_largest_id": N_("tied, you listed the rows up to the largest id in the sequence. The softmax scores "
                        "every token of the vocabulary, so every row gets a gradient: range(vocab_size), however "
                        "small the ids."),
    "range_not_list": N_("you returned a range object, not a list. Make it one: list(range(vocab_size))."),
    "first_input_only": N_("untied, you listed only the row of the first token. Every position but the last is an "
                        "input and is looked up: the rows are those of all of ids[:-1]."),
    "none_untied": N_("untied, you listed no row at all. The lookup reads a row for every input position, and those "
                   "rows get the gradient: the rows of ids[:-1]."),
    "targets_minus_inputs": N_("untied, you listed the tokens that are only targets (never inputs): their rows are "
                            "precisely the ones the lookup never reads. The rows with a gradient are those read: "
                            "the rows of ids[:-1]."),
    "middle_only": N_("untied, you left out both the first and the last position (ids[1:-1]). The first token is "
                   "looked up as an input too: the rows are those of ids[:-1]."),
    "row_zero_missed": N_("tied, you left out row 0: range(1, vocab_size). Token 0 is a token like the others: the "
                       "softmax gives it a probability too, so its row gets a gradient. The rows are range(vocab_size)."),
    "one_row_too_few": N_("tied, you listed vocab_size − 1 rows, one fewer than W has: range(n) already gives the "
                       "n numbers 0 … n-1, so range(vocab_size) is all of them."),
}
