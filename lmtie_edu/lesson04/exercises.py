"""Checks for the lesson 04 exercises."""

import math

from lmtie_edu.kit.exercises import Mismatch, exercise, expect_type, hint

from . import solutions
from .counts import gpt_parameter_breakdown

__all__ = ["hint", "saved_shares", "saving_from_config", "vocab_for_share"]  # the lesson calls ex.hint("name")

# (V, d, layers) of GPT-style models: GPT-2 small, GPT-2 XL and two made-up ones
_GPT_SHAPES = [(50_257, 768, 12), (50_257, 1600, 48), (32_000, 512, 6), (100_000, 2048, 24)]

# The published config.json values (the keys that matter) of Llama-style models, two of them not in the lesson
_LLAMA_KEYS = ("vocab_size", "hidden_size", "intermediate_size", "num_hidden_layers", "num_attention_heads",
               "num_key_value_heads", "tie_word_embeddings")
CONFIGS = {name: dict(zip(_LLAMA_KEYS, values, strict=True), architectures=["LlamaForCausalLM"],
                      max_position_embeddings=positions, rope_theta=theta, torch_dtype="bfloat16")
           for name, values, positions, theta in (
               ("SmolLM2-135M", (49_152, 576, 1536, 30, 9, 3, True), 8192, 100_000.0),
               ("TinyLlama-1.1B", (32_000, 2048, 5632, 22, 32, 4, False), 2048, 10_000.0),
               ("Llama-3.2-1B", (128_256, 2048, 8192, 16, 32, 8, True), 131_072, 500_000.0),
               ("Llama-2-7B", (32_000, 4096, 11_008, 32, 32, 32, False), 4096, 10_000.0),
               ("Llama-3-8B", (128_256, 4096, 14_336, 32, 32, 8, False), 8192, 500_000.0))}


def _close(a, b) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def _pair(got, what: str, kinds: tuple) -> tuple:
    """The learner's answer as a checked pair; ``kinds`` are the accepted types of its two items."""
    expect_type(got, (tuple, list), what)
    if len(got) != 2:
        raise Mismatch(f"{what} must return a pair", 2, f"{len(got)} items")
    for item, kind in zip(got, kinds, strict=True):
        expect_type(item, kind, f"{what} (each item of the pair)")
    return tuple(got)


@exercise(solutions.saved_shares,
          hints=["Tying removes exactly one V×d matrix, whatever else the model holds. From the total as built you "
                 "can get the other total by adding or removing that matrix; which of the two depends on `ties`.",
                 "A build that ties holds the tied total, and the untied one is larger by V·d; a build that does not "
                 "tie holds the untied total, and the tied one is smaller by V·d. Divide V·d by each total: the "
                 "share of the tied total first."],
          mistakes={
              "swapped": "your two shares are in the wrong order. The pair is (share of the tied total, share of "
                         "the untied total); the share of the tied total is the larger one.",
              "ignores_ties": "your shares are right for a build that ties and wrong for one that does not: you "
                              "treated `total` as the tied total every time. When ties is False, `total` already "
                              "holds both matrices.",
              "percent": "your numbers are 100 times too large: the exercise asks for shares (fractions such as "
                         "0.31), not percentages.",
          })
def saved_shares(answer, solution):
    cases = [(V, d, sum(gpt_parameter_breakdown(V, d, layers, tie=ties).values()), ties)
             for V, d, layers in _GPT_SHAPES for ties in (True, False)]
    for V, d, total, ties in cases:
        what = f"saved_shares(vocab_size={V}, d_model={d}, total={total:,}, ties={ties})"
        got = _pair(answer(V, d, total, ties), what, ((int, float), (int, float)))
        expected = solution(V, d, total, ties)
        if all(map(_close, got, expected)):
            continue
        saving = V * d
        wrong = {"swapped": expected[::-1], "ignores_ties": (saving / total, saving / (total + saving)),
                 "percent": (100 * expected[0], 100 * expected[1])}
        mistake = next((key for key, value in wrong.items() if all(map(_close, got, value))), None)
        raise Mismatch(f"{what}: wrong shares", expected, got, mistake=mistake)
    return len(cases)


@exercise(solutions.saving_from_config,
          hints=["Two questions: does the published model tie (the config says so in a flag), and how many "
                 "parameters does it have as published? Only a model that ties saved anything.",
                 "For the total, use the Llama-style count of §5 with the config's numbers (width, MLP width, "
                 "layers, attention heads and key/value heads); the head matrix counts only when the model does "
                 "not tie. The share divides the saving by that published total; an untied model saved 0."],
          mistakes={
              "ignores_tie": "this model keeps a separate head (tie_word_embeddings is false), so tying saved "
                             "nothing: V·d is what tying *would* save. The circulating table of §3 makes the same "
                             "mistake with Llama-2-7B and -70B.",
              "untied_denominator": "your share divides by the untied total (the model plus a second V×d matrix). "
                                    "The exercise asks for the share of the model as published, which ties and "
                                    "holds the matrix once.",
              "full_kv": "your total is too large: it gives K and V as many heads as Q. These models use "
                         "grouped-query attention: K and V have num_key_value_heads heads of size "
                         "hidden_size / num_attention_heads each.",
          })
def saving_from_config(answer, solution):
    for name, config in CONFIGS.items():
        what = f"saving_from_config(the config of {name})"
        got = _pair(answer(dict(config)), what, (int, (int, float)))   # a copy: the learner may change it
        expected = solution(config)
        if got[0] == expected[0] and _close(got[1], expected[1]):
            continue
        V, d = config["vocab_size"], config["hidden_size"]
        mistake = None
        if not config["tie_word_embeddings"] and got[0] == V * d:
            mistake = "ignores_tie"
        elif config["tie_word_embeddings"] and got[0] == expected[0]:
            full_kv = solution({**config, "num_key_value_heads": config["num_attention_heads"]})
            if _close(got[1], V * d / (V * d / expected[1] + V * d)):
                mistake = "untied_denominator"
            elif _close(got[1], full_kv[1]):
                mistake = "full_kv"
        raise Mismatch(f"{what}: wrong (parameters saved, share of the published total)", expected, got,
                       mistake=mistake)
    return len(CONFIGS)


@exercise(solutions.vocab_for_share,
          hints=["Write the share of the tied total, V·d / (N + V·d), and ask when it is at least `share`. Clear the "
                 "fraction: V then appears on both sides, and you can collect it on one.",
                 "You get a lower bound for V: share·N divided by d·(1 − share). V counts tokens, so return the "
                 "smallest whole number at least that large, as an int (and check it against the definition)."],
          mistakes={
              "rounds_down": "your V is one too small: its share stays just below the target. Rounding the bound "
                             "to the nearest or lower integer undershoots; the smallest V that reaches the share "
                             "is the bound rounded up.",
              "untied_total": "you solved for the share of the untied total (N + 2·V·d). The exercise asks for the "
                              "share of the tied total N + V·d, where the matrix is counted once.",
              "parameters_not_tokens": "your number is d times too large: it is the number of parameters V·d, "
                                       "not the number of tokens V. Divide by the width.",
          })
def vocab_for_share(answer, solution):
    cases = [(0.05, 4096, 6_476_271_616), (0.10, 768, 85_842_432), (0.30, 2048, 973_146_112), (0.01, 8192, 10**11)]
    for share, d, non_vocab in cases:
        what = f"vocab_for_share(share={share}, d_model={d}, non_vocab={non_vocab:,})"
        got = answer(share, d, non_vocab)
        expect_type(got, int, what)
        expected = solution(share, d, non_vocab)
        if got == expected:
            continue
        wrong = {"rounds_down": [expected - 1, math.floor(share * non_vocab / (d * (1 - share)))],
                 "untied_total": [math.ceil(share * non_vocab / (d * (1 - 2 * share)))],
                 "parameters_not_tokens": [math.ceil(share * non_vocab / (1 - share)), expected * d]}
        mistake = next((key for key, values in wrong.items() if got in values), None)
        raise Mismatch(f"{what}: the smallest V reaching the share", expected, got, mistake=mistake)
    return len(cases)
