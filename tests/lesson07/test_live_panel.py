"""The lesson 07 panel redraws only the lines and titles on a flip of *tie* (a LiveFigure): its PNG is the full
drawing of the same state, and the frame (both plots' limits) holds the tied and the untied run."""

import pytest

from lmtie_edu.kit.plotting import figure_to_png
from lmtie_edu.lesson07 import figures
from tests.pictures import assert_live_toggle_matches_full_drawing, difference

TOLERANCE = 0.02  # mean abs difference per channel (0-255): a missing title alone makes far more


@pytest.mark.parametrize("method", figures.METHODS)
@pytest.mark.parametrize("tie", [False, True])
def test_live_png_is_the_full_drawing_of_the_same_state(tie, method):
    panel = figures.tying_method_panel(method=method, steps=6, tie=tie)  # a toggle redraws the lines and titles
    assert_live_toggle_matches_full_drawing(panel, tie, figures.tying_method_figure(tie, method, 6), TOLERANCE)


def test_another_method_or_steps_gets_its_own_frame():
    panel = figures.tying_method_panel()
    panel.set(method="copy", steps=25, tie=False)
    fresh = figures.tying_method_figure(False, "copy", 25)
    assert difference(bytes(panel.image.value), figure_to_png(fresh.figure)) < TOLERANCE
    assert panel.result.figure.axes[0].get_xlim() == fresh.figure.axes[0].get_xlim()


@pytest.mark.parametrize("method", figures.METHODS)
def test_the_frame_holds_both_tie_states(method):
    tied, untied = (figures.tying_method_figure(tie, method, 8).figure for tie in (True, False))
    for ax_tied, ax_untied in zip(tied.axes, untied.axes, strict=True):
        assert ax_tied.get_xlim() == ax_untied.get_xlim() and ax_tied.get_ylim() == ax_untied.get_ylim()
    for fig in (tied, untied):
        for ax in fig.axes:
            low, high = ax.get_ylim()
            for line in ax.get_lines():
                assert low < min(line.get_ydata()) and max(line.get_ydata()) < high
    assert tied.axes[1].get_title() != untied.axes[1].get_title() or method == "copy"


def test_a_refused_state_leaves_the_figure_as_it_was():
    panel = figures.tying_method_panel()
    png = figure_to_png(panel.result.figure)
    with pytest.raises(ValueError, match="method must be one of"):
        panel.compute(method="clone", steps=3, tie=False)
    assert figure_to_png(panel.result.figure) == png
