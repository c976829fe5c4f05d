"""A panel's figure built and drawn once, then updated in place: only what a control changes is redrawn.

Drawing is most of a redraw's time (tick labels, titles, legends and colour bars are text, and text is slow to
render), and most of a figure does not change when the learner flips *tie weights*. A :class:`LiveFigure`
draws the figure once without its *changing* artists, keeps that picture as a background, and for each new
state pastes the background back and draws only the changing artists on top (matplotlib's blitting, done in
memory, without a GUI):

    live = LiveFigure(fig)
    image = live.changing(ax.imshow(first_values))     # the artists a control changes
    ...
    image.set_data(new_values)                         # update them for the new state
    return PanelResult(fig, numbers, png=live.png())

What may change is what the background does not show: artists' data, colours, text and visibility. What must
not change is the frame: axes limits, ticks, labels, legends, colour-bar ranges — fix them once for every
state the controls can reach (e.g. limits that cover tied and untied). While the background is drawn the
changing artists are made fully transparent rather than hidden: matplotlib lays out a hidden title anew (it
moved an automatically placed one off the top of the figure), a transparent one stays where it is.
``live.figure`` is an ordinary
Figure: ``show(live.figure)`` or ``figure_to_png`` draw it whole, changing artists included.
"""

from __future__ import annotations

import io

from matplotlib.artist import Artist
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from PIL import Image


class LiveFigure:
    def __init__(self, figure: Figure):
        if not isinstance(figure, Figure):
            raise TypeError(f"LiveFigure needs a matplotlib Figure (e.g. from new_figure()); got "
                            f"{type(figure).__name__}")
        self.figure = figure
        self._canvas = FigureCanvasAgg(figure)
        self._changing: list[Artist] = []
        self._background = None

    def changing(self, *artists):
        """Mark artists (or lists of them) as the ones a control changes; returns what it was given."""
        for artist in artists:
            for one in artist if isinstance(artist, list | tuple) else (artist,):
                if not isinstance(one, Artist):
                    raise TypeError(f"changing() takes matplotlib artists; got {type(one).__name__}")
                self._changing.append(one)
        return artists[0] if len(artists) == 1 else artists

    def forget_background(self) -> None:
        """Draw the whole figure again next time (after changing the frame: limits, ticks, labels)."""
        self._background = None

    def png(self) -> bytes:
        """The figure in its current state as PNG bytes (zlib level 1, like a panel's redraw)."""
        if self._background is None:
            alphas = [(artist, artist.get_alpha()) for artist in self._changing]
            for artist, _ in alphas:  # transparent, not hidden: the layout stays that of a full drawing
                artist.set_alpha(0.0)
            try:
                self._canvas.draw()
                self._background = self._canvas.copy_from_bbox(self.figure.bbox)
            finally:
                for artist, alpha in alphas:
                    artist.set_alpha(alpha)
        else:
            self._canvas.restore_region(self._background)
        renderer = self._canvas.get_renderer()
        for artist in self._changing:
            if artist.get_visible():
                artist.draw(renderer)
        buffer = io.BytesIO()
        Image.frombuffer("RGBA", self._canvas.get_width_height(), self._canvas.buffer_rgba()).save(
            buffer, format="png", compress_level=1)
        return buffer.getvalue()
