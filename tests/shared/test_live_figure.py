"""LiveFigure: a redraw that pastes the static background and draws only the changing artists looks like a
full drawing of the same state."""


import numpy as np
import pytest

from lmtie_edu.kit.live_figure import LiveFigure
from lmtie_edu.kit.panels import PanelResult, TiePanel
from lmtie_edu.kit.plotting import figure_to_png, new_figure
from tests.pictures import difference, pixels


def build():
    fig, (left, right) = new_figure(1, 2)
    live = LiveFigure(fig)
    image = live.changing(left.imshow(np.zeros((4, 3)), vmin=-1, vmax=1, cmap="RdBu_r"))
    (line,) = live.changing(right.plot([0, 1, 2], [0, 1, 0], color="C3"))
    title = live.changing(right.set_title("state 0"))
    right.set_ylim(-3, 3)
    return live, image, line, title


def update(parts, k):
    live, image, line, title = parts
    image.set_data(np.full((4, 3), (-1) ** k * 0.8))
    line.set_ydata([0, k, 0])
    title.set_text(f"state {k}")
    return live.png()


def test_each_update_looks_like_a_full_drawing_of_that_state():
    parts = build()
    for k in (0, 1, 2, 1):
        fast = pixels(update(parts, k))
        whole = pixels(figure_to_png(parts[0].figure))
        assert fast.shape == whole.shape
        assert np.abs(fast - whole).mean() < 0.5  # the same picture (antialiased edges may differ by a shade)


def test_the_background_does_not_keep_an_old_state():
    parts = build()
    first = pixels(update(parts, 2))
    update(parts, -2)
    again = pixels(update(parts, 2))
    assert np.abs(first - again).max() == 0


def test_full_drawing_still_shows_the_changing_artists():
    live, image, line, title = build()
    live.png()
    assert image.get_visible() and line.get_visible() and title.get_visible()


def test_a_panel_sends_the_live_png():
    parts = build()

    def compute(tie):
        return PanelResult(parts[0].figure, {"k": int(tie)}, png=update(parts, int(tie)))

    panel = TiePanel(compute)
    assert bytes(panel.image.value) == parts[0].png()


def test_bad_input_is_named():
    with pytest.raises(TypeError, match="needs a matplotlib Figure"):
        LiveFigure("fig")
    live = LiveFigure(new_figure()[0])
    with pytest.raises(TypeError, match="takes matplotlib artists"):
        live.changing(3)


def test_an_automatically_placed_changing_title_stays_in_place():
    fig, ax = new_figure()
    live = LiveFigure(fig)
    ax.plot([0, 1], [0, 1])
    title = live.changing(ax.set_title("first"))  # no y=: matplotlib places it
    live.png()
    title.set_text("second")
    assert difference(live.png(), figure_to_png(fig)) < 0.5
