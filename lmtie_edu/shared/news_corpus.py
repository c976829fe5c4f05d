"""Offline English text for the lessons: the Lee news corpus shipped in the package, tokenised, with a word vocabulary.

The package ships its data files in ``lmtie_edu/shared/data/`` (sources, licences and checksums in the README
there), so a lesson needs no network and no other package, and reads the same bytes on every run:

- ``lee_background.cor`` (300 news articles, one per line) — training text;
- ``lee.cor`` (50 further articles) — validation text.

Error messages name the shipped files relative to the package, so that no machine path is ever printed.
Lessons 06 and 08 use it (lesson 09 through lesson 08's data); each cuts its own splits and windows.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import torch

from .language import N_, tr
from .validation import check_positive_int, check_token_ids

UNK, EOS = "<unk>", "<eos>"
SPECIALS = (UNK, EOS)

# Lower-cased words (with inner apostrophes or hyphens: "don't", "south-west"), numbers, and the
# punctuation marks that carry sentence structure. Everything else (quotes' curly variants, £, %) is dropped.
TOKEN_PATTERN = re.compile(r"[a-z]+(?:['-][a-z]+)*|\d+(?:[.,]\d+)*|[.,;:!?()\"]")

DATA_DIR = Path(__file__).resolve().parent / "data"
SHOWN_DATA_DIR = "lmtie_edu/shared/data"  # how messages name DATA_DIR


# -- locating and reading files ----------------------------------------------------------------------
def data_file(name: str) -> Path:
    """Path of one data file shipped with the package; a clear error if the installation lacks it."""
    if not isinstance(name, str) or not name or Path(name).name != name:
        raise TypeError(tr("name must be a file name such as 'lee.cor'; got {value}", value=repr(name)))
    path = DATA_DIR / name
    if not path.is_file():
        raise FileNotFoundError(tr("{folder}/{name} is missing from the installed lmtie_edu package; reinstall the "
                                   "course (make lab, or pip install --force-reinstall lmtie_edu)",
                                   folder=SHOWN_DATA_DIR, name=name))
    return path


def _display_name(path: Path) -> str:
    """A file name for messages: relative to the package for a shipped file, else as given."""
    path = Path(path)
    if path.resolve().parent == DATA_DIR:
        return f"{SHOWN_DATA_DIR}/{path.name}"
    return str(path)


def read_documents(path, *, encoding: str = "utf-8") -> list[str]:
    """Read a one-document-per-line text file; reject a missing, empty, binary or undecodable file."""
    path = Path(path)
    shown = _display_name(path)
    if not path.is_file():
        raise FileNotFoundError(tr("corpus file {file} does not exist", file=shown))
    raw = path.read_bytes()
    if b"\x00" in raw:
        raise ValueError(tr("corpus file {file} is not text: it contains NUL bytes (a binary file?)", file=shown))
    try:
        text = raw.decode(encoding)
    except UnicodeDecodeError as error:
        raise ValueError(tr("corpus file {file} is not valid {encoding} text: byte {byte:#04x} at offset {offset}",
                            file=shown, encoding=encoding, byte=raw[error.start], offset=error.start)) from None
    documents = [line.strip() for line in text.splitlines() if line.strip()]
    if not documents:
        raise ValueError(tr("corpus file {file} is empty: expected one document per line", file=shown))
    return documents


def tokenize(text: str) -> list[str]:
    """Lower-case word, number and punctuation tokens of one text."""
    if not isinstance(text, str):
        raise TypeError(tr("text must be a str; got {type}", type=type(text).__name__))
    return TOKEN_PATTERN.findall(text.lower())


def _check_tokens(tokens, name: str = "tokens") -> list:
    """A list of token strings; a plain str (which would be read letter by letter) is refused."""
    if isinstance(tokens, str):
        raise TypeError(tr("{name} must be a list of tokens, not a str: use tokenize(text) first", name=name))
    try:
        tokens = list(tokens)
    except TypeError:
        raise TypeError(tr("{name} must be a list of token strings; got {type}",
                           name=name, type=type(tokens).__name__)) from None
    for token in tokens:
        if not isinstance(token, str):
            raise TypeError(tr("{name} must be token strings; got {value} ({type})",
                               name=name, value=repr(token), type=type(token).__name__))
    return tokens


def token_stream(documents: Iterable[str]) -> list[str]:
    """The tokens of every document, each document followed by ``<eos>``."""
    documents = _check_tokens(documents, "documents")
    stream = []
    for document in documents:
        stream += tokenize(document)
        stream.append(EOS)
    return stream


# -- the corpus ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Corpus:
    """A training and a validation token stream (lists of strings)."""

    name: str
    train_tokens: tuple[str, ...]
    val_tokens: tuple[str, ...]
    train_documents: int
    val_documents: int


def corpus_from_files(train_path, val_path, *, name: str = "corpus", encoding: str = "utf-8") -> Corpus:
    """Build a :class:`Corpus` from two one-document-per-line files."""
    train_docs = read_documents(train_path, encoding=encoding)
    val_docs = read_documents(val_path, encoding=encoding)
    train, val = token_stream(train_docs), token_stream(val_docs)
    for label, stream, path in ((N_("training file {file} contains no words"), train, train_path),
                                (N_("validation file {file} contains no words"), val, val_path)):
        if all(token == EOS for token in stream):
            raise ValueError(tr(label, file=_display_name(Path(path))))
    return Corpus(name, tuple(train), tuple(val), len(train_docs), len(val_docs))


@lru_cache(maxsize=1)
def load_lee_corpus() -> Corpus:
    """The Lee news corpus shipped with the package: 300 training articles, 50 validation articles.

    ``lee.cor`` contains one byte 0xA3 (a pound sign in Latin-1), so both files are read as Latin-1
    (for the pure-ASCII training file this is the same as UTF-8).
    """
    return corpus_from_files(data_file("lee_background.cor"), data_file("lee.cor"), name=tr("Lee news corpus"),
                             encoding="latin-1")


# -- vocabulary ---------------------------------------------------------------------------------------
class Vocabulary:
    """Word ↔ id. Id 0 is ``<unk>`` (every word outside the vocabulary), id 1 is ``<eos>``; then the most
    frequent training words, ties broken alphabetically so the ids are the same on every run."""

    def __init__(self, words: Sequence[str], counts: Counter):
        self.words = list(words)
        self.index = {word: i for i, word in enumerate(self.words)}
        self.word_counts = counts

    @classmethod
    def from_tokens(cls, tokens: Sequence[str], size: int | None = None) -> Vocabulary:
        """The ``size`` most frequent words (``None``: every word seen at least twice).

        Words seen only once are never admitted: they must stay ``<unk>`` in training, otherwise the
        model never learns to predict ``<unk>`` and every unknown validation word costs a fortune.
        """
        counts = Counter(_check_tokens(tokens))
        if not counts:
            raise ValueError(tr("cannot build a vocabulary from an empty token list"))
        ranked = sorted((w for w in counts if w not in SPECIALS and counts[w] >= 2), key=lambda w: (-counts[w], w))
        largest = len(ranked) + len(SPECIALS)
        if not ranked:
            raise ValueError(tr("no word occurs at least twice in the {distinct} distinct tokens, so the vocabulary "
                                "would hold only <unk> and <eos>: words seen once stay <unk>; pass more text",
                                distinct=len(counts)))
        size = largest if size is None else check_positive_int(size, "size", minimum=len(SPECIALS) + 1)
        if size > largest:
            raise ValueError(tr("size must be at most {largest} (the {words} training words seen at least twice, "
                                "plus {specials} specials); got {size}",
                                largest=largest, words=len(ranked), specials=len(SPECIALS), size=size))
        return cls(list(SPECIALS) + ranked[:size - len(SPECIALS)], counts)

    def __len__(self) -> int:
        return len(self.words)

    def __contains__(self, word) -> bool:
        return word in self.index and word not in SPECIALS

    def encode(self, tokens: Iterable[str]) -> torch.Tensor:
        """Token ids (``torch.long``); unknown words become ``<unk>`` (id 0)."""
        if isinstance(tokens, str):
            raise TypeError(tr("encode expects a list of tokens, not a str: use encode(tokenize(text))"))
        return torch.tensor([self.index.get(token, 0) for token in _check_tokens(tokens)], dtype=torch.long)

    def decode(self, ids) -> list[str]:
        """Words of a 1-D sequence of ids in ``[0, V - 1]`` (a negative id is an error, not a word from the end)."""
        if isinstance(ids, (list, tuple)) and not ids:
            return []
        if isinstance(ids, torch.Tensor) and ids.is_meta:
            raise ValueError(tr("ids is a meta tensor: it has a shape but no ids to decode"))
        return [self.words[i] for i in check_token_ids(ids, len(self.words), ranks=(1,), name="ids").tolist()]

    def frequencies(self) -> torch.Tensor:
        """Training count of each id's word (``<unk>`` gets the count of all words mapped to it)."""
        out = torch.tensor([self.word_counts.get(w, 0) for w in self.words], dtype=torch.long)
        out[0] = sum(self.word_counts.values()) - int(out.sum())
        return out


# -- articles -----------------------------------------------------------------------------------------
def split_articles(tokens) -> list[list[str]]:
    """Cut a token stream into articles, each ending with ``<eos>`` (a trailing unfinished one is kept)."""
    if isinstance(tokens, str):
        raise TypeError(tr("tokens must be a list of tokens, not a str"))
    articles, current = [], []
    for token in tokens:
        current.append(token)
        if token == EOS:
            articles.append(current)
            current = []
    if current:
        articles.append(current)
    return articles


def lee_vocabulary(vocab_size: int) -> tuple[Corpus, Vocabulary]:
    """The Lee corpus and its ``vocab_size`` most frequent training words (plus ``<unk>``, ``<eos>``); a clear
    error when the training text does not have that many words seen at least twice."""
    vocab_size = check_positive_int(vocab_size, "vocab_size", minimum=3)
    corpus = load_lee_corpus()
    largest = len(Vocabulary.from_tokens(corpus.train_tokens))
    if vocab_size > largest:
        raise ValueError(tr("vocab_size must be at most {largest} (the training words seen at least twice, "
                            "plus <unk> and <eos>); got {vocab_size}", largest=largest, vocab_size=vocab_size))
    return corpus, Vocabulary.from_tokens(corpus.train_tokens, vocab_size)
