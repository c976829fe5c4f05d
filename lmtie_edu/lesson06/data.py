"""Lesson 06 data: the Lee corpus cut into articles, a fixed vocabulary, and next-word windows.

The 300 training articles are the training text (a prefix of them is the lesson's knob). The 50
validation articles are split in two halves that never mix: the first 25 *select* (early stopping
picks its checkpoint there), the last 25 *report* (the perplexities the lesson quotes). A number
chosen on one half and reported on the same half would be optimistically biased.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

import torch

from lmtie_edu.shared.language import tr
from lmtie_edu.shared.news_corpus import lee_vocabulary, split_articles  # shared with lesson 08
from lmtie_edu.shared.training import make_windows
from lmtie_edu.shared.validation import check_positive_int

from .corpus import Corpus, Vocabulary

SELECT_ARTICLES = 25   # validation articles 0–24 choose the early-stopping checkpoint; 25–49 are reported


@dataclass
class LessonData:
    """Vocabulary, training articles and the two validation halves as (inputs, targets) windows."""

    corpus: Corpus
    vocabulary: Vocabulary
    context: int
    train_articles: list[list[str]]
    select: tuple[torch.Tensor, torch.Tensor]
    report: tuple[torch.Tensor, torch.Tensor]


def _windows(vocabulary: Vocabulary, articles: list[list[str]], context: int):
    return make_windows(vocabulary.encode([t for article in articles for t in article]), context)


_CACHE: dict[tuple[int, int], LessonData] = {}


def lesson_data(vocab_size: int = 2000, context: int = 3) -> LessonData:
    """The vocabulary of the ``vocab_size`` most frequent training words and the validation windows
    (computed once per setting; the vocabulary is built from all 300 training articles).

    Each call returns its own copy (tensors, vocabulary and article lists), which the learner may change; the
    corpus inside is shared, as it cannot be changed (tuples of str in a frozen dataclass)."""
    vocab_size = check_positive_int(vocab_size, "vocab_size", minimum=3)
    context = check_positive_int(context, "context")
    if context > 50:
        raise ValueError(tr("context must be at most 50 tokens (a validation half has a few thousand); got {context}",
                            context=context))
    key = (vocab_size, context)
    if key not in _CACHE:
        corpus, vocabulary = lee_vocabulary(vocab_size)
        validation = split_articles(corpus.val_tokens)
        _CACHE[key] = LessonData(corpus, vocabulary, context, split_articles(corpus.train_tokens),
                                 select=_windows(vocabulary, validation[:SELECT_ARTICLES], context),
                                 report=_windows(vocabulary, validation[SELECT_ARTICLES:], context))
    cached = _CACHE[key]
    return copy.deepcopy(cached, memo={id(cached.corpus): cached.corpus})


def _check_articles(data: LessonData, articles: int) -> int:
    if not isinstance(data, LessonData):
        raise TypeError(tr("data must come from lesson_data(); got {type}", type=type(data).__name__))
    articles = check_positive_int(articles, "articles")
    if articles > len(data.train_articles):
        raise ValueError(tr("articles must be at most {limit} (the training articles); got {articles}",
                            limit=len(data.train_articles), articles=articles))
    return articles


def training_windows(data: LessonData, articles: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Windows of the first ``articles`` training articles (nested subsets: 75 ⊂ 150 ⊂ 300)."""
    articles = _check_articles(data, articles)
    return _windows(data.vocabulary, data.train_articles[:articles], data.context)
