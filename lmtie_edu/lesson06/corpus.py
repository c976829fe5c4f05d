"""Offline text for lesson 06: the Lee news corpus, a word vocabulary, and word-similarity benchmarks.

Everything here reads files shipped inside this package, in ``lmtie_edu/shared/data/`` (sources, licences and
checksums in the README there), so the lesson needs no network and reads the same bytes on every run:

- ``lee_background.cor`` (300 news articles, one per line) — the training text;
- ``lee.cor`` (50 further articles) — the validation text;
- ``simlex999.txt`` and ``wordsim353.tsv`` — human word-similarity ratings (``word1<TAB>word2<TAB>score``).

Error messages name the shipped files relative to the package, so that no machine path is ever printed.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from lmtie_edu.shared.language import tr

# The generic pieces (locating the shipped data files, reading, tokenising, the corpus, the vocabulary) live in
# lmtie_edu.shared.news_corpus, which lesson 08 uses too; their names stay importable from here.
from lmtie_edu.shared.news_corpus import (  # noqa: F401
    EOS,
    SPECIALS,
    TOKEN_PATTERN,
    UNK,
    Corpus,
    Vocabulary,
    _check_tokens,
    _display_name,
    corpus_from_files,
    data_file,
    load_lee_corpus,
    read_documents,
    token_stream,
    tokenize,
)
from lmtie_edu.shared.validation import check_choice

BENCHMARK_FILES = {"simlex999": "simlex999.txt", "wordsim353": "wordsim353.tsv"}


def unknown_rate(vocabulary: Vocabulary, tokens: Sequence[str]) -> float:
    """Fraction of ``tokens`` that the vocabulary maps to ``<unk>``."""
    tokens = _check_tokens(tokens)
    if not tokens:
        raise ValueError(tr("unknown_rate needs at least one token"))
    return sum(token not in vocabulary.index for token in tokens) / len(tokens)


# -- word-similarity benchmarks ------------------------------------------------------------------------
@dataclass(frozen=True)
class SimilarityBenchmark:
    """Word pairs with a human similarity score (higher = more similar)."""

    name: str
    pairs: tuple[tuple[str, str, float], ...]

    def __len__(self) -> int:
        return len(self.pairs)


def parse_similarity_lines(lines: Iterable[str], source: str) -> tuple[tuple[str, str, float], ...]:
    """Parse ``word1<TAB>word2<TAB>score`` lines; ``#`` lines and blank lines are skipped."""
    pairs = []
    for number, line in enumerate(lines, start=1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        fields = line.split("\t") if "\t" in line else line.split()
        if len(fields) < 3:
            raise ValueError(tr("{source} line {number}: expected 'word1<TAB>word2<TAB>score'; got {line!r}",
                                source=source, number=number, line=line))
        try:
            score = float(fields[2])
        except ValueError:
            raise ValueError(tr("{source} line {number}: the score must be a number; got {score!r}", source=source,
                                number=number, score=fields[2])) from None
        if not math.isfinite(score):
            raise ValueError(tr("{source} line {number}: the score must be finite; got {score!r}", source=source,
                                number=number, score=fields[2]))
        pairs.append((fields[0].lower(), fields[1].lower(), score))
    if not pairs:
        raise ValueError(tr("{source} contains no word pairs", source=source))
    return tuple(pairs)


def load_similarity_benchmark(name: str = "simlex999", path=None) -> SimilarityBenchmark:
    """SimLex-999 (``"simlex999"``) or WordSim-353 (``"wordsim353"``) shipped with the package, or a file of
    the same format at ``path``."""
    if path is None:
        check_choice(name, "benchmark", BENCHMARK_FILES)
        path = data_file(BENCHMARK_FILES[name])
    if not isinstance(path, str | os.PathLike):
        raise TypeError(tr("path must be the file to read (a str or a pathlib.Path) or None for the named benchmark; "
                           "got {value:.80} ({type})", value=repr(path), type=type(path).__name__))
    path = Path(path)
    shown = _display_name(path)
    if not path.is_file():
        raise FileNotFoundError(tr("benchmark file {file} does not exist", file=shown))
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ValueError(tr("benchmark file {file} is not UTF-8 text", file=shown)) from None
    return SimilarityBenchmark(name, parse_similarity_lines(text.splitlines(), shown))
