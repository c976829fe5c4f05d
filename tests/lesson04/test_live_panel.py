"""The lesson 04 panel redraws only the head bar, the outlines and the left title on a flip of *tie* (a
LiveFigure): its PNG is the full drawing of the same state, and the frame holds the tied and the untied setting."""

import pytest

from lmtie_edu.kit.plotting import figure_to_png
from lmtie_edu.lesson04 import breakdown_figures
from tests.pictures import assert_live_toggle_matches_full_drawing, difference

TOLERANCE = 0.02  # mean abs difference per channel (0-255): a missing title or outline alone makes far more
SHAPES = [{}, {"vocab_size": 1_000, "d_model": 64, "n_layers": 1, "mlp_ratio": 1.0},
          {"vocab_size": 262_144, "d_model": 16_384, "n_layers": 128, "mlp_ratio": 8.0}]


@pytest.mark.parametrize("tie", [False, True])
def test_live_png_is_the_full_drawing_of_the_same_state(tie):
    panel = breakdown_figures.breakdown_panel(tie=tie)  # a toggle redraws the head bar, outlines and left title
    assert_live_toggle_matches_full_drawing(panel, tie, breakdown_figures.breakdown_figure(tie), TOLERANCE)


def test_a_toggle_changes_the_picture():
    panel = breakdown_figures.breakdown_panel()
    tied = bytes(panel.image.value)
    panel.set(tie=False)
    assert difference(bytes(panel.image.value), tied) > 1.0


@pytest.mark.parametrize("shape", SHAPES[1:])
def test_another_shape_gets_its_own_frame(shape):
    panel = breakdown_figures.breakdown_panel()
    panel.set(tie=False, **shape)
    fresh = breakdown_figures.breakdown_figure(False, **shape)
    assert difference(bytes(panel.image.value), figure_to_png(fresh.figure)) < TOLERANCE
    for shown, alone in zip(panel.result.figure.axes, fresh.figure.axes, strict=True):
        assert shown.get_xlim() == alone.get_xlim()


@pytest.mark.parametrize("shape", SHAPES)
def test_the_frame_holds_both_tie_states(shape):
    tied, untied = (breakdown_figures.breakdown_figure(tie, **shape).figure for tie in (True, False))
    for ax_tied, ax_untied in zip(tied.axes, untied.axes, strict=True):
        assert ax_tied.get_xlim() == ax_untied.get_xlim() and ax_tied.get_ylim() == ax_untied.get_ylim()
    for fig in (tied, untied):
        for ax in fig.axes:
            assert all(bar.get_x() + bar.get_width() < ax.get_xlim()[1] for bar in ax.patches)
    assert tied.axes[0].get_title() != untied.axes[0].get_title()


def test_a_refused_state_leaves_the_figure_as_it_was():
    panel = breakdown_figures.breakdown_panel()
    png = figure_to_png(panel.result.figure)
    with pytest.raises(ValueError, match="d_model must be a value"):
        panel.set(d_model=100_000)
    with pytest.raises(TypeError, match="tie must be True or False"):
        panel.compute(tie="yes", vocab_size=50_257, d_model=768, n_layers=12, mlp_ratio=4.0)
    assert figure_to_png(panel.result.figure) == png
