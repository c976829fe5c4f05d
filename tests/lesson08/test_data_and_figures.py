"""Lesson 08's data splits, figures and panel (drawn from stored runs: a redraw never trains)."""

import math

import pytest
import torch

from lmtie_edu.lesson08 import figures
from lmtie_edu.lesson08.data import lesson_data, windows
from lmtie_edu.shared.news_corpus import load_lee_corpus, split_articles
from tests.pictures import difference


def test_splits_are_disjoint_articles_and_windows_shift_by_one():
    data = lesson_data(1000, 16)
    assert len(data.vocabulary) == 1000 and data.train_ids.shape == (len(load_lee_corpus().train_tokens),)
    inputs, targets = data.validation
    assert inputs.shape == targets.shape and inputs.shape[1] == 16
    assert torch.equal(inputs.flatten()[1:], targets.flatten()[:-1])
    articles = split_articles(load_lee_corpus().val_tokens)
    assert len(articles) == 50
    assert data.validation[0].numel() + data.test[0].numel() <= sum(map(len, articles))


def test_windows_of_a_short_stream():
    x, y = windows(torch.arange(10), 3)
    assert x.tolist() == [[0, 1, 2], [3, 4, 5], [6, 7, 8]] and y.tolist() == [[1, 2, 3], [4, 5, 6], [7, 8, 9]]


def test_initial_loss_figure_draws_every_row():
    fig = figures.initial_loss_figure([("a", 28.0, 1.0), ("b", 6.9, 0.4)], math.log(1000))
    assert len(fig.axes) == 2 and len(fig.axes[0].patches) == 2


@pytest.mark.parametrize(("tie", "budget", "model", "blocks"), [
    (True, "same width", "tied", 2), (True, "same parameters", "tied, deeper", 4),
    (False, "same width", "untied", 2), (False, "same parameters", "untied", 2)])
def test_panel_states(tie, budget, model, blocks):
    panel = figures.experiment_panel(figures.example_runs())
    result = panel.set(tie=tie, budget=budget)
    assert result.numbers["model"] == model and result.numbers["blocks"] == blocks
    assert "±" in result.numbers["test perplexity"]


def test_panel_redraws_without_training_and_the_title_names_the_best():
    runs = figures.example_runs()
    panel = figures.experiment_panel(runs)
    before = [dict(run) for run in runs]
    panel.tie.value = False
    assert panel.redraws == 2 and runs == before
    assert "untied" in panel.result.figure.texts[0].get_text()


def test_live_png_equals_a_full_drawing_of_the_same_state():


    from lmtie_edu.kit.plotting import figure_to_png

    panel = figures.experiment_panel(figures.example_runs())
    for tie, budget in ((True, "same parameters"), (False, "same width"), (True, "same width")):
        result = panel.set(tie=tie, budget=budget)
        assert difference(result.png, figure_to_png(result.figure)) < 1.0
