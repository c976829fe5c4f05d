"""Lesson 06: bad inputs to the helpers, figures and checks the notebook calls (issue 24), and the cache."""

import math

import numpy as np
import pytest
import torch

from lmtie_edu.lesson06 import corpus, solutions
from lmtie_edu.lesson06 import exercises as ex
from lmtie_edu.lesson06 import figures as lm_figures
from lmtie_edu.lesson06.data import lesson_data, training_windows
from lmtie_edu.lesson06.similarity import nearest_neighbours
from lmtie_edu.lesson06.summaries import mean_and_spread, perplexity
from tests.probes import assert_all_refused
from tools.bench import synthetic_runs


@pytest.fixture(scope="module")
def data():
    return lesson_data(1000, 3)


def test_lesson_data_returns_a_copy_the_learner_may_change():
    data = lesson_data(1000, 3)
    targets = data.select[1].clone()
    data.select[1][:] = -100
    data.report[0].zero_()
    data.vocabulary.words.append("extra")
    data.vocabulary.index["the"] = 999
    data.train_articles.clear()
    again = lesson_data(1000, 3)
    assert torch.equal(again.select[1], targets) and again.report[0].any()
    assert len(again.vocabulary) == 1000 and again.vocabulary.index["the"] < 1000
    assert len(again.train_articles) == 300
    assert lesson_data(np.int64(1000), np.int64(3)).vocabulary.words == again.vocabulary.words
    assert isinstance(corpus.load_lee_corpus().train_tokens, tuple)  # shared, but cannot be changed


def test_diverged_runs_stay_visible():
    assert perplexity(700.0) == pytest.approx(math.exp(700.0))
    assert perplexity(709.5) == pytest.approx(math.exp(709.5))  # finite: not inf
    assert perplexity(710.0) == math.inf
    mean, spread = mean_and_spread([perplexity(700.0), perplexity(5.0)])
    assert mean == pytest.approx(math.exp(700) / 2) and spread == pytest.approx(math.exp(700) / math.sqrt(2))
    mean, spread = mean_and_spread([1e308, 1e308])
    assert mean == 1e308 and spread == 0.0
    mean, spread = mean_and_spread([perplexity(800.0), perplexity(5.0)])
    assert mean == math.inf and math.isnan(spread)


def test_bad_input(data):
    vocab = data.vocabulary
    matrix = torch.randn(len(vocab), 8)
    runs = synthetic_runs()
    ok = torch.ones(10)
    cases = [
        (lambda: corpus.Vocabulary.from_tokens(["a", "b", "c"]), ValueError, r"no word occurs at least twice"),
        (lambda: corpus.Vocabulary.from_tokens([]), ValueError, r"empty token list"),
        (lambda: corpus.Vocabulary.from_tokens("a a b"), TypeError, r"not a str"),
        (lambda: corpus.Vocabulary.from_tokens(["a", "a"], 2.0), TypeError, r"size must be an integer >= 3"),
        (lambda: corpus.Vocabulary.from_tokens(["a", "a"], 4), ValueError, r"size must be at most 3"),
        (lambda: lesson_data(10**6), ValueError, r"vocab_size must be at most \d"),
        (lambda: lesson_data(2), ValueError, r"vocab_size must be an integer >= 3"),
        (lambda: lesson_data("1000"), TypeError, r"vocab_size must be an integer"),
        (lambda: lesson_data(1000, 0), ValueError, r"context must be an integer >= 1"),
        (lambda: lesson_data(1000, 51), ValueError, r"context must be at most 50"),
        (lambda: training_windows(data, 0), ValueError, r"articles must be an integer >= 1"),
        (lambda: training_windows(data, 301), ValueError, r"articles must be at most 300"),
        (lambda: training_windows(None, 75), TypeError, r"data must come from lesson_data"),
        (lambda: vocab.decode([-1]), ValueError, r"ids must lie in \[0, 999\]"),
        (lambda: vocab.encode("the cat"), TypeError, r"not a str"),
        (lambda: mean_and_spread([]), ValueError, r"at least one value"),
        (lambda: perplexity(-1.0), ValueError, r">= 0 nats"),
        (lambda: nearest_neighbours(matrix[:10], vocab, "the"), ValueError, r"matrix must have shape \(1000, \*\)"),
        (lambda: nearest_neighbours(matrix, vocab, 5), TypeError, r"word must be a str"),
        (lambda: nearest_neighbours(matrix, vocab, "the", k=0), ValueError, r"k must be an integer >= 1"),
        (lambda: nearest_neighbours(matrix, vocab, "zzzqqq"), ValueError, r"not in the vocabulary"),
        (lambda: nearest_neighbours(matrix.to("meta"), vocab, "the"), ValueError, r"meta tensor"),
        (lambda: nearest_neighbours(matrix.long(), vocab, "the"), TypeError, r"floating-point"),
        (lambda: lm_figures.learning_curves_figure([]), TypeError, r"runs must be a non-empty list"),
        (lambda: lm_figures.learning_curves_figure(runs, tie="yes"), TypeError, r"tie must be True or False"),
        (lambda: lm_figures.learning_curves_figure(runs, articles=999), ValueError, r"articles must be one of"),
        (lambda: lm_figures.tying_panel(runs, articles="75"), ValueError, r"articles must be one of"),
        (lambda: lm_figures.gradient_counts_figure(ok, ok, ok, 0), ValueError, r"steps must be an integer >= 1"),
        (lambda: lm_figures.gradient_counts_figure(ok, ok, ok, "400"), TypeError, r"steps must be an integer"),
        (lambda: lm_figures.gradient_counts_figure(ok.to("meta"), ok, ok, 4), ValueError,
         r"input_fraction is a meta tensor"),
        (lambda: lm_figures.gradient_counts_figure(ok[:2], ok[:2], ok[:2], 4), ValueError, r"at least 3"),
        (lambda: lm_figures.gradient_counts_figure([1.0] * 10, ok, ok, 4), TypeError, r"input_fraction must be"),
        (lambda: corpus.load_similarity_benchmark("simlex"), ValueError, r"benchmark must be one of"),
        (lambda: corpus.load_similarity_benchmark(path="/nonexistent/x.txt"), FileNotFoundError, r"does not exist"),
    ]
    assert_all_refused(cases)


def test_numbers_that_are_fine(data):
    vocab = data.vocabulary
    matrix = torch.randn(len(vocab), 8)
    assert nearest_neighbours(matrix, vocab, "the", k=np.int64(3)) == nearest_neighbours(matrix, vocab, "the", k=3)
    assert len(nearest_neighbours(matrix.to(torch.bfloat16), vocab, "the")) == 5
    assert torch.equal(training_windows(data, np.int64(75))[1], training_windows(data, 75)[1])
    assert perplexity(np.float32(2.0)) == pytest.approx(math.exp(2.0))
    counts = torch.arange(10, 0, -1)
    lm_figures.gradient_counts_figure(torch.rand(10), torch.ones(10), counts, np.int64(4))


def test_checks_survive_answers_that_mutate_their_inputs(capsys):
    def gradient_step_counts(batches, vocab_size, tie):
        result = solutions.gradient_step_counts(batches, vocab_size, tie)
        for inputs, targets in batches:
            inputs.zero_()
            targets.fill_(1)
        batches.clear()
        return result

    assert ex.gradient_step_counts(gradient_step_counts)
    assert ex.tied_width(solutions.tied_width)
    assert ex.combined_perplexity(solutions.combined_perplexity)
    assert capsys.readouterr().out.count("✅") == 3
