"""Lesson 06 figures and the tied-vs-untied panel (driven with made-up runs of the lesson's shape)."""

import math

import pytest
import torch

from lmtie_edu.kit.panels import PanelResult
from lmtie_edu.kit.plotting import figure_to_png
from lmtie_edu.lesson06 import figures as lm_figures
from lmtie_edu.lesson06.summaries import mean_and_spread
from tests.pictures import pixels
from tools.bench import synthetic_runs


@pytest.fixture(scope="module")
def runs():
    return synthetic_runs(knob=(20, 60), seeds=(0, 1))


def test_learning_curves_figure_numbers(runs):
    result = lm_figures.learning_curves_figure(runs, tie=False, articles=20)
    assert isinstance(result, PanelResult)
    assert result.numbers["model"] == "untied" and result.numbers["training articles"] == 20
    chosen = [r for r in runs if not r["tie"] and r["articles"] == 20]
    mean, sd = mean_and_spread(math.exp(r["final"]["all"]) for r in chosen)
    assert result.numbers["report perplexity, end of budget (mean)"] == round(mean, 1)
    assert result.numbers["report perplexity, end of budget (sd)"] == round(sd, 1)
    assert result.numbers["parameters"] == 2000
    assert "20 articles" in result.figure.axes[0].get_title()


def test_figure_title_says_whether_the_curve_rises():
    rising = synthetic_runs(knob=(20,), seeds=(0,))
    for run in rising:
        run["select_curve"] = [5.0, 4.0, 4.5] + [5.0] * 7
    title = lm_figures.learning_curves_figure(rising, tie=True).figure.axes[0].get_title()
    assert "lowest at step 100, then rises" in title


def test_panel_toggles_without_retraining(runs):
    panel = lm_figures.tying_panel(runs)
    first = panel.result.numbers["parameters"]
    panel.tie.value = False
    assert panel.result.numbers["model"] == "untied" and panel.result.numbers["parameters"] != first
    panel.set(tie=True, articles=20)
    assert panel.result.numbers["training articles"] == 20 and panel.redraws == 3


@pytest.mark.parametrize("bad, error, message", [
    ("runs", TypeError, "non-empty list of run dicts"),
    ([], TypeError, "non-empty list of run dicts"),
    ([1], TypeError, "each run must be a dict"),
    ([{"tie": True}], ValueError, "missing the keys"),
])
def test_runs_are_checked(bad, error, message):
    with pytest.raises(error, match=message):
        lm_figures.learning_curves_figure(bad)
    with pytest.raises(error, match=message):
        lm_figures.tying_panel(bad)


def test_learning_curves_figure_bad_controls(runs):
    with pytest.raises(TypeError, match="tie must be True or False"):
        lm_figures.learning_curves_figure(runs, tie=1)
    with pytest.raises(ValueError, match=r"articles must be one of \[20, 60\]"):
        lm_figures.learning_curves_figure(runs, articles=21)
    with pytest.raises(ValueError, match="no untied runs"):
        lm_figures.learning_curves_figure([r for r in runs if r["tie"]], tie=False)


def test_panel_rejects_impossible_values(runs):
    panel = lm_figures.tying_panel(runs)
    with pytest.raises(ValueError, match="articles must be one of"):
        panel.set(articles=75)
    with pytest.raises(TypeError, match="tie must be True or False"):
        panel.set(tie="no")
    with pytest.raises(ValueError, match="articles must be one of"):
        lm_figures.tying_panel(runs, articles=7)


def test_gradient_counts_figure():
    counts = torch.tensor([50, 10, 9, 5, 1, 30])
    fig = lm_figures.gradient_counts_figure(torch.rand(6), torch.ones(6), counts, steps=10)
    assert len(fig.axes) == 1 and "every step" in fig.axes[0].get_title()
    with pytest.raises(ValueError, match="input_fraction must be a 1-D tensor"):
        lm_figures.gradient_counts_figure(torch.rand(5), torch.ones(6), counts, steps=10)
    with pytest.raises(TypeError, match="output_fraction must be a 1-D tensor"):
        lm_figures.gradient_counts_figure(torch.rand(6), [1.0] * 6, counts, steps=10)


def test_both_models_are_drawn_in_full(runs):
    """Issue 26: the other model's curves were drawn faintly; both are drawn opaque, the chosen one thicker."""
    figure = lm_figures.learning_curves_figure(runs, tie=True, articles=20).figure
    for ax in figure.axes[:2]:
        lines = [line for line in ax.get_lines() if line.get_label() in ("tied", "untied")]
        assert {line.get_label() for line in lines} == {"tied", "untied"}
        assert all(line.get_alpha() in (None, 1.0) for line in lines)
        widths = {line.get_label(): line.get_linewidth() for line in lines}
        assert widths["tied"] > widths["untied"]



def test_panel_redraw_looks_like_a_full_drawing(runs):
    """Issue 27: the panel redraws only the curves, legends and titles over a stored background (one per amount
    of text); each state's picture is the full drawing of that state — the first one included, drawn before
    any full drawing could put a title hidden in the background back in its place."""
    panel = lm_figures.tying_panel(runs, tie=True, articles=20)
    states = [(True, 20), (False, 20), (True, 20), (False, 60), (True, 60), (False, 20)]
    for index, (tie, articles) in enumerate(states):
        if index:
            panel.set(tie=tie, articles=articles)
        live = pixels(bytes(panel.image.value))
        whole = pixels(figure_to_png(panel.result.figure))
        assert live.shape == whole.shape
        assert abs(live - whole).mean() < 0.5, (tie, articles)
        assert panel.result.numbers["model"] == ("tied" if tie else "untied")
    alone = lm_figures.learning_curves_figure(runs, tie=False, articles=20).figure   # the figure the notebook shows
    assert abs(pixels(figure_to_png(alone)) - pixels(bytes(panel.image.value))).mean() < 0.5


def test_equal_training_ends_are_called_level(runs):
    """The synthetic runs' training curves are equal for both models: neither 'ends lower'."""
    title = lm_figures.learning_curves_figure(runs, tie=False, articles=20).figure.axes[1].get_title()
    assert title.endswith("both end level")
