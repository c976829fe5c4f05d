"""A synthetic next-token corpus with a Zipf law: the toy text of lessons 02 and 03.

Words follow p(rank k) ∝ 1/k**1.1 like real text, each word has one favourite successor (so there is
something to learn), and sentences are framed by ``<bos>`` (only ever an input) and ``<eos>`` (only ever
a target). Small enough to train on in a second; deterministic given its seed.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from .language import tr
from .training import make_windows
from .validation import check_memory, check_number, check_positive_int, check_seed

BOS, EOS = 0, 1  # sentence start (only ever an input) and end (only ever a target)
MAX_WORDS = 10_000_000  # vocabulary sizes and token counts beyond these are mistakes, not toy corpora
MAX_TOKENS = 2_000_000  # about 5 s of building (one Python step per word): more is not a toy corpus


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
        raise ValueError(tr("n_words must be at most {limit:,}; got {n_words:,}", limit=MAX_WORDS, n_words=n_words))
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
    seed = check_seed(seed)
    call = f"zipf_corpus(n_sentences={n_sentences:,}, vocab_size={vocab_size:,}, context={context:,}, mean_length={mean_length:,})"
    tokens = n_sentences * (mean_length + context + 1)  # the expected length of the stream
    if vocab_size - 2 > MAX_WORDS or tokens > MAX_TOKENS:
        raise ValueError(tr("{call} is too large for a toy corpus: vocab_size must be at most {words:,} and "
                            "n_sentences * (mean_length + context + 1) at most {limit:,} tokens (about 5 s to "
                            "build); got {tokens:,} tokens",
                            call=call, words=MAX_WORDS + 2, limit=MAX_TOKENS, tokens=tokens))
    # the stream as a list, its windows (twice: all, then those kept) and the favourites
    check_memory(tokens * (40 + 2 * 8 * (context + 1)) + 24 * vocab_size, call,
                 tr("use a smaller context or n_sentences"))
    generator = torch.Generator().manual_seed(seed)
    probabilities = zipf_probabilities(vocab_size - 2, exponent)

    def draw(n: int) -> torch.Tensor:
        return torch.multinomial(probabilities, n, replacement=True, generator=generator) + 2

    favourite = torch.cat([torch.zeros(2, dtype=torch.long), draw(vocab_size - 2)]).tolist()
    lengths = 1 + torch.poisson(torch.full((n_sentences,), float(mean_length - 1)), generator=generator).long()
    fresh = draw(int(lengths.sum())).tolist()
    follow = (torch.rand(int(lengths.sum()), generator=generator) < 0.5).tolist()
    stream, position = [], 0
    for length in lengths.tolist():  # plain lists: indexing a tensor per word would be 10x slower
        words = fresh[position:position + length]
        for t in range(1, length):
            if follow[position + t]:
                words[t] = favourite[words[t - 1]]
        position += length
        stream += [BOS] * context + words + [EOS]
    inputs, targets = make_windows(torch.tensor(stream), context)
    keep = ~(inputs == EOS).any(dim=1)  # drop windows that would read across a sentence end
    inputs, targets = inputs[keep], targets[keep]
    return ZipfCorpus(inputs, targets, vocab_size,
                      as_input=_windows_containing(inputs, vocab_size),
                      as_target=torch.bincount(targets, minlength=vocab_size))


def _windows_containing(inputs: torch.Tensor, vocab_size: int) -> torch.Tensor:
    """How many windows contain each token (once per window): memory grows with the windows, not with V."""
    ordered = inputs.sort(dim=1).values
    first = torch.ones_like(ordered, dtype=torch.bool)
    first[:, 1:] = ordered[:, 1:] != ordered[:, :-1]  # the first of each run of equal ids in a sorted row
    return torch.bincount(ordered[first], minlength=vocab_size)
