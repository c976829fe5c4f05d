"""Checks for the lesson 04 exercises."""

import math

from ..param_counts import gpt_parameter_breakdown
from ..solutions import lesson04 as solutions
from . import Mismatch, exercise

# (V, d, layers) of GPT-style models: GPT-2 small, GPT-2 XL and two made-up ones
_GPT_SHAPES = [(50_257, 768, 12), (50_257, 1600, 48), (32_000, 512, 6), (100_000, 2048, 24)]


def _close(got, expected, what):
    if not isinstance(got, (int, float)) or not math.isclose(got, expected, rel_tol=1e-9, abs_tol=1e-12):
        raise Mismatch(what, expected, got)


@exercise(solutions.saved_shares, hint="the saving is V·d whichever way; the tied total holds one V×d matrix, "
          "the untied total two — from the total as built, add or subtract V·d to get the other one.")
def saved_shares(answer, solution):
    cases = []
    for V, d, layers in _GPT_SHAPES:
        for ties in (True, False):
            cases.append((V, d, sum(gpt_parameter_breakdown(V, d, layers, tie=ties).values()), ties))
    for V, d, total, ties in cases:
        got = answer(V, d, total, ties)
        expected = solution(V, d, total, ties)
        if not isinstance(got, (tuple, list)) or len(got) != 2:
            raise Mismatch(f"saved_shares({V}, {d}, {total}, {ties}) must return a pair (of tied, of untied)",
                           "a tuple of 2 floats", got)
        what = f"saved_shares(vocab_size={V}, d_model={d}, total={total:,}, ties={ties})"
        _close(got[0], expected[0], what + "[0] (share of the tied total)")
        _close(got[1], expected[1], what + "[1] (share of the untied total)")
    return len(cases)


@exercise(solutions.gpt2_parameter_count, hint="per block: fused QKV (d×3d + 3d), output projection (d×d + d), "
          "MLP d→4d→d with biases, two LayerNorms (scale and bias); plus token and position tables, a final "
          "LayerNorm and, only if untied, a head V×d without bias.")
def gpt2_parameter_count(answer, solution):
    cases = [(V, d, layers, 1024, tie) for V, d, layers in _GPT_SHAPES for tie in (True, False)]
    cases.append((1_000, 64, 2, 128, True))
    for case in cases:
        expected = solution(*case)
        assert expected == sum(gpt_parameter_breakdown(case[0], case[1], case[2], n_positions=case[3], tie=case[4]).values())
        got = answer(*case)
        if got != expected:
            V, d, layers, positions, tie = case
            diff = f" (off by {got - expected:+,})" if isinstance(got, int) else ""
            raise Mismatch(f"gpt2_parameter_count(V={V}, d={d}, layers={layers}, positions={positions}, "
                           f"tie={tie}){diff}", expected, got)
    return len(cases)


@exercise(solutions.vocab_for_share, hint="solve V·d / (N + V·d) >= s for V: V >= s·N / (d·(1 − s)), "
          "then round up to a whole number of tokens.")
def vocab_for_share(answer, solution):
    cases = [(0.05, 4096, 6_476_271_616), (0.10, 768, 85_842_432), (0.30, 2048, 973_146_112), (0.01, 8192, 10**11)]
    for share, d, non_vocab in cases:
        expected = solution(share, d, non_vocab)
        got = answer(share, d, non_vocab)
        if got != expected:
            raise Mismatch(f"vocab_for_share(share={share}, d_model={d}, non_vocab={non_vocab:,}) — the smallest "
                           "V reaching the share", expected, got)
    return len(cases)
