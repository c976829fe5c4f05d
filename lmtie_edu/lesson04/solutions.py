"""Reference solutions, lesson 04 (parameter savings by scale).

Each function is self-contained (imports inside): `make solutions` pastes its source into a notebook cell.
"""


def saved_shares(vocab_size, d_model, total, ties):
    """Tying saves V·d. Return it as a share of the tied total and of the untied total.

    ``total`` is the model's count as built; ``ties`` says whether that build ties.
    """
    saving = vocab_size * d_model
    tied_total = total if ties else total - saving
    untied_total = total + saving if ties else total
    return saving / tied_total, saving / untied_total


def saving_from_config(config):
    """What tying saves in a published Llama-style model, read from its config.json (a dict).

    Returns (parameters saved, share of the published total): V·d and V·d / total when the model ties,
    (0, 0.0) when it keeps a separate head — then nothing was saved. A config without the flag keeps a separate
    head (LlamaConfig's default). The total counts grouped-query
    attention (K and V have num_key_value_heads heads), a SwiGLU MLP (three d × d_ff matrices) and RMSNorm
    scales (two per layer, one final); the head only when untied.
    """
    V, d, d_ff = config["vocab_size"], config["hidden_size"], config["intermediate_size"]
    d_kv = d // config["num_attention_heads"] * config["num_key_value_heads"]
    per_layer = 2 * d * d + 2 * d * d_kv + 3 * d * d_ff + 2 * d
    ties = config.get("tie_word_embeddings", False)   # left out: LlamaConfig's default, False
    total = V * d + config["num_hidden_layers"] * per_layer + d + (0 if ties else V * d)
    saved = V * d if ties else 0
    return saved, saved / total


def vocab_for_share(share, d_model, non_vocab):
    """Smallest vocabulary V whose V·d is at least ``share`` of the tied total non_vocab + V·d.

    V·d / (N + V·d) >= s  ⇔  V >= s·N / (d·(1 − s)).
    """
    import math

    exact = share * non_vocab / (d_model * (1 - share))
    vocab = math.ceil(exact)
    # guard against floating-point rounding at the boundary: check with the definition itself
    while vocab > 1 and (vocab - 1) * d_model / (non_vocab + (vocab - 1) * d_model) >= share:
        vocab -= 1
    while vocab * d_model / (non_vocab + vocab * d_model) < share:
        vocab += 1
    return vocab
