"""The lesson 02 panel redraws only what a state changes (a LiveFigure): its PNG is the full drawing's picture."""


import numpy as np
import pytest

from lmtie_edu.kit.plotting import figure_to_png
from lmtie_edu.lesson02 import figures
from tests.pictures import pixels


@pytest.mark.parametrize("tie", [False, True])
def test_live_png_is_the_full_drawing_of_the_same_state(tie):
    panel = figures.logits_panel()
    panel.set(tie=not tie)
    panel.set(tie=tie)  # a toggle: the background is pasted, only the changing artists are drawn
    live = pixels(bytes(panel.image.value))
    assert np.abs(live - pixels(figure_to_png(panel.result.figure))).mean() < 0.5
    assert np.abs(live - pixels(figure_to_png(figures.logits_figure(60, 1.3, tie).figure))).mean() < 0.5


@pytest.mark.parametrize("angle, length", [(230, 2.0), (120, 3.0), (0, 0.0)])
def test_a_longer_h_redraws_the_frame_it_needs(angle, length):
    panel = figures.logits_panel()
    panel.set(angle=angle, length=length, tie=False)
    fresh = figures.logits_figure(angle, length, False)
    assert np.abs(pixels(bytes(panel.image.value)) - pixels(figure_to_png(fresh.figure))).mean() < 0.5
    assert panel.result.numbers == fresh.numbers


def test_the_arrows_frame_holds_both_heads():
    tied, untied = figures.logits_figure(60, 1.3, True).figure, figures.logits_figure(60, 1.3, False).figure
    assert tied.axes[0].get_xlim() == untied.axes[0].get_xlim()
    assert tied.axes[0].get_ylim() == untied.axes[0].get_ylim()


def test_a_refused_state_leaves_the_figure_as_it_was():
    panel = figures.logits_panel()
    png = figure_to_png(panel.result.figure)
    with pytest.raises(ValueError, match=r"\[0, 355\]"):
        panel.set(angle=400, tie=False)
    assert figure_to_png(panel.result.figure) == png
