"""Lesson 01's figures show what their titles say: every row with a gradient is coloured, zero rows are not."""

import numpy as np
import pytest
import torch
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.text import Text

from lmtie_edu.kit.plotting import figure_to_png, new_figure
from lmtie_edu.lesson01 import lookup as embedding
from lmtie_edu.lesson01.figures import draw_gradient_rows, draw_shared_matrix

WHITE = np.array([1.0, 1.0, 1.0])


def drawn_rows(grad):
    """The RGB colour of every cell of the gradient panel, as drawn."""
    fig, ax = new_figure()
    draw_gradient_rows(ax, grad, title="t", highlight_rows=[0])
    image = ax.get_images()[0]
    return image.to_rgba(image.get_array())[..., :3]


@pytest.mark.parametrize("ids", ["2, 5, 5, 9", "0, 0, 0, 11"])
@pytest.mark.parametrize("tie", [False, True])
def test_every_row_with_gradient_is_coloured_and_every_zero_row_is_white(ids, tie):
    step = embedding.next_token_gradient([int(i) for i in ids.split(", ")], tie=tie)
    colours = drawn_rows(step["grad"])
    for row in range(colours.shape[0]):
        if row in step["rows_touched"]:
            assert np.abs(colours[row] - WHITE).max(axis=1).min() > 0.15, f"row {row} has a near-white cell"
        else:
            assert np.allclose(colours[row], WHITE), f"row {row} has no gradient but is coloured"
    if tie:
        assert step["rows_touched"] == list(range(12))


def test_tied_rows_reached_only_by_the_head_get_little_gradient_the_reason_for_the_log_scale():
    step = embedding.next_token_gradient([2, 5, 5, 9], tie=True)
    norms = step["grad"].norm(dim=1)
    looked_up, head_only = norms[[2, 5]], norms[[r for r in range(12) if r not in (2, 5)]]
    assert head_only.max() < 0.5 * looked_up.min() and norms.min() < 0.1 * norms.max()


def test_panel_titles_state_the_point_in_both_states():
    untied, tied = embedding.lookup_figure("2, 5, 5, 9", False), embedding.lookup_figure("2, 5, 5, 9", True)
    assert untied.figure.axes[1].get_title() == "W.grad, untied: only rows looked up"
    assert tied.figure.axes[1].get_title() == "W.grad, tied: every row gets gradient"


def test_gradient_rows_refuses_what_is_not_a_matrix():
    fig, ax = new_figure()
    with pytest.raises(ValueError, match="2-D"):
        draw_gradient_rows(ax, torch.zeros(3), title="t")
    draw_gradient_rows(ax, torch.zeros(3, 2), title="all zero")      # nothing non-zero: still draws
    figure_to_png(fig)


def test_diagram_labels_do_not_overlap():
    fig = draw_shared_matrix()
    assert figure_to_png(fig).startswith(b"\x89PNG")
    renderer = FigureCanvasAgg(fig).get_renderer()
    boxes = [(t.get_text(), t.get_window_extent(renderer)) for t in fig.findobj(Text) if t.get_text().strip()]
    texts = [text for text, _ in boxes]
    for needed in ("token 2", "reads row 2", "h", "logits", "W  (V × d)"):
        assert needed in texts
    for i, (a, box_a) in enumerate(boxes):
        for b, box_b in boxes[i + 1:]:
            assert not box_a.overlaps(box_b), f"{a!r} overlaps {b!r}"
