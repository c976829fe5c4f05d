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


def gpt2_parameter_count(vocab_size, d_model, n_layers, n_positions, tie):
    """GPT-2: token and position tables, n_layers blocks of 12·d² + 13·d, a final LayerNorm, the head."""
    d = d_model
    per_block = 12 * d * d + 13 * d  # QKV 3d²+3d, out d²+d, MLP 8d²+5d, two LayerNorms 4d
    head = 0 if tie else vocab_size * d  # GPT-2's head has no bias
    return vocab_size * d + n_positions * d + n_layers * per_block + 2 * d + head


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
