"""Lesson 08 data: the Lee news corpus as token ids, and the validation and test text as windows.

Training text: the 300 training articles, one stream of ids (the training loop cuts random windows). The 50
other articles are split in two halves that never mix: the first 25 are the *validation* split (early stopping
chooses its checkpoint there), the last 25 the *test* split (reported once, for the chosen checkpoint).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from lmtie_edu.shared.language import tr
from lmtie_edu.shared.news_corpus import Vocabulary, lee_vocabulary, split_articles
from lmtie_edu.shared.validation import check_positive_int

VALIDATION_ARTICLES = 25


@dataclass(frozen=True)
class LessonData:
    vocabulary: Vocabulary
    train_ids: torch.Tensor                      # (N,) the training stream
    validation: tuple[torch.Tensor, torch.Tensor]  # (inputs, targets), each (n, context)
    test: tuple[torch.Tensor, torch.Tensor]


def windows(ids: torch.Tensor, context: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Non-overlapping windows of ``context`` ids and, for each, the same window shifted by one (the targets)."""
    context = check_positive_int(context, "context")
    if not isinstance(ids, torch.Tensor) or ids.dim() != 1 or ids.dtype != torch.long:
        raise TypeError(tr("ids must be a 1-D tensor of token ids (torch.long)"))
    n = (len(ids) - 1) // context
    if n < 1:
        raise ValueError(tr("needs more than context={context} ids; got {count}", context=context, count=len(ids)))
    return ids[:n * context].view(n, context), ids[1:n * context + 1].view(n, context)


def lesson_data(vocab_size: int = 1000, context: int = 16) -> LessonData:
    """The ``vocab_size`` most frequent training words (plus ``<unk>``, ``<eos>``) and the three splits."""
    vocab_size = check_positive_int(vocab_size, "vocab_size", minimum=3)
    context = check_positive_int(context, "context")
    if context > 256:
        raise ValueError(tr("context must be at most 256 tokens (a test half has about 2,000); got {context}",
                            context=context))
    corpus, vocabulary = lee_vocabulary(vocab_size)
    other = split_articles(corpus.val_tokens)

    def ids(articles):
        return vocabulary.encode([token for article in articles for token in article])

    return LessonData(vocabulary, vocabulary.encode(corpus.train_tokens),
                      windows(ids(other[:VALIDATION_ARTICLES]), context),
                      windows(ids(other[VALIDATION_ARTICLES:]), context))
