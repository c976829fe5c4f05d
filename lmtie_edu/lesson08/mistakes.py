"""What the known mistakes of the lesson 08 exercises give on a case, so that the checks can recognise them
(``exercises`` names a mistake when the answer's value is the one computed here)."""

from __future__ import annotations

from torch import nn

from lmtie_edu.kit.feedback import LearnerCrash


def always_gives(answer, cases, model) -> bool:
    """Does the answer return ``model(*case)`` on every one of ``cases``? A crash: no. One case alone could be
    chance; every case is the mistake."""
    try:
        return all(answer(*case) == model(*case) for case in cases)
    except LearnerCrash:
        return False


# -- linear_only_groups ----------------------------------------------------------------------------------------------
def swapped_groups(model, got, expected) -> bool:
    """Are the answer's groups the expected ones in the other order, each with the other's weight decay?"""
    def ids(group):
        return sorted(id(p) for p in group["params"])
    return (got[0].get("weight_decay") == expected[1]["weight_decay"] and got[1].get("weight_decay")
            == expected[0]["weight_decay"] and ids(got[0]) == ids(expected[1]) and ids(got[1]) == ids(expected[0]))


def top_level_groups(model, names) -> list[list[str]]:
    """The names the split gives when it looks at model.children() only (not the nested modules)."""
    linear = {id(m.weight) for m in model.children() if isinstance(m, nn.Linear)}
    tables = {id(m.weight) for m in model.children() if isinstance(m, nn.Embedding)}
    decay = [p for p in model.parameters() if id(p) in linear and id(p) not in tables]
    return [sorted(names[id(p)] for p in decay), sorted(names[id(p)] for p in model.parameters()
                                                       if not any(p is q for q in decay))]


def in_neither_group(model, decay, no_decay) -> bool:
    """Does some Parameter of the model stand in neither group?"""
    grouped = {id(p) for p in (*decay, *no_decay)}
    return any(id(p) not in grouped for p in model.parameters())


# -- widest_tied: TinyGPT counted with a block (or a model) of another size ---------------------------------------------
def _widest_by(block, *, layers=None):
    def widest(vocab_size, d_model, n_layers, n_heads, context) -> int:
        def size(d, tie):
            return ((1 if tie else 2) * vocab_size * d + context * d + (n_layers if layers is None else layers) * block(d)
                    + 2 * d)

        budget, d = size(d_model, False), n_heads
        while size(d + n_heads, True) <= budget:
            d += n_heads
        return d
    return widest


WIDTH_MISTAKES = {  # named only when the answer gives the width in every case
    "attention_only_block": _widest_by(lambda d: 4 * d * d + 4 * d),  # (+ 2·d for its LayerNorm: the same widths)
    "mlp_as_wide_as_the_model": _widest_by(lambda d: 6 * d * d + 10 * d),
    "one_block": _widest_by(lambda d: 12 * d * d + 13 * d, layers=1),
}
