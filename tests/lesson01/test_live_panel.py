"""The lesson 01 panel redraws only what a state changes (a LiveFigure): its PNG is the full drawing's picture."""


import numpy as np
import pytest

from lmtie_edu.kit.plotting import figure_to_png
from lmtie_edu.lesson01 import lookup as embedding
from tests.pictures import pixels


@pytest.mark.parametrize("tie", [False, True])
def test_live_png_is_the_full_drawing_of_the_same_state(tie):
    panel = embedding.lookup_panel()
    panel.set(tie=not tie)
    panel.set(tie=tie)  # a toggle: the background is pasted, only the changing artists are drawn
    live = pixels(bytes(panel.image.value))
    assert np.abs(live - pixels(figure_to_png(panel.result.figure))).mean() < 0.5
    assert np.abs(live - pixels(figure_to_png(embedding.lookup_figure("2, 5, 5, 9", tie).figure))).mean() < 0.5


@pytest.mark.parametrize("tie", [False, True])
def test_new_ids_redraw_the_frame_they_need(tie):
    """Other ids may need another colour range (log₁₀ |gradient| over both tie states): the panel redraws it."""
    panel = embedding.lookup_panel()
    first = panel.result.figure.axes[1].get_images()[0].get_clim()
    panel.set(ids="0, 0, 0, 11", tie=tie)
    assert panel.result.figure.axes[1].get_images()[0].get_clim() != first
    fresh = embedding.lookup_figure("0, 0, 0, 11", tie)
    assert np.abs(pixels(bytes(panel.image.value)) - pixels(figure_to_png(fresh.figure))).mean() < 0.5
    assert panel.result.numbers == fresh.numbers


def test_the_colour_range_holds_both_tie_states_of_the_ids():
    untied, tied = (embedding.lookup_figure("2, 5, 5, 9", tie).figure.axes[1].get_images()[0] for tie in (False, True))
    assert untied.get_clim() == tied.get_clim()
    for image in (untied, tied):
        low, high = image.get_clim()
        shown = image.get_array()
        assert low <= shown.min() and shown.max() <= high


def test_a_refused_state_leaves_the_figure_as_it_was():
    panel = embedding.lookup_panel()
    png = figure_to_png(panel.result.figure)
    with pytest.raises(ValueError, match="got 99"):
        panel.set(ids="1, 99", tie=True)
    assert figure_to_png(panel.result.figure) == png
