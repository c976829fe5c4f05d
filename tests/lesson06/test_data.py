"""Lesson 06 data: articles, the fixed vocabulary, the selection/report halves of the validation text."""

import pytest
import torch

from lmtie_edu.lesson06 import data as lm_data
from lmtie_edu.lesson06.corpus import EOS


@pytest.fixture(scope="module")
def data():
    return lm_data.lesson_data(300, 3)


def test_split_articles():
    assert lm_data.split_articles(["a", "b", EOS, "c", EOS]) == [["a", "b", EOS], ["c", EOS]]
    assert lm_data.split_articles(["a", EOS, "b"]) == [["a", EOS], ["b"]]     # an unfinished last article is kept
    assert lm_data.split_articles([]) == []


def test_lesson_data_halves_do_not_overlap(data):
    assert len(data.train_articles) == 300 and len(data.vocabulary) == 300
    validation = lm_data.split_articles(data.corpus.val_tokens)
    select_tokens = sum(len(a) for a in validation[:lm_data.SELECT_ARTICLES])
    report_tokens = sum(len(a) for a in validation[lm_data.SELECT_ARTICLES:])
    assert len(data.select[1]) == select_tokens - 3 and len(data.report[1]) == report_tokens - 3
    assert len(data.select[1]) + len(data.report[1]) + 6 == len(data.corpus.val_tokens)
    assert data.select[0].shape[1] == data.report[0].shape[1] == 3
    again = lm_data.lesson_data(300, 3)                              # computed once per setting, copied
    assert again is not data and again.corpus is data.corpus and torch.equal(again.select[0], data.select[0])


def test_training_windows_are_nested(data):
    small, _ = lm_data.training_windows(data, 20)
    large, _ = lm_data.training_windows(data, 60)
    assert torch.equal(large[:len(small)], small)
    assert len(lm_data.training_windows(data, 300)[1]) == len(data.corpus.train_tokens) - 3


@pytest.mark.parametrize("kwargs, error, message", [
    ({"vocab_size": "2000"}, TypeError, "vocab_size must be an integer"),
    ({"vocab_size": 2000.0}, TypeError, r"use 2000 instead"),
    ({"vocab_size": True}, TypeError, "vocab_size must be an integer"),
    ({"vocab_size": 0}, ValueError, "vocab_size must be an integer >= 3"),
    ({"vocab_size": -5}, ValueError, "vocab_size must be an integer >= 3"),
    ({"vocab_size": 10**9}, ValueError, "vocab_size must be at most 4155"),
    ({"context": 0}, ValueError, "context must be an integer >= 1"),
    ({"context": 2.5}, TypeError, "context must be an integer"),
    ({"context": 10**6}, ValueError, "context must be at most 50"),
])
def test_lesson_data_bad_input(kwargs, error, message):
    with pytest.raises(error, match=message):
        lm_data.lesson_data(**{"vocab_size": 300, "context": 3, **kwargs})


@pytest.mark.parametrize("function", [lm_data.training_windows])
@pytest.mark.parametrize("articles, error, message", [
    (0, ValueError, "articles must be an integer >= 1"),
    (-1, ValueError, "articles must be an integer >= 1"),
    (301, ValueError, "at most 300"),
    (1.5, TypeError, "articles must be an integer"),
    (True, TypeError, "articles must be an integer"),
    ("75", TypeError, "articles must be an integer"),
])
def test_articles_are_checked(data, function, articles, error, message):
    with pytest.raises(error, match=message):
        function(data, articles)


@pytest.mark.parametrize("function", [lm_data.training_windows])
def test_data_must_come_from_lesson_data(function):
    with pytest.raises(TypeError, match="data must come from lesson_data"):
        function({"vocabulary": None}, 10)


def test_split_articles_rejects_a_string():
    with pytest.raises(TypeError, match="not a str"):
        lm_data.split_articles("a b <eos>")
