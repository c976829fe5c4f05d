"""A synthetic next-token corpus with a Zipf law: the toy text of lessons 02 and 03.

Words follow p(rank k) ∝ 1/k**1.1 like real text, each word has one favourite successor (so there is
something to learn), and sentences are framed by ``<bos>`` (only ever an input) and ``<eos>`` (only ever
a target). Small enough to train on in a second; deterministic given its seed.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from .training import make_windows
from .validation import check_number, check_positive_int

BOS, EOS = 0, 1  # sentence start (only ever an input) and end (only ever a target)
MAX_WORDS = 10_000_000  # vocabulary sizes and token counts beyond these are mistakes, not toy corpora
MAX_TOKENS = 50_000_000


@dataclass
class ZipfCorpus:
    """Next-token windows of a synthetic corpus, and how often each token occurs where."""

    inputs: torch.Tensor  # (N, context) token ids
    targets: torch.Tensor  # (N,)
    vocab_size: int
    as_input: torch.Tensor  # (V,) number of windows whose input contains the token
    as_target: torch.Tensor  # (V,) number of windows whose target is the token

    def labels(self) -> list[str]:
        return ["<bos>", "<eos>"] + [f"w{i}" for i in range(2, self.vocab_size)]


def zipf_probabilities(n_words: int, exponent: float = 1.1) -> torch.Tensor:
    """p(rank k) ∝ 1 / k**exponent for k = 1..n_words (a Zipf law), as a float64 tensor summing to 1."""
    n_words = check_positive_int(n_words, "n_words")
    if n_words > MAX_WORDS:
        raise ValueError(f"n_words must be at most {MAX_WORDS:,}; got {n_words:,}")
    check_number(exponent, "exponent", minimum=0, maximum=5)
    weights = torch.arange(1, n_words + 1, dtype=torch.float64) ** -float(exponent)
    return weights / weights.sum()


def zipf_corpus(n_sentences: int = 1500, vocab_size: int = 120, *, context: int = 2, exponent: float = 1.1,
                mean_length: int = 8, seed: int = 0) -> ZipfCorpus:
    """Sentences of Zipf-distributed words, cut into next-token windows that never cross a sentence.

    Token 0 is ``<bos>`` (pads the start of every sentence, so it is only ever an input), token 1
    is ``<eos>`` (ends every sentence, so it is only ever a target), tokens 2.. are words whose
    frequencies follow a Zipf law. To give a model something to learn, each word has one
    favourite successor (itself a Zipf draw), chosen half of the time. Deterministic given ``seed``.
    """
    n_sentences = check_positive_int(n_sentences, "n_sentences")
    vocab_size = check_positive_int(vocab_size, "vocab_size", minimum=4)
    context = check_positive_int(context, "context")
    mean_length = check_positive_int(mean_length, "mean_length")
    seed = check_positive_int(seed, "seed", minimum=0)
    if vocab_size - 2 > MAX_WORDS or n_sentences * (mean_length + context + 1) > MAX_TOKENS:
        raise ValueError(f"zipf_corpus(n_sentences={n_sentences:,}, vocab_size={vocab_size:,}, mean_length={mean_length}) "
                         f"is too large for a toy corpus: at most {MAX_WORDS:,} words and about {MAX_TOKENS:,} tokens")
    generator = torch.Generator().manual_seed(seed)
    probabilities = zipf_probabilities(vocab_size - 2, exponent)

    def draw(n: int) -> torch.Tensor:
        return torch.multinomial(probabilities, n, replacement=True, generator=generator) + 2

    favourite = torch.cat([torch.zeros(2, dtype=torch.long), draw(vocab_size - 2)])
    lengths = 1 + torch.poisson(torch.full((n_sentences,), float(mean_length - 1)), generator=generator).long()
    fresh = draw(int(lengths.sum()))
    follow = torch.rand(int(lengths.sum()), generator=generator) < 0.5
    stream, position = [], 0
    for length in lengths.tolist():
        words = fresh[position:position + length].clone()
        for t in range(1, length):
            if follow[position + t]:
                words[t] = favourite[words[t - 1]]
        position += length
        stream += [BOS] * context + words.tolist() + [EOS]
    inputs, targets = make_windows(torch.tensor(stream), context)
    keep = ~(inputs == EOS).any(dim=1)  # drop windows that would read across a sentence end
    inputs, targets = inputs[keep], targets[keep]
    return ZipfCorpus(inputs, targets, vocab_size,
                      as_input=_windows_containing(inputs, vocab_size),
                      as_target=torch.bincount(targets, minlength=vocab_size))


def _windows_containing(inputs: torch.Tensor, vocab_size: int) -> torch.Tensor:
    present = torch.zeros(len(inputs), vocab_size, dtype=torch.bool)
    present.scatter_(1, inputs, True)
    return present.sum(dim=0)
