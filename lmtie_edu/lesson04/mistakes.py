"""What known mistakes of the lesson 04 exercises give on a case, and whether an answer gives it on every case
(``exercises`` names a mistake only then: one case alone can fit another mistake too)."""

import copy
import math

from lmtie_edu.kit.feedback import LearnerCrash

from .exercise_cases import CONFIGS, VOCAB_CASES, close


def shares_models(V, d, total, ties) -> dict:
    """The (share of the tied total, share of the untied total) each mistake gives for one build."""
    saving = V * d
    tied = total if ties else total - saving
    expected = saving / tied, saving / (tied + saving)
    return {"ratio_to_rest": (saving / (tied - saving), saving / tied),
            "untied_minus_two": expected if ties else (saving / (total - 2 * saving), expected[1]),
            "tied_minus_saving": (expected[0], saving / (total - saving)) if ties else expected,
            "total_for_both": (saving / total, saving / total),
            "untied_for_both": (expected[1], expected[1]),
            "untied_plus_two": (expected[0], saving / (tied + 2 * saving)),
            "precedence_slip": (expected[0], saving / tied + saving) if ties else (saving / total - saving, expected[1])}


def always_shares(answer, cases: list, key: str) -> bool:
    """Does the answer give what the mistake ``key`` gives on every (V, d, total, ties) of ``cases``?"""
    try:
        return all(all(map(close, answer(*case), shares_models(*case)[key])) for case in cases)
    except (LearnerCrash, TypeError):
        return False


def _llama_total(config, *, d_kv=None, attention=None, d_ff=None, mlp_matrices=3, layer_norms=2) -> int:
    """The tied total of a Llama-style config, counted with the given slip."""
    V, d = config["vocab_size"], config["hidden_size"]
    d_kv = d // config["num_attention_heads"] * config["num_key_value_heads"] if d_kv is None else d_kv
    d_ff = config["intermediate_size"] if d_ff is None else d_ff
    attention = 2 * d * d + 2 * d * d_kv if attention is None else attention
    return V * d + config["num_hidden_layers"] * (attention + mlp_matrices * d * d_ff + layer_norms * d) + d


def config_totals(config, solution) -> dict:
    """The published totals each mistake counts for a config that ties (a share is V·d divided by one of them)."""
    V, d, layers = config["vocab_size"], config["hidden_size"], config["num_hidden_layers"]
    heads, kv_heads = config["num_attention_heads"], config["num_key_value_heads"]
    expected = solution(config)
    total = expected[0] / expected[1]
    full_kv = solution({**config, "num_key_value_heads": heads})
    kv_as_width = solution({**config, "num_attention_heads": d})   # a head size of 1: d_kv = the K/V heads
    d_kv = d // heads * kv_heads
    return {"untied_denominator": [total + V * d], "non_vocab_denominator": [total - V * d],
            "final_norm": [total - d], "full_kv": [expected[0] / full_kv[1]],
            "twelve_d_squared": [V * d + layers * (12 * d * d + norms) + final for norms in (0, 2 * d)
                                 for final in (0, d)],
            "kv_heads_as_width": [expected[0] / kv_as_width[1]],
            "norm_biases": [total + 2 * d * layers, total + 2 * d * layers + d],
            "position_table": [total + config["max_position_embeddings"] * d],
            "all_projections_kv_width": [_llama_total(config, attention=4 * d * d_kv)],
            "kv_ratio_inverted": [_llama_total(config, d_kv=d // kv_heads * heads)],
            "mlp_width_4d": [_llama_total(config, d_ff=4 * d)],
            "two_mlp_matrices": [_llama_total(config, mlp_matrices=2)],
            "no_layer_norms": [_llama_total(config, layer_norms=0)],
            "one_kv_head": [_llama_total(config, d_kv=d // heads)],
            "one_norm_per_layer": [_llama_total(config, layer_norms=1)],
            "no_norms": [_llama_total(config, layer_norms=0) - d],
            "one_layer_short": [total - (total - V * d - d) / layers],
            "percent": [total / 100],
            "projection_biases": [total + layers * (d + 2 * d_kv), total + layers * (2 * d + 2 * d_kv)]}


def untied_share(got, config, solution) -> bool:
    """Does a model that does not tie get 0 saved but a nonzero share, V·d over its total (or the tied one)?"""
    V, d = config["vocab_size"], config["hidden_size"]
    as_tied = solution({**config, "tie_word_embeddings": True})
    tied_total = as_tied[0] / as_tied[1]
    return got[0] == 0 and any(close(got[1], V * d / n) for n in (tied_total, tied_total + V * d))


def _gives(got, config, key, solution) -> bool:
    V, d = config["vocab_size"], config["hidden_size"]
    return any(close(got[1], V * d / n) for n in config_totals(config, solution)[key])


def config_mistake(answer, got, config, solution) -> str | None:
    """The first mistake whose total the answer's share divides by, on this config and on every config that
    ties (the answer is run again on each)."""
    for key in config_totals(config, solution):
        if not _gives(got, config, key, solution):
            continue
        try:
            if all(_gives(answer(copy.deepcopy(other)), other, key, solution) for other in CONFIGS.values()
                   if other.get("tie_word_embeddings", False)):
                return key
        except (LearnerCrash, TypeError, IndexError):
            return None
    return None


def vocab_models(share, d, non_vocab) -> dict:
    """The bound each slip in solving V·d ≥ share·(N + V·d) gives (rounded up, down or to the nearest)."""
    return {"sign_slip": share * non_vocab / (d * (1 + share)), "share_dropped": non_vocab / (d * (1 - share)),
            "d_in_numerator": share * non_vocab * d / (1 - share), "precedence_slip": share * non_vocab / d * (1 - share)}


def padded(answer, solution) -> int | None:
    """The multiple (8 … 256) the answer rounds the right V up to, on every case; None if it does not."""
    for multiple in (8, 16, 32, 64, 128, 256):
        try:
            if all(answer(*case) == multiple * math.ceil(solution(*case) / multiple) for case in VOCAB_CASES):
                return multiple
        except LearnerCrash:
            return None
    return None


def always_around(answer, key: str) -> bool:
    """Does the answer give the bound of the slip ``key`` (vocab_models), rounded some way, on every case?"""
    try:
        return all(answer(*case) in around(vocab_models(*case)[key]) for case in VOCAB_CASES)
    except LearnerCrash:
        return False


def around(bound: float) -> list[int]:
    """The whole numbers an answer that solved for ``bound`` may return: rounded up, down, to the nearest."""
    return [math.ceil(bound), math.floor(bound), round(bound)]
