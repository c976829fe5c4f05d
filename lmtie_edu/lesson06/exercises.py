"""Checks for the lesson 06 exercises (a vocabulary, perplexity over mixed targets, cosine neighbours)."""

import contextlib
import math
from collections import Counter

import torch

from lmtie_edu.kit.exercises import Mismatch, Shortcut, exercise, expect_equal, expect_type, hint

from . import solutions
from .corpus import SPECIALS, Vocabulary

__all__ = ["build_vocabulary", "combined_perplexity", "cosine_neighbours", "hint"]  # the lesson calls ex.hint("name")

_TOKEN_CASES = [
    ("the cat sat on the mat . the dog sat on the log . <eos>".split(), 6),
    ("b a b a c c d e e e f <eos> z".split(), 5),
    ("x y x y w w".split(), 10),
    ("the cat sat on the mat . the dog sat on the log . <eos>".split(), 10),   # singletons stay out
    ("one two two <eos> three three one <eos> two".split(), 4),                  # '<eos>' twice: still once
]


def _vocabulary_variant(tokens, size, *, min_count=2, alphabetical=True, specials_in_size=True):
    """The vocabulary rule with one decision changed: what a known mistake returns."""
    counts = Counter(tokens)
    admitted = [w for w in counts if counts[w] >= min_count and w not in SPECIALS]
    ranked = sorted(admitted, key=(lambda w: (-counts[w], w)) if alphabetical else (lambda w: -counts[w]))
    return list(SPECIALS) + ranked[:size - (len(SPECIALS) if specials_in_size else 0)]


@contextlib.contextmanager
def _without_the_lessons_vocabulary():
    """Inside: the lesson's own ``Vocabulary.from_tokens`` refuses to run (the exercise is to write it)."""
    saved = Vocabulary.__dict__["from_tokens"]

    def refuse(*args, **kwargs):
        raise Shortcut("the lesson's Vocabulary.from_tokens")

    Vocabulary.from_tokens = classmethod(refuse)
    try:
        yield
    finally:
        Vocabulary.from_tokens = saved


@exercise(solutions.build_vocabulary, hints=[
    "Three decisions make the list: which words are admitted at all (section 2 says which ones never are), in "
    "what order they come, and where the list stops. The two special tokens come first and count towards `size`.",
    "Count every token; leave out the words seen only once and the two special tokens themselves; order the "
    "rest by count, highest first, and break equal counts alphabetically (one sort whose key has two parts "
    "does both); stop when the list, specials included, has `size` words."],
    mistakes={
        "keeps_singletons": "your list admits words seen only once. Section 2 explains why they must stay "
                            "<unk>: otherwise <unk> never occurs as a training target and every unknown word "
                            "in new text costs a very large loss.",
        "ties_not_alphabetical": "words with equal counts are in the order they first appeared in the text; the "
                                 "rule breaks ties alphabetically, so that the ids do not depend on the order "
                                 "of the text.",
        "size_without_specials": "your list has `size` words besides '<unk>' and '<eos>'; `size` is V, the number "
                                 "of rows of the matrix, and the two specials have rows too.",
    })
def build_vocabulary(answer, solution):
    for tokens, size in _TOKEN_CASES:
        expected = solution(tokens, size)
        assert expected == Vocabulary.from_tokens(tokens, len(expected)).words  # the lesson's own vocabulary agrees
        with _without_the_lessons_vocabulary():
            got = answer(list(tokens), size)
        what = f"build_vocabulary({' '.join(tokens)!r}.split(), {size})"
        expect_type(got, list, what)
        wrong = {"keeps_singletons": _vocabulary_variant(tokens, size, min_count=1),
                 "ties_not_alphabetical": _vocabulary_variant(tokens, size, alphabetical=False),
                 "size_without_specials": _vocabulary_variant(tokens, size, specials_in_size=False)}
        expect_equal(got, expected, what, wrong={key: value for key, value in wrong.items() if value != expected})
    return len(_TOKEN_CASES)


_PERPLEXITY_CASES = [(145.5, 4.6, 0.257), (200.0, 7.0, 0.132), (80.0, 3.0, 0.0), (60.0, 5.0, 0.75)]


@exercise(solutions.combined_perplexity, hints=[
    "Perplexities do not average. What averages over the targets is the cross-entropy, and a perplexity is "
    "the exponential of a mean cross-entropy.",
    "Turn each of the two perplexities back into the mean cross-entropy it came from (a logarithm), take the "
    "mean of the two weighted by how many targets each kind has, and turn the result into a perplexity again."],
    mistakes={
        "averaged_perplexities": "you averaged the two perplexities. A perplexity is the exponential of a mean "
                                 "cross-entropy, so the averaging happens on the log scale: the result is a "
                                 "weighted geometric mean, much lower than the arithmetic one when the two differ "
                                 "a lot (a few easy <unk> targets pull the perplexity down strongly).",
        "swapped_shares": "the weights are swapped: `unk_share` is the share of <unk> targets, so it weighs the "
                          "<unk> perplexity, and the rest (1 − unk_share) weighs the real words.",
        "unweighted": "you gave both kinds of target the same weight; each kind counts as often as it occurs, "
                      "so weigh by the shares.",
    })
def combined_perplexity(answer, solution):
    for words, unk, share in _PERPLEXITY_CASES:
        expected = solution(words, unk, share)
        got = answer(words, unk, share)
        what = f"combined_perplexity({words}, {unk}, {share})"
        expect_type(got, float, what)
        if math.isclose(got, expected, rel_tol=1e-6):
            continue
        wrong = {"averaged_perplexities": (1 - share) * words + share * unk,
                 "swapped_shares": math.exp(share * math.log(words) + (1 - share) * math.log(unk)),
                 "unweighted": math.sqrt(words * unk)}
        mistake = next((key for key, value in wrong.items() if math.isclose(got, value, rel_tol=1e-6)), None)
        raise Mismatch(f"{what}: wrong value", round(expected, 3), round(got, 3) if math.isfinite(got) else got,
                       mistake=mistake)
    return len(_PERPLEXITY_CASES)


def _dot_product_neighbours(W, row, k):
    scores = W @ W[row]
    scores[row] = -math.inf
    return torch.topk(scores, k).indices.tolist()


def _neighbours_with_itself(W, row, k):
    unit = torch.nn.functional.normalize(W, dim=1)
    return torch.topk(unit @ unit[row], k).indices.tolist()


@exercise(solutions.cosine_neighbours, hints=[
    "Cosine similarity compares directions only: the length of a row must not change its rank. And a row is "
    "always its own best match, which the question excludes.",
    "Give every row length one first, score all rows against the chosen one with a single product, make sure "
    "the chosen row itself can never be picked, then take the k highest scores in order (torch.topk)."],
    mistakes={
        "dot_product": "you ranked by the dot product, which grows with the length of a row: a row pointing the "
                       "same way but ten times longer wins by length alone. Cosine divides the lengths out.",
        "includes_itself": "the row itself is in your list (its cosine with itself is 1, the highest possible); "
                           "the question asks for the other rows.",
    })
def cosine_neighbours(answer, solution):
    generator = torch.Generator().manual_seed(60)
    W = torch.randn(12, 4, generator=generator)
    W[5] = W[3] * 10.0            # same direction, ten times longer: cosine 1, dot product much larger
    cases = [(W, 3, 3), (W, 0, 4), (torch.randn(30, 8, generator=generator), 7, 5)]
    for matrix, row, k in cases:
        expected = solution(matrix.clone(), row, k)
        got = answer(matrix.clone(), row, k)
        what = f"cosine_neighbours(W {tuple(matrix.shape)}, row={row}, k={k})"
        expect_type(got, list, what)
        if not all(isinstance(i, int) and not isinstance(i, bool) for i in got):
            raise Mismatch(f"{what} must return a list of ints (row ids)", expected,
                           [type(i).__name__ for i in got][:k])
        wrong = {"dot_product": _dot_product_neighbours(matrix.clone(), row, k),
                 "includes_itself": _neighbours_with_itself(matrix.clone(), row, k)}
        expect_equal(got, expected, what, wrong={key: value for key, value in wrong.items() if value != expected})
    return len(cases)
