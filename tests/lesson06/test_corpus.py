"""Lesson 06 data pipeline: the offline corpus, the vocabulary and the word-similarity benchmarks."""

from pathlib import Path

import pytest
import torch

from lmtie_edu.lesson06 import corpus
from lmtie_edu.lesson06.corpus import (
    EOS,
    UNK,
    Vocabulary,
    corpus_from_files,
    data_file,
    load_lee_corpus,
    load_similarity_benchmark,
    parse_similarity_lines,
    read_documents,
    token_stream,
    tokenize,
    unknown_rate,
)


# -- locating files -------------------------------------------------------------------------------------
def test_shipped_data_files_are_found():
    for name in ("lee_background.cor", "lee.cor", "simlex999.txt", "wordsim353.tsv"):
        assert data_file(name).is_file()


def test_missing_data_file_names_it_relative_to_the_package():
    with pytest.raises(FileNotFoundError, match=r"lmtie_edu/shared/data/no_such\.cor is missing") as info:
        data_file("no_such.cor")
    assert str(Path(corpus.__file__).resolve().parents[1]) not in str(info.value)


@pytest.mark.parametrize("name", [3, "", "../lesson06/corpus.py", "data/lee.cor"])
def test_data_file_takes_a_bare_file_name(name):
    with pytest.raises(TypeError, match="file name"):
        data_file(name)


# -- reading and tokenising ---------------------------------------------------------------------------------
def test_read_documents_one_per_line(tmp_path):
    path = tmp_path / "c.cor"
    path.write_text("First article.\n\n  Second one!  \n", encoding="utf-8")
    assert read_documents(path) == ["First article.", "Second one!"]


def test_read_documents_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        read_documents(tmp_path / "absent.cor")


def test_read_documents_empty_file(tmp_path):
    path = tmp_path / "empty.cor"
    path.write_text("\n \n", encoding="utf-8")
    with pytest.raises(ValueError, match="is empty"):
        read_documents(path)


def test_read_documents_binary_file(tmp_path):
    path = tmp_path / "binary.cor"
    path.write_bytes(b"abc\x00\x01def")
    with pytest.raises(ValueError, match="NUL bytes"):
        read_documents(path)


def test_read_documents_wrong_encoding(tmp_path):
    path = tmp_path / "latin.cor"
    path.write_bytes("costs \u00a35".encode("latin-1"))
    with pytest.raises(ValueError, match="not valid utf-8 text: byte 0xa3"):
        read_documents(path)
    assert read_documents(path, encoding="latin-1") == ["costs \u00a35"]


def test_tokenize_words_numbers_punctuation():
    assert tokenize('He said "don\'t" at 4:00pm, south-west of Sydney (NSW).') == [
        "he", "said", '"', "don't", '"', "at", "4", ":", "00", "pm", ",", "south-west", "of", "sydney", "(",
        "nsw", ")", "."]


def test_tokenize_rejects_non_text():
    with pytest.raises(TypeError, match="must be a str"):
        tokenize(["a", "list"])


def test_token_stream_ends_each_document():
    assert token_stream(["A b.", "C"]) == ["a", "b", ".", EOS, "c", EOS]


def test_corpus_from_files_rejects_a_file_without_words(tmp_path):
    good, bad = tmp_path / "train.cor", tmp_path / "val.cor"
    good.write_text("some words here\n", encoding="utf-8")
    bad.write_text("\u00a3\u00a3 %%\n", encoding="utf-8")
    with pytest.raises(ValueError, match="validation file .* contains no words"):
        corpus_from_files(good, bad)


def test_lee_corpus_is_the_same_every_time():
    lee = load_lee_corpus()
    assert (lee.train_documents, lee.val_documents) == (300, 50)
    assert lee.train_tokens.count(EOS) == 300 and lee.val_tokens[-1] == EOS
    assert lee.train_tokens[:4] == ("hundreds", "of", "people", "have")
    assert not set(lee.train_tokens[:1000]) & {"", " "}
    load_lee_corpus.cache_clear()
    assert load_lee_corpus() == lee


# -- vocabulary -----------------------------------------------------------------------------------------------
def test_vocabulary_order_and_tie_break():
    vocab = Vocabulary.from_tokens("b a b a c c d e e e f".split(), 5)
    assert vocab.words == [UNK, EOS, "e", "a", "b"]
    assert len(vocab) == 5 and "e" in vocab and "c" not in vocab and UNK not in vocab


def test_vocabulary_excludes_words_seen_once():
    vocab = Vocabulary.from_tokens("x x y z".split())
    assert vocab.words == [UNK, EOS, "x"]


def test_vocabulary_encode_maps_unknown_to_unk():
    vocab = Vocabulary.from_tokens("a a b b c".split())
    ids = vocab.encode(["a", "zzz", "b", "c"])
    assert ids.dtype == torch.long and ids.tolist() == [2, 0, 3, 0]
    assert vocab.decode(ids) == ["a", UNK, "b", UNK]


def test_vocabulary_encode_rejects_a_string():
    vocab = Vocabulary.from_tokens("a a".split())
    with pytest.raises(TypeError, match="not a str"):
        vocab.encode("a a")


def test_vocabulary_frequencies_put_the_rest_on_unk():
    vocab = Vocabulary.from_tokens("a a a b b c d".split())
    assert vocab.frequencies().tolist() == [2, 0, 3, 2]
    assert int(vocab.frequencies().sum()) == 7


@pytest.mark.parametrize("size, error, message", [
    (2, ValueError, ">= 3"), (2.0, TypeError, "integer"), (100, ValueError, "at most 5 .the 3 training words seen at least twice"),
])
def test_vocabulary_size_is_checked(size, error, message):
    with pytest.raises(error, match=message):
        Vocabulary.from_tokens("a a b b c c".split(), size)


def test_vocabulary_from_no_tokens():
    with pytest.raises(ValueError, match="empty token list"):
        Vocabulary.from_tokens([])


def test_unknown_rate():
    vocab = Vocabulary.from_tokens("a a b".split())
    assert unknown_rate(vocab, ["a", "b", "c", "a"]) == 0.5
    with pytest.raises(ValueError, match="at least one token"):
        unknown_rate(vocab, [])


# -- benchmarks ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name, pairs", [("simlex999", 999), ("wordsim353", 353)])
def test_benchmarks_load_from_the_package(name, pairs):
    benchmark = load_similarity_benchmark(name)
    assert len(benchmark) == pairs
    assert all(isinstance(score, float) and a == a.lower() for a, _, score in benchmark.pairs)


def test_simlex_first_pair():
    assert load_similarity_benchmark("simlex999").pairs[0] == ("old", "new", 1.58)


def test_unknown_benchmark_name():
    with pytest.raises(ValueError, match=r"one of \['simlex999', 'wordsim353'\]"):
        load_similarity_benchmark("simlex")


def test_missing_benchmark_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        load_similarity_benchmark("mine", path=tmp_path / "absent.txt")


def test_malformed_benchmark_line_is_located(tmp_path):
    path = tmp_path / "bench.txt"
    path.write_text("# header\nold\tnew\t1.5\nsmart\tintelligent\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"line 3: expected 'word1<TAB>word2<TAB>score'; got 'smart\\tintelligent'"):
        load_similarity_benchmark("mine", path=path)


def test_benchmark_score_must_be_a_number():
    with pytest.raises(ValueError, match="line 1: the score must be a number; got 'high'"):
        parse_similarity_lines(["old\tnew\thigh"], "b.txt")
    with pytest.raises(ValueError, match="must be finite"):
        parse_similarity_lines(["old\tnew\tnan"], "b.txt")


def test_benchmark_without_pairs(tmp_path):
    with pytest.raises(ValueError, match="contains no word pairs"):
        parse_similarity_lines(["# only a comment", ""], "b.txt")


def test_benchmark_not_utf8(tmp_path):
    path = tmp_path / "bench.txt"
    path.write_bytes(b"caf\xe9\tbar\t1.0\n")
    with pytest.raises(ValueError, match="not UTF-8"):
        load_similarity_benchmark("mine", path=path)


def test_whitespace_separated_benchmark_is_accepted():
    assert parse_similarity_lines(["Tiger Cat 7.35"], "b.txt") == (("tiger", "cat", 7.35),)


def test_a_learner_file_is_named_as_given(tmp_path):
    path = tmp_path / "simlex999.txt"
    path.write_text("bad line\n", encoding="utf-8")
    with pytest.raises(ValueError, match="line 1") as info:
        load_similarity_benchmark("simlex999", path=path)
    assert str(path) in str(info.value)


# -- bad input: a str is not a token list, ids are checked ------------------------------------------------------
@pytest.mark.parametrize("ids, error, message", [
    ([-1], ValueError, r"ids must lie in \[0, 3\].*got -1"),      # not a word counted from the end
    ([4], ValueError, r"ids must lie in \[0, 3\].*got 4"),
    ("ab", TypeError, "ids must be integers"),
    ([1.5], TypeError, "ids must be integers"),
    (torch.tensor([True]), TypeError, "ids must be integers"),
    ([[2, 3]], ValueError, "ids must have rank 1"),
    (3, ValueError, "ids must have rank 1"),
    (torch.empty(2, dtype=torch.long, device="meta"), ValueError, "meta tensor"),
])
def test_vocabulary_decode_bad_ids(ids, error, message):
    vocab = Vocabulary.from_tokens("a a b b".split())
    with pytest.raises(error, match=message):
        vocab.decode(ids)


def test_vocabulary_decode_empty_and_tensors():
    vocab = Vocabulary.from_tokens("a a b b".split())
    assert vocab.decode([]) == [] and vocab.decode(torch.tensor([], dtype=torch.long)) == []
    assert vocab.decode(torch.tensor([2, 3, 0])) == ["a", "b", UNK]


@pytest.mark.parametrize("call", [
    lambda v: Vocabulary.from_tokens("the cat sat"),
    lambda v: v.encode("a b"),
    lambda v: unknown_rate(v, "a b"),
    lambda v: token_stream("One document."),
])
def test_a_plain_string_is_not_a_token_list(call):
    vocab = Vocabulary.from_tokens("a a b b".split())
    with pytest.raises(TypeError, match="not a str"):
        call(vocab)


@pytest.mark.parametrize("call", [
    lambda v: Vocabulary.from_tokens(["a", 1, "a"]),
    lambda v: v.encode(["a", None]),
    lambda v: unknown_rate(v, [b"a"]),
    lambda v: Vocabulary.from_tokens(5),
])
def test_tokens_must_be_strings(call):
    vocab = Vocabulary.from_tokens("a a b b".split())
    with pytest.raises(TypeError, match="token strings"):
        call(vocab)


def test_empty_inputs():
    vocab = Vocabulary.from_tokens("a a b b".split())
    assert vocab.encode([]).tolist() == [] and vocab.encode([]).dtype == torch.long
    assert tokenize("") == [] and token_stream([]) == []
