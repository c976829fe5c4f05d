"""Lesson 06: nearest neighbours of a word by cosine similarity of its row in a (V, d) matrix.

(The lesson's exercise 3 asks you to write the core of this yourself.)
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from lmtie_edu.shared.language import tr
from lmtie_edu.shared.validation import check_matrix, check_positive_int

from .corpus import SPECIALS, Vocabulary


def nearest_neighbours(matrix: torch.Tensor, vocabulary: Vocabulary, word: str, k: int = 5) -> list[tuple[str, float]]:
    """The ``k`` words whose rows have the highest cosine with ``word``'s row (the word itself and the
    special tokens excluded), best first, as ``(word, cosine)``."""
    if not isinstance(vocabulary, Vocabulary):
        raise TypeError(tr("vocabulary must be a corpus.Vocabulary; got {type}", type=type(vocabulary).__name__))
    check_matrix(matrix, "matrix", shape=(len(vocabulary), None))   # also rejects NaN/inf and meta tensors
    if not isinstance(word, str):
        raise TypeError(tr("word must be a str; got {word!r}", word=word))
    k = check_positive_int(k, "k")
    if k > len(vocabulary) - len(SPECIALS) - 1:
        raise ValueError(tr("k must be at most {limit} (the other words); got {k}",
                            limit=len(vocabulary) - len(SPECIALS) - 1, k=k))
    if word not in vocabulary:
        raise ValueError(tr("{word!r} is not in the vocabulary of {size} words (it would be <unk>)", word=word,
                            size=len(vocabulary)))
    unit = F.normalize(matrix.double(), dim=1)
    scores = unit @ unit[vocabulary.index[word]]
    scores[vocabulary.index[word]] = -math.inf
    scores[:len(SPECIALS)] = -math.inf  # <unk> and <eos> are not words
    top = torch.topk(scores, k)
    return [(vocabulary.words[i], float(s)) for s, i in zip(top.values.tolist(), top.indices.tolist(), strict=True)]
