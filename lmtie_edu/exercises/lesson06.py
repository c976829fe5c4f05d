"""Checks for the lesson 06 exercises."""

import math

import torch

from ..corpus import Vocabulary
from ..solutions import lesson06 as solutions
from . import Mismatch, exercise, expect_equal

_TOKEN_CASES = [
    ("the cat sat on the mat . the dog sat on the log . <eos>".split(), 6),
    ("b a b a c c d e e e f <eos> z".split(), 5),
    ("x y x y w w".split(), 10),
    ("the cat sat on the mat . the dog sat on the log . <eos>".split(), 10),   # singletons stay out
]


@exercise(solutions.build_vocabulary, hint="count with collections.Counter, keep words seen at least twice, sort by "
          "(-count, word) so ties are alphabetical, and put '<unk>', '<eos>' first; stop at `size` words in all.")
def build_vocabulary(answer, solution):
    for tokens, size in _TOKEN_CASES:
        expected = solution(tokens, size)
        assert expected == Vocabulary.from_tokens(tokens, len(expected)).words  # the lesson's own vocabulary agrees
        got = answer(list(tokens), size)
        expect_equal(list(got) if isinstance(got, (list, tuple)) else got, expected,
                     f"build_vocabulary({' '.join(tokens)!r}.split(), {size})")
    return len(_TOKEN_CASES)


@exercise(solutions.perplexity_from_logits, hint="perplexity = exp(mean cross-entropy): F.cross_entropy already "
          "averages over the N positions; take exp of that mean (not of the sum).")
def perplexity_from_logits(answer, solution):
    generator = torch.Generator().manual_seed(6)
    cases = [(torch.zeros(4, 10), torch.tensor([0, 3, 9, 2])),              # uniform: perplexity = V
             (torch.randn(7, 5, generator=generator) * 3, torch.tensor([4, 0, 1, 1, 2, 3, 0]))]
    for logits, targets in cases:
        expected = solution(logits, targets)
        got = answer(logits.clone(), targets.clone())
        try:
            got = float(got)
        except (TypeError, ValueError):
            raise Mismatch("return one number (a float)", expected, got) from None
        if not math.isclose(got, expected, rel_tol=1e-4):
            raise Mismatch(f"perplexity of logits {tuple(logits.shape)}", round(expected, 4), round(got, 4))
    assert math.isclose(solution(*cases[0]), 10.0, rel_tol=1e-6)
    return len(cases)


@exercise(solutions.cosine_neighbours, hint="normalise the rows (F.normalize(W, dim=1)), score every row against "
          "row `row` with one matrix-vector product, set the row's own score to -inf, then torch.topk.")
def cosine_neighbours(answer, solution):
    generator = torch.Generator().manual_seed(60)
    W = torch.randn(12, 4, generator=generator)
    W[5] = W[3] * 10.0            # same direction, ten times longer: cosine 1, dot product much larger
    cases = [(W, 3, 3), (W, 0, 4), (torch.randn(30, 8, generator=generator), 7, 5)]
    for matrix, row, k in cases:
        expected = solution(matrix, row, k)
        got = answer(matrix.clone(), row, k)
        got = got.tolist() if isinstance(got, torch.Tensor) else list(got)
        expect_equal([int(i) for i in got], expected, f"cosine_neighbours(W {tuple(matrix.shape)}, row={row}, k={k})")
    return len(cases)
