"""Lesson 04: one wrong answer per diagnosed mistake, the shortcuts each check must refuse, and plausible wrong
answers without a named mistake (CAUGHT: each must fail and say where it differs)."""

import math

from lmtie_edu.lesson04 import solutions

# -- saved_shares ----------------------------------------------------------------------------------------------


def shares_swapped(vocab_size, d_model, total, ties):
    return solutions.saved_shares(vocab_size, d_model, total, ties)[::-1]


def shares_ignoring_ties(vocab_size, d_model, total, ties):
    saving = vocab_size * d_model
    return saving / total, saving / (total + saving)


def shares_assuming_untied(vocab_size, d_model, total, ties):
    saving = vocab_size * d_model
    return saving / (total - saving), saving / total


def shares_ties_backwards(vocab_size, d_model, total, ties):
    saving = vocab_size * d_model
    tied_total = total - saving if ties else total
    return saving / tied_total, saving / (tied_total + saving)


def shares_in_percent(vocab_size, d_model, total, ties):
    return tuple(100 * s for s in solutions.saved_shares(vocab_size, d_model, total, ties))


def shares_of_non_vocab(vocab_size, d_model, total, ties):  # the tied total taken as the body without V·d
    saving = vocab_size * d_model
    tied_total = total if ties else total - saving
    return saving / (tied_total - saving), saving / tied_total


def shares_by_floor_division(vocab_size, d_model, total, ties):
    saving = vocab_size * d_model
    tied_total = total if ties else total - saving
    return saving // tied_total, saving // (tied_total + saving)


def shares_untied_by_wrong_link(vocab_size, d_model, total, ties):  # s_u = s_t / (1 − s_t) instead of / (1 + s_t)
    saving = vocab_size * d_model
    s_t = saving / (total if ties else total - saving)
    return s_t, s_t / (1 - s_t)


def shares_untied_minus_two_matrices(vocab_size, d_model, total, ties):
    saving = vocab_size * d_model
    tied_total = total if ties else total - 2 * saving            # both matrices removed
    return saving / tied_total, saving / (total + saving if ties else total)


def shares_untied_as_tied_minus_the_matrix(vocab_size, d_model, total, ties):
    saving = vocab_size * d_model
    tied_total = total if ties else total - saving
    return saving / tied_total, saving / (total - saving if ties else total)   # a sign slip


def shares_both_of_the_total(vocab_size, d_model, total, ties):
    saving = vocab_size * d_model
    return saving / total, saving / total


def shares_both_of_the_untied_total(vocab_size, d_model, total, ties):
    saving = vocab_size * d_model
    untied_total = total + saving if ties else total
    return saving / untied_total, saving / untied_total


def shares_untied_plus_two_matrices(vocab_size, d_model, total, ties):
    saving = vocab_size * d_model
    tied_total = total if ties else total - saving
    return saving / tied_total, saving / (tied_total + 2 * saving)


def shares_without_parentheses(vocab_size, d_model, total, ties):
    saving = vocab_size * d_model
    if ties:
        return saving / total, saving / total + saving                # meant saving / (total + saving)
    return saving / total - saving, saving / total


def shares_rounded(vocab_size, d_model, total, ties):
    return tuple(round(s, 2) for s in solutions.saved_shares(vocab_size, d_model, total, ties))


def shares_of_two_matrices(vocab_size, d_model, total, ties):
    return tuple(2 * s for s in solutions.saved_shares(vocab_size, d_model, total, ties))


def shares_kept(vocab_size, d_model, total, ties):
    return tuple(1 - s for s in solutions.saved_shares(vocab_size, d_model, total, ties))


def shares_of_nothing_when_untied(vocab_size, d_model, total, ties):
    return solutions.saved_shares(vocab_size, d_model, total, ties) if ties else (0.0, 0.0)


def shares_untied_plus_the_matrix(vocab_size, d_model, total, ties):  # total + V·d whether or not the build ties
    saving = vocab_size * d_model
    return saving / (total if ties else total - saving), saving / (total + saving)


def shares_only_of_tied(vocab_size, d_model, total, ties):  # one number where a pair is asked
    return solutions.saved_shares(vocab_size, d_model, total, ties)[0]


def shares_as_text(vocab_size, d_model, total, ties):
    return tuple(f"{100 * s:.2f}%" for s in solutions.saved_shares(vocab_size, d_model, total, ties))


# -- saving_from_config ------------------------------------------------------------------------------------------


def _llama_total(config, *, kv_heads=None, head=None, embedding=True, final_norm=True, layer_norms=True,
                 mlp_matrices=3):
    V, d, d_ff = config["vocab_size"], config["hidden_size"], config["intermediate_size"]
    kv = config["num_key_value_heads"] if kv_heads is None else kv_heads
    d_kv = d // config["num_attention_heads"] * kv
    per_layer = 2 * d * d + 2 * d * d_kv + mlp_matrices * d * d_ff + (2 * d if layer_norms else 0)
    with_head = not config.get("tie_word_embeddings", False) if head is None else head
    return ((V * d if embedding else 0) + config["num_hidden_layers"] * per_layer + (d if final_norm else 0)
            + (V * d if with_head else 0))


def _tied_saving(config, **total):
    """(V·d, V·d / a total counted with the given slip) for a model that ties; (0, 0.0) otherwise."""
    if not config.get("tie_word_embeddings", False):
        return 0, 0.0
    saving = config["vocab_size"] * config["hidden_size"]
    return saving, saving / _llama_total(config, **total)


def saving_ignoring_the_flag(config):
    saving = config["vocab_size"] * config["hidden_size"]
    return saving, saving / _llama_total(config)


def saving_of_untied_total(config):
    return _tied_saving(config, head=True)


def saving_of_non_vocab_total(config):
    return _tied_saving(config, embedding=False)


def saving_with_full_kv(config):
    return _tied_saving(config, kv_heads=config["num_attention_heads"])


def saving_without_final_norm(config):
    return _tied_saving(config, final_norm=False)


def saving_without_layer_norms(config):
    return _tied_saving(config, layer_norms=False)


def saving_with_two_mlp_matrices(config):  # the GPT-2 MLP (up and down), not SwiGLU's three
    return _tied_saving(config, mlp_matrices=2)


def saving_with_one_kv_head(config):  # multi-query attention: K and V of one head each
    return _tied_saving(config, kv_heads=1)


def saving_with_kv_width_everywhere(config):  # Q and the output projection at the K/V width too
    if not config.get("tie_word_embeddings", False):
        return 0, 0.0
    V, d, d_ff, layers = (config[k] for k in ("vocab_size", "hidden_size", "intermediate_size", "num_hidden_layers"))
    d_kv = d // config["num_attention_heads"] * config["num_key_value_heads"]
    return V * d, V * d / (V * d + layers * (4 * d * d_kv + 3 * d * d_ff + 2 * d) + d)


def saving_with_the_kv_ratio_inverted(config):
    if not config.get("tie_word_embeddings", False):
        return 0, 0.0
    V, d, d_ff, layers = (config[k] for k in ("vocab_size", "hidden_size", "intermediate_size", "num_hidden_layers"))
    d_kv = d // config["num_key_value_heads"] * config["num_attention_heads"]
    return V * d, V * d / (V * d + layers * (2 * d * d + 2 * d * d_kv + 3 * d * d_ff + 2 * d) + d)


def saving_with_an_mlp_of_4d(config):
    return _tied_saving({**config, "intermediate_size": 4 * config["hidden_size"]})


def saving_with_one_norm_per_layer(config):
    if not config.get("tie_word_embeddings", False):
        return 0, 0.0
    V, d, d_ff, layers = (config[k] for k in ("vocab_size", "hidden_size", "intermediate_size", "num_hidden_layers"))
    d_kv = d // config["num_attention_heads"] * config["num_key_value_heads"]
    return V * d, V * d / (V * d + layers * (2 * d * d + 2 * d * d_kv + 3 * d * d_ff + d) + d)


def saving_without_any_norm(config):
    return _tied_saving(config, layer_norms=False, final_norm=False)


def saving_one_layer_short(config):
    return _tied_saving({**config, "num_hidden_layers": config["num_hidden_layers"] - 1})


def saving_in_percent(config):
    saved, share = solutions.saving_from_config(config)
    return saved, 100 * share


def saving_with_a_share_when_untied(config):
    V, d = config["vocab_size"], config["hidden_size"]
    saved = V * d if config.get("tie_word_embeddings", False) else 0
    return saved, V * d / _llama_total(config)


def saving_with_a_rounded_share(config):
    saved, share = solutions.saving_from_config(config)
    return saved, round(share, 3)


def saving_comparing_the_flag_with_text(config):
    if config.get("tie_word_embeddings") == "true":               # the JSON value is a boolean, not a string
        return solutions.saving_from_config(config)
    return 0, 0.0


def saving_with_projection_biases(config):
    if not config.get("tie_word_embeddings", False):
        return 0, 0.0
    V, d, d_ff, layers = (config[k] for k in ("vocab_size", "hidden_size", "intermediate_size", "num_hidden_layers"))
    d_kv = d // config["num_attention_heads"] * config["num_key_value_heads"]
    per_layer = 2 * d * d + 2 * d * d_kv + 3 * d * d_ff + 2 * d + (d + 2 * d_kv)   # Q, K and V biases
    return V * d, V * d / (V * d + layers * per_layer + d)


def saving_indexing_the_flag(config):
    if not config["tie_word_embeddings"]:
        return 0, 0.0
    return solutions.saving_from_config(config)


def saving_of_twelve_d_squared_layers(config):  # GPT-2's rule of thumb
    if not config.get("tie_word_embeddings", False):
        return 0, 0.0
    V, d = config["vocab_size"], config["hidden_size"]
    return V * d, V * d / (V * d + config["num_hidden_layers"] * 12 * d * d + d)


def saving_with_kv_heads_as_width(config):  # d_kv = num_key_value_heads, the head size left out
    if not config.get("tie_word_embeddings", False):
        return 0, 0.0
    V, d, d_ff, kv = (config[key] for key in ("vocab_size", "hidden_size", "intermediate_size", "num_key_value_heads"))
    per_layer = 2 * d * d + 2 * d * kv + 3 * d * d_ff + 2 * d
    return V * d, V * d / (V * d + config["num_hidden_layers"] * per_layer + d)


def saving_with_norm_biases(config):
    saved, share = solutions.saving_from_config(config)
    if not saved:
        return saved, share
    return saved, saved / (saved / share + 2 * config["hidden_size"] * config["num_hidden_layers"])


def saving_with_a_position_table(config):
    saved, share = solutions.saving_from_config(config)
    if not saved:
        return saved, share
    return saved, saved / (saved / share + config["max_position_embeddings"] * config["hidden_size"])


def saving_reading_a_missing_flag_as_tied(config):  # config.get("tie_word_embeddings", True)
    return solutions.saving_from_config({"tie_word_embeddings": True, **config})


def saving_as_float_count(config):  # the count must be a whole number of parameters
    saved, share = solutions.saving_from_config(config)
    return float(saved), share


def saving_flag_as_count(config):  # True/False is not a number of parameters
    return config["tie_word_embeddings"], solutions.saving_from_config(config)[1]


# -- vocab_for_share ---------------------------------------------------------------------------------------------


def vocab_rounded_down(share, d_model, non_vocab):
    return math.floor(share * non_vocab / (d_model * (1 - share)))


def vocab_for_untied_share(share, d_model, non_vocab):
    return math.ceil(share * non_vocab / (d_model * (1 - 2 * share)))


def vocab_plus_one(share, d_model, non_vocab):  # int(bound) + 1 overshoots a whole bound
    return int(share * non_vocab / (d_model * (1 - share))) + 1


def vocab_for_non_vocab_share(share, d_model, non_vocab):
    return math.ceil(share * non_vocab / d_model)


def vocab_with_sign_slip(share, d_model, non_vocab):
    return math.ceil(share * non_vocab / (d_model * (1 + share)))


def vocab_with_precedence_slip(share, d_model, non_vocab):  # / d * (1 - s) where / (d * (1 - s)) is meant
    return math.ceil(share * non_vocab / d_model * (1 - share))


def vocab_in_parameters(share, d_model, non_vocab):
    return math.ceil(share * non_vocab / (1 - share))


def vocab_without_d_in_total(share, d_model, non_vocab):  # V·d / (N + V) ≥ share
    vocab = 1
    while vocab * d_model / (non_vocab + vocab) < share:
        vocab += 1
    return vocab


def vocab_of_inverted_fraction(share, d_model, non_vocab):
    return math.ceil((1 - share) * non_vocab / (d_model * share))


def vocab_padded_to_64(share, d_model, non_vocab):
    return 64 * math.ceil(solutions.vocab_for_share(share, d_model, non_vocab) / 64)


def vocab_without_the_share_on_top(share, d_model, non_vocab):
    return math.ceil(non_vocab / (d_model * (1 - share)))


def vocab_times_the_width(share, d_model, non_vocab):
    return math.ceil(share * non_vocab * d_model / (1 - share))


def vocab_ceil_plus_one(share, d_model, non_vocab):
    return math.ceil(share * non_vocab / (d_model * (1 - share))) + 1


def vocab_as_float(share, d_model, non_vocab):
    return float(solutions.vocab_for_share(share, d_model, non_vocab))



def vocab_ceil_of_the_float_bound(share, d_model, non_vocab):  # the bound rounded up, no exact check
    return math.ceil(share * non_vocab / (d_model * (1 - share)))


WRONG = {
    "saved_shares": {"swapped": shares_swapped, "ignores_ties": shares_ignoring_ties,
                     "assumes_untied": shares_assuming_untied, "ties_backwards": shares_ties_backwards,
                     "percent": shares_in_percent, "rounded": shares_rounded, "two_matrices": shares_of_two_matrices,
                     "complement": shares_kept, "untied_saves_nothing": shares_of_nothing_when_untied,
                     "untied_plus_matrix": shares_untied_plus_the_matrix, "ratio_to_rest": shares_of_non_vocab,
                     "untied_minus_two": shares_untied_minus_two_matrices,
                     "tied_minus_saving": shares_untied_as_tied_minus_the_matrix,
                     "total_for_both": shares_both_of_the_total, "untied_for_both": shares_both_of_the_untied_total,
                     "untied_plus_two": shares_untied_plus_two_matrices, "precedence_slip": shares_without_parentheses},
    "saving_from_config": {"absent_flag_as_tied": saving_reading_a_missing_flag_as_tied,
                           "ignores_tie": saving_ignoring_the_flag, "untied_denominator": saving_of_untied_total,
                           "non_vocab_denominator": saving_of_non_vocab_total, "full_kv": saving_with_full_kv,
                           "final_norm": saving_without_final_norm, "flag_indexed": saving_indexing_the_flag,
                           "twelve_d_squared": saving_of_twelve_d_squared_layers,
                           "kv_heads_as_width": saving_with_kv_heads_as_width, "norm_biases": saving_with_norm_biases,
                           "position_table": saving_with_a_position_table,
                           "all_projections_kv_width": saving_with_kv_width_everywhere,
                           "kv_ratio_inverted": saving_with_the_kv_ratio_inverted,
                           "mlp_width_4d": saving_with_an_mlp_of_4d, "two_mlp_matrices": saving_with_two_mlp_matrices,
                           "no_layer_norms": saving_without_layer_norms, "one_kv_head": saving_with_one_kv_head,
                           "one_norm_per_layer": saving_with_one_norm_per_layer, "no_norms": saving_without_any_norm,
                           "one_layer_short": saving_one_layer_short, "percent": saving_in_percent,
                           "untied_share_not_zero": saving_with_a_share_when_untied,
                           "rounded_share": saving_with_a_rounded_share, "tie_missed": saving_comparing_the_flag_with_text,
                           "projection_biases": saving_with_projection_biases},
    "vocab_for_share": {"rounds_down": vocab_rounded_down, "one_too_many": vocab_plus_one,
                        "untied_total": vocab_for_untied_share, "non_vocab_denominator": vocab_for_non_vocab_share,
                        "parameters_not_tokens": vocab_in_parameters, "d_dropped_in_total": vocab_without_d_in_total,
                        "inverted_fraction": vocab_of_inverted_fraction, "float_bound": vocab_ceil_of_the_float_bound,
                        "padded": vocab_padded_to_64, "sign_slip": vocab_with_sign_slip,
                        "share_dropped": vocab_without_the_share_on_top, "d_in_numerator": vocab_times_the_width,
                        "precedence_slip": vocab_with_precedence_slip, "one_past_the_bound": vocab_ceil_plus_one},
}

CAUGHT = {
    "saved_shares": [shares_by_floor_division, shares_untied_by_wrong_link],
}

SHORTCUTS = {
    "saved_shares": [shares_only_of_tied, shares_as_text],
    "saving_from_config": [saving_as_float_count, saving_flag_as_count],
    "vocab_for_share": [vocab_as_float],
}
