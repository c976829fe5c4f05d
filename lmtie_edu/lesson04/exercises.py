"""Checks for the lesson 04 exercises."""

import copy
import math

from lmtie_edu.kit.exercises import Mismatch, exercise, expect_type, hint
from lmtie_edu.shared.language import N_, tr

from . import solutions
from .counts import gpt_parameter_breakdown
from .exercise_cases import CONFIGS, GPT_SHAPES, VOCAB_CASES, close, config_where, shares_where, vocab_where

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
        by_value = {"swapped": expected[::-1], "percent": (100 * expected[0], 100 * expected[1])}
        if wrong == [False] and as_tied:
            mistake = "ignores_ties"
        elif wrong == [True] and as_untied:
            mistake = "assumes_untied"
        elif wrong == [True, False] and as_untied and as_tied:
            mistake = "ties_backwards"
        else:
            mistake = next((key for key, value in by_value.items() if _matches(got, value)), None)
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
          })
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
            total = expected[0] / expected[1]
            full_kv = solution({**config, "num_key_value_heads": config["num_attention_heads"]})
            by_total = {"untied_denominator": total + V * d, "non_vocab_denominator": total - V * d,
                        "final_norm": total - d, "full_kv": expected[0] / full_kv[1]}
            mistake = next((key for key, n in by_total.items() if close(got[1], V * d / n)), None)
        raise Mismatch(tr("{what}: wrong (parameters saved, share of the published total)", what=what), expected, got,
                       mistake=mistake, where=config_where(got, expected, V, d))
    return len(CONFIGS)


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
        wrong = {"rounds_down": [expected - 1, math.floor(bound)],
                 "one_too_many": [expected + 1],
                 "untied_total": [math.ceil(share * non_vocab / (d * (1 - 2 * share)))],
                 "non_vocab_denominator": [math.ceil(non_vocab_bound), math.floor(non_vocab_bound),
                                           round(non_vocab_bound)],
                 "parameters_not_tokens": [math.ceil(share * non_vocab / (1 - share)), expected * d]}
        mistake = next((key for key, values in wrong.items() if got in values), None)
        raise Mismatch(tr("{what}: the smallest V reaching the share", what=what), expected, got, mistake=mistake,
                       where=vocab_where(got, share, d, non_vocab))
    return len(VOCAB_CASES)
