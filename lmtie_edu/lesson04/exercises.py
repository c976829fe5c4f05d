"""Checks for the lesson 04 exercises."""

import copy
import math

from lmtie_edu.kit.exercises import Mismatch, exercise, expect_type, hint
from lmtie_edu.shared.language import N_, tr

from . import mistake_texts, solutions
from .counts import gpt_parameter_breakdown
from .exercise_cases import CONFIGS, GPT_SHAPES, VOCAB_CASES, close, config_where, shares_where, vocab_where
from .mistakes import (
    always_around,
    always_shares,
    config_mistake,
    padded,
    shares_models,
    untied_share,
    vocab_models,
)


def cases_of_shares() -> list:
    """Every (V, d, total, ties) saved_shares is checked on."""
    return [(V, d, sum(gpt_parameter_breakdown(V, d, layers, tie=ties).values()), ties) for V, d, layers in GPT_SHAPES
            for ties in (True, False)]

__all__ = ["CONFIGS", "hint", "saved_shares", "saving_from_config", "vocab_for_share"]  # the lesson calls ex.hint


def _pair(got, what: str, kinds: tuple) -> tuple:
    """The learner's answer as a checked pair; ``kinds`` are the accepted types of its two items."""
    expect_type(got, (tuple, list), what)
    if len(got) != 2:
        raise Mismatch(tr("{what} must return a pair", what=what), 2, tr("{count} items", count=len(got)))
    for item, kind in zip(got, kinds, strict=True):
        expect_type(item, kind, tr("{what} (each item of the pair)", what=what))
    return tuple(got)


def _matches(got, value) -> bool:
    return all(map(close, got, value))


@exercise(solutions.saved_shares,
          hints=[N_("Tying removes exactly one V×d matrix, whatever else the model holds. From the total as built you "
                 "can get the other total by adding or removing that matrix; which of the two depends on `ties`."),
                 N_("A build that ties holds the tied total, and the untied one is larger by V·d; a build that does not "
                 "tie holds the untied total, and the tied one is smaller by V·d. Divide V·d by each total: the "
                 "share of the tied total first.")],
          mistakes={
              "swapped": N_("your two shares are in the wrong order. The pair is (share of the tied total, share of "
                         "the untied total); the share of the tied total is the larger one."),
              "ignores_ties": N_("your shares are right for a build that ties and wrong for one that does not: you "
                              "treated `total` as the tied total every time. When ties is False, `total` already "
                              "holds both matrices."),
              "assumes_untied": N_("your shares are right for a build that does not tie and wrong for one that does: "
                                "you treated `total` as the untied total every time. When ties is True, `total` "
                                "holds the matrix once: it is the tied total, and the untied one is total + V·d."),
              "ties_backwards": N_("you read `ties` backwards: you took `total` as the untied total when the build "
                                "ties, and as the tied total when it does not. A build that ties holds the matrix "
                                "once, so its total is the tied one."),
              "percent": N_("your numbers are 100 times too large: the exercise asks for shares (fractions such as "
                         "0.31), not percentages."),
              "rounded": N_("you rounded your shares. Return them as computed, unrounded: rounding is for printing "
                         "them, and a rounded share is no longer V·d divided by a total."),
              "two_matrices": N_("your shares are twice too large: you counted the saving as two V×d matrices. "
                              "Tying removes one matrix — the head's — and the embedding stays: the saving is V·d."),
              "complement": N_("you returned what is left, 1 − share, not the share saved. The saved share is V·d "
                            "divided by the total."),
              "untied_saves_nothing": N_("for a build that does not tie you returned zeros. It saved nothing, but "
                                      "the question is what tying saves, whichever way the model was built: V·d, "
                                      "as a share of the tied total (total − V·d here) and of the untied total "
                                      "(total itself)."),
              "ratio_to_rest": N_("each of your shares divides V·d by its total minus V·d, the rest of the model: "
                               "a ratio, not a share. A share divides V·d by the whole total, which holds V·d "
                               "itself."),
              "untied_minus_two": N_("for a build that does not tie, your first share divides by total − 2·V·d. "
                                  "That build holds the matrix twice, as embedding and head, and tying removes one: "
                                  "its tied total is total − V·d."),
              "tied_minus_saving": N_("for a build that ties, your second share divides by total − V·d. Untying adds "
                                   "a head matrix: the untied total is total + V·d."),
              **mistake_texts.SHARES,
              "untied_plus_matrix": N_("for a build that does not tie, your second share divides by total + V·d. "
                                    "That build's total already holds the head: it is the untied total itself, "
                                    "and only a build that ties needs V·d added."),
          })
def saved_shares(answer, solution):
    cases = 0
    for V, d, layers in GPT_SHAPES:
        saving, runs = V * d, {}
        for ties in (True, False):
            total = sum(gpt_parameter_breakdown(V, d, layers, tie=ties).values())
            what = f"saved_shares(vocab_size={V}, d_model={d}, total={total:,}, ties={ties})"
            got = _pair(answer(V, d, total, ties), what, ((int, float), (int, float)))
            runs[ties] = (what, total, got, solution(V, d, total, ties))
            cases += 1
        wrong = [ties for ties, (_, _, got, expected) in runs.items() if not _matches(got, expected)]
        if not wrong:
            continue
        what, total, got, expected = runs[wrong[0]]
        tied_total = runs[True][1]       # the total of the build that ties
        as_untied = _matches(runs[True][2], (saving / (tied_total - saving), saving / tied_total))
        as_tied = _matches(runs[False][2], (saving / runs[False][1], saving / (runs[False][1] + saving)))
        by_value = {"swapped": [expected[::-1]], "percent": [(100 * expected[0], 100 * expected[1])],
                    "rounded": [(cut(expected[0] * 10**n) / 10**n, cut(expected[1] * 10**n) / 10**n)
                                for n in range(1, 5) for cut in (round, math.floor, math.ceil)],
                    "two_matrices": [(2 * expected[0], 2 * expected[1])],
                    "complement": [(1 - expected[0], 1 - expected[1])],
                    "untied_saves_nothing": [(0, 0)] if wrong == [False] else [],
                    "untied_plus_matrix": [(expected[0], saving / (total + saving))] if wrong == [False] else []}
        if wrong == [False] and as_tied:
            mistake = "ignores_ties"
        elif wrong == [True] and as_untied:
            mistake = "assumes_untied"
        elif wrong == [True, False] and as_untied and as_tied:
            mistake = "ties_backwards"
        else:
            mistake = next((key for key, values in by_value.items() if any(_matches(got, v) for v in values)), None)
        if mistake is None:
            mistake = next((key for key, value in shares_models(V, d, total, wrong[0]).items()
                            if _matches(got, value) and always_shares(answer, cases_of_shares(), key)), None)
        raise Mismatch(tr("{what}: wrong shares", what=what), expected, got, mistake=mistake,
                       where=shares_where(got, V, d, total, wrong[0]))
    return cases


@exercise(solutions.saving_from_config,
          hints=[N_("Two questions: does the published model tie (the config says so in a flag), and how many "
                 "parameters does it have as published? Only a model that ties saved anything."),
                 N_("For the total, use the Llama-style count of §4 with the config's numbers (width, MLP width, "
                 "layers, attention heads and key/value heads); the head matrix counts only when the model does "
                 "not tie. The share divides the saving by that published total; an untied model saved 0.")],
          mistakes={
              "absent_flag_as_tied": N_("this config.json has no tie_word_embeddings key, and you read that as "
                                     "tied. transformers then takes the class's default, and LlamaConfig's is False "
                                     "(transformers 5.24): the model keeps its own head and tying saved nothing."),
              "ignores_tie": N_("this model keeps a separate head (tie_word_embeddings is false), so tying saved "
                             "nothing: V·d is what tying *would* save. The circulating table of §5 makes the same "
                             "mistake with Llama-2-7B and -70B."),
              "untied_denominator": N_("your share divides by the untied total (the model plus a second V×d matrix). "
                                    "The exercise asks for the share of the model as published, which ties and "
                                    "holds the matrix once."),
              "non_vocab_denominator": N_("your share divides by the non-vocabulary parameters only (the layers and "
                                       "the final norm, without the V×d matrix). The published total includes the "
                                       "shared matrix itself, once: divide V·d by (everything else + V·d)."),
              "full_kv": N_("your total is too large: it gives K and V as many heads as Q. These models use "
                         "grouped-query attention: K and V have num_key_value_heads heads of size "
                         "hidden_size / num_attention_heads each."),
              "final_norm": N_("your total is short by exactly d = hidden_size parameters: the final RMSNorm. After "
                            "the last layer a Llama-style model normalises once more, with one scale vector of "
                            "size d (besides the two per layer)."),
              "flag_indexed": N_("you read config[\"tie_word_embeddings\"] directly, and this config.json leaves "
                              "the flag out (a config may: transformers then takes the class's default, False for "
                              "LlamaConfig). Read it with that default: config.get(\"tie_word_embeddings\", False)."),
              "twelve_d_squared": N_("you counted 12·d² per layer, GPT-2's rule of thumb (full-width K and V, an MLP "
                                  "of width 4d). A Llama-style layer has grouped-query K and V (num_key_value_heads "
                                  "heads) and a SwiGLU MLP of width intermediate_size: 2·d² + 2·d·d_kv + 3·d·d_ff, "
                                  "plus its two norms."),
              "kv_heads_as_width": N_("your total is too small: K and V have num_key_value_heads heads of size "
                                   "hidden_size / num_attention_heads each, so their width is the number of K/V "
                                   "heads times that head size — you took the number of heads alone as the "
                                   "width."),
              "norm_biases": N_("you counted a bias in every norm of the layers (LayerNorm's 2·d). Llama-style "
                             "models use RMSNorm: one scale vector of d per norm, no bias."),
              "all_projections_kv_width": N_("you gave every attention projection, Q and the output too, the K/V "
                                          "width d_kv. Only K and V are grouped: Q and the output projection are "
                                          "d × d, so attention holds 2·d² + 2·d·d_kv."),
              "kv_ratio_inverted": N_("your K/V width is d / num_key_value_heads × num_attention_heads, the ratio "
                                   "upside down. A head has hidden_size / num_attention_heads numbers, and K and V "
                                   "have num_key_value_heads of them: d_kv = d / heads × kv_heads."),
              "mlp_width_4d": N_("you took the MLP's width as 4·d, GPT-2's habit. A Llama-style config gives it: "
                              "intermediate_size (d_ff), with three d × d_ff matrices."),
              "two_mlp_matrices": N_("you counted two MLP matrices per layer (up and down, as in GPT-2). A SwiGLU "
                                  "MLP has three d × d_ff matrices: gate, up and down."),
              "no_layer_norms": N_("your total leaves out the two RMSNorms inside every layer: each has a scale "
                                "vector of d, so 2·d per layer."),
              "one_kv_head": N_("you gave K and V a single head each (multi-query attention). These configs give "
                             "num_key_value_heads heads to K and V: d_kv = d / num_attention_heads × "
                             "num_key_value_heads."),
              **mistake_texts.CONFIG,
              "position_table": N_("you counted a learned position table of max_position_embeddings × d, as GPT-2 "
                                "has. Llama-style models use rotary position embeddings (RoPE; rope_theta in the "
                                "config): they have no parameters."),
          },
          on_error=lambda error: "flag_indexed" if isinstance(error, KeyError) and error.args == (
              "tie_word_embeddings",) else None)
def saving_from_config(answer, solution):
    for name, config in CONFIGS.items():
        what = tr("saving_from_config(the config of {name})", name=tr(name))
        got = _pair(answer(copy.deepcopy(config)), what, (int, (int, float)))  # the learner may change their copy
        expected = solution(config)
        if got[0] == expected[0] and close(got[1], expected[1]):
            continue
        V, d = config["vocab_size"], config["hidden_size"]
        mistake = None
        ties = config.get("tie_word_embeddings", False)
        if "tie_word_embeddings" not in config and got[0] == V * d:
            mistake = "absent_flag_as_tied"
        elif not ties and got[0] == V * d:
            mistake = "ignores_tie"
        elif ties and got[0] == expected[0]:
            mistake = config_mistake(answer, got, config, solution)   # each a total computed from the config
            if mistake is None and any(close(got[1], round(expected[1], n)) for n in range(1, 5)):
                mistake = "rounded_share"
        elif ties and tuple(got) == (0, 0):
            mistake = "tie_missed"
        elif not ties and untied_share(got, config, solution):
            mistake = "untied_share_not_zero"
        raise Mismatch(tr("{what}: wrong (parameters saved, share of the published total)", what=what), expected, got,
                       mistake=mistake, where=config_where(got, expected, V, d))
    return len(CONFIGS)


def _around(bound: float) -> list[int]:
    """The whole numbers an answer that solved for ``bound`` may return: rounded up, down, to the nearest."""
    return [math.ceil(bound), math.floor(bound), round(bound)]


@exercise(solutions.vocab_for_share,
          hints=[N_("Write the share of the tied total, V·d / (N + V·d), and ask when it is at least `share`. Clear the "
                 "fraction: V then appears on both sides, and you can collect it on one."),
                 N_("You get a lower bound for V: share·N divided by d·(1 − share). V counts tokens, so return the "
                 "smallest whole number at least that large, as an int (and check it against the definition).")],
          mistakes={
              "rounds_down": N_("your V is one too small: its share stays just below the target. Rounding the bound "
                             "to the nearest or lower integer undershoots; the smallest V that reaches the share "
                             "is the bound rounded up."),
              "one_too_many": N_("your V is one too large: V − 1 already reaches the share (here the bound is a whole "
                              "number, and V − 1 gives exactly the target — \"at least\" includes equality). "
                              "int(bound) + 1, or a search with a strict >, overshoots a whole bound; math.ceil "
                              "does not."),
              "untied_total": N_("you solved for the share of the untied total (N + 2·V·d). The exercise asks for the "
                              "share of the tied total N + V·d, where the matrix is counted once."),
              "non_vocab_denominator": N_("you solved V·d ≥ share·N: the share of the non-vocabulary parameters N. "
                                       "The share is of the tied total N + V·d, which contains the matrix itself, "
                                       "so V appears on both sides: V·d ≥ share·(N + V·d)."),
              "parameters_not_tokens": N_("your number is d times too large: it is the number of parameters V·d, "
                                       "not the number of tokens V. Divide by the width."),
              "d_dropped_in_total": N_("you wrote the tied total as N + V, without the width: the matrix holds V·d "
                                    "parameters, in the total as in the saving. Solve V·d / (N + V·d) ≥ share."),
              "float_bound": N_("your V is one too large: the bound is the whole number V − 1 here, but computed in "
                             "floating point it comes out a hair above it, and math.ceil rounds that up. Check the "
                             "condition exactly, in integers (V·d·(1 − share) ≥ share·N with share as a fraction), "
                             "or test V − 1 after rounding."),
              "inverted_fraction": N_("your bound is upside down: (1 − share)·N / (share·d) instead of "
                                   "share·N / ((1 − share)·d). From V·d ≥ share·(N + V·d): "
                                   "V·d·(1 − share) ≥ share·N."),
              "padded": N_("you rounded V up to a multiple of a power of two (vocabularies are often padded so, "
                        "64 for instance). The exercise asks for the smallest V that reaches the share, unpadded."),
              **mistake_texts.VOCAB,
          })
def vocab_for_share(answer, solution):
    for share, d, non_vocab in VOCAB_CASES:
        what = f"vocab_for_share(share={share}, d_model={d}, non_vocab={non_vocab:,})"
        got = answer(share, d, non_vocab)
        expect_type(got, int, what)
        expected = solution(share, d, non_vocab)
        if got == expected:
            continue
        bound, non_vocab_bound = share * non_vocab / (d * (1 - share)), share * non_vocab / d
        float_overshoot = math.ceil(bound) == expected + 1  # a whole bound a hair above itself in floating point
        wrong = {"float_bound": [expected + 1] if float_overshoot else [],
                 "rounds_down": [expected - 1, math.floor(bound)],
                 "one_too_many": [expected + 1] if not float_overshoot and math.isclose(bound, expected) else [],
                 "one_past_the_bound": [] if float_overshoot or math.isclose(bound, expected) else [expected + 1],
                 "untied_total": [math.ceil(share * non_vocab / (d * (1 - 2 * share)))],
                 "non_vocab_denominator": [math.ceil(non_vocab_bound), math.floor(non_vocab_bound),
                                           round(non_vocab_bound)],
                 "parameters_not_tokens": [math.ceil(share * non_vocab / (1 - share)), expected * d],
                 "d_dropped_in_total": _around(share * non_vocab / (d - share)),
                 "inverted_fraction": _around((1 - share) * non_vocab / (share * d)),
                 **{key: _around(bound) for key, bound in vocab_models(share, d, non_vocab).items()}}
        mistake = next((key for key, values in wrong.items() if got in values), None)
        if mistake in vocab_models(share, d, non_vocab) and not always_around(answer, mistake):
            mistake = None
        if mistake is None and padded(answer, solution):
            mistake = "padded"
        raise Mismatch(tr("{what}: the smallest V reaching the share", what=what), expected, got, mistake=mistake,
                       where=vocab_where(got, share, d, non_vocab))
    return len(VOCAB_CASES)
