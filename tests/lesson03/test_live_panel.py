"""The lesson 03 panel redraws only the third axes on a flip of *tie* (a LiveFigure): its PNG is the full drawing."""


import pytest

from lmtie_edu.kit.plotting import figure_to_png
from lmtie_edu.lesson03 import figures
from tests.pictures import assert_live_toggle_matches_full_drawing, difference

TOLERANCE = 0.02  # mean abs difference per channel (0-255): a missing title alone makes 0.38



differs = difference


@pytest.mark.parametrize("tie", [False, True])
def test_live_png_is_the_full_drawing_of_the_same_state(tie):
    panel = figures.decomposition_panel()  # a toggle redraws only the third axes
    assert_live_toggle_matches_full_drawing(panel, tie, figures.decomposition_figure(2, 3, 4, tie), TOLERANCE)


@pytest.mark.parametrize("tie", [False, True])
def test_another_example_redraws_the_frame_it_needs(tie):
    panel = figures.decomposition_panel()
    panel.set(first=7, second=7, target=0, tie=tie)
    fresh = figures.decomposition_figure(7, 7, 0, tie)
    assert differs(bytes(panel.image.value), figure_to_png(fresh.figure)) < TOLERANCE
    assert panel.result.numbers == fresh.numbers
    assert "0 tgt" in [label.get_text() for label in panel.result.figure.axes[0].get_yticklabels()]


def test_the_frame_holds_both_tie_states():
    untied, tied = (figures.decomposition_figure(2, 3, 4, tie).figure for tie in (False, True))
    assert untied.axes[2].get_title() == "embedding.grad = lookup only"
    for ax_untied, ax_tied in zip(untied.axes, tied.axes, strict=True):
        assert ax_untied.get_xlim() == ax_tied.get_xlim() and ax_untied.get_ylim() == ax_tied.get_ylim()
        assert [t.get_text() for t in ax_untied.get_xticklabels()] == [t.get_text() for t in ax_tied.get_xticklabels()]
    for fig in (untied, tied):
        image = fig.axes[2].get_images()[0]
        low, high = image.get_clim()
        assert low <= image.get_array().min() and image.get_array().max() <= high
        assert max(segment[1][0] for segment in fig.axes[2].collections[0].get_segments()) <= fig.axes[2].get_xlim()[1]
    assert len(untied.axes[2].lines[0].get_ydata()) == figures.PANEL_VOCAB - 2   # untied: 14 rows exactly 0
    assert len(tied.axes[2].lines[0].get_ydata()) == 0


def test_a_refused_state_leaves_the_figure_as_it_was():
    panel = figures.decomposition_panel()
    png = figure_to_png(panel.result.figure)
    with pytest.raises(TypeError, match="first must be a token id"):
        panel.compute(first=2.0, second=3, target=4, tie=False)
    assert figure_to_png(panel.result.figure) == png
