"""Lesson 04: one wrong answer per diagnosed mistake, and the shortcuts each check must refuse."""

import math

from lmtie_edu.lesson04 import solutions

# -- saved_shares ----------------------------------------------------------------------------------------------


def shares_swapped(vocab_size, d_model, total, ties):
    return solutions.saved_shares(vocab_size, d_model, total, ties)[::-1]


def shares_ignoring_ties(vocab_size, d_model, total, ties):
    saving = vocab_size * d_model
    return saving / total, saving / (total + saving)


def shares_in_percent(vocab_size, d_model, total, ties):
    return tuple(100 * s for s in solutions.saved_shares(vocab_size, d_model, total, ties))


def shares_only_of_tied(vocab_size, d_model, total, ties):  # one number where a pair is asked
    return solutions.saved_shares(vocab_size, d_model, total, ties)[0]


def shares_as_text(vocab_size, d_model, total, ties):
    return tuple(f"{100 * s:.2f}%" for s in solutions.saved_shares(vocab_size, d_model, total, ties))


# -- saving_from_config ------------------------------------------------------------------------------------------


def _llama_total(config, *, kv_heads=None, head=None):
    V, d, d_ff = config["vocab_size"], config["hidden_size"], config["intermediate_size"]
    kv = config["num_key_value_heads"] if kv_heads is None else kv_heads
    d_kv = d // config["num_attention_heads"] * kv
    per_layer = 2 * d * d + 2 * d * d_kv + 3 * d * d_ff + 2 * d
    with_head = not config["tie_word_embeddings"] if head is None else head
    return V * d + config["num_hidden_layers"] * per_layer + d + (V * d if with_head else 0)


def saving_ignoring_the_flag(config):
    saving = config["vocab_size"] * config["hidden_size"]
    return saving, saving / _llama_total(config)


def saving_of_untied_total(config):
    if not config["tie_word_embeddings"]:
        return 0, 0.0
    saving = config["vocab_size"] * config["hidden_size"]
    return saving, saving / _llama_total(config, head=True)


def saving_with_full_kv(config):
    if not config["tie_word_embeddings"]:
        return 0, 0.0
    saving = config["vocab_size"] * config["hidden_size"]
    return saving, saving / _llama_total(config, kv_heads=config["num_attention_heads"])


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


def vocab_in_parameters(share, d_model, non_vocab):
    return math.ceil(share * non_vocab / (1 - share))


def vocab_as_float(share, d_model, non_vocab):
    return float(solutions.vocab_for_share(share, d_model, non_vocab))


WRONG = {
    "saved_shares": {"swapped": shares_swapped, "ignores_ties": shares_ignoring_ties, "percent": shares_in_percent},
    "saving_from_config": {"ignores_tie": saving_ignoring_the_flag, "untied_denominator": saving_of_untied_total,
                           "full_kv": saving_with_full_kv},
    "vocab_for_share": {"rounds_down": vocab_rounded_down, "untied_total": vocab_for_untied_share,
                        "parameters_not_tokens": vocab_in_parameters},
}

SHORTCUTS = {
    "saved_shares": [shares_only_of_tied, shares_as_text],
    "saving_from_config": [saving_as_float_count, saving_flag_as_count],
    "vocab_for_share": [vocab_as_float],
}
