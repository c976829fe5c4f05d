"""The kinds of benchmark `make bench` runs (tools/bench.py): an operation, a panel's toggle, the floor.

A toggle benchmark flips one control of a panel; every flip is a full redraw, and its setup also records where
the time goes (``breakdown``). The floor is the cheapest two-panel redraw this machine can do: a redraw-only
toggle's budget is a multiple of it, so one run reads the ratio whatever the machine.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field

REDRAW_BUDGET_SECONDS = 0.150
FLOOR_FACTOR = 1.5  # a redraw-only toggle may cost this many floors


@dataclass
class Benchmark:
    """One interactive operation: ``run()`` does it once and may return extra metrics (a dict).

    ``setup()``, if given, runs once before the timed runs (and only if the benchmark is selected),
    so building a panel or a model costs nothing when ``--only`` picks another benchmark.
    """

    name: str
    run: Callable[[], dict | None]
    budget_seconds: float
    repeats: int = 21
    extra: dict = field(default_factory=dict)
    setup: Callable[[], None] | None = None
    redraw_only: bool = False  # budget: FLOOR_FACTOR × the floor of the same run


def breakdown(panel, repeats: int = 5) -> dict:
    """Where a redraw's time goes (median ms): the lesson's compute with the figure's building, matplotlib's
    drawing, PNG encoding (what ``figure_to_png(fast=True)`` adds to a drawn figure). A panel drawn through a
    LiveFigure returns its PNG from compute: its compute then includes the (partial) drawing and encoding,
    reported as one figure, ``live_compute_draw_encode_ms``."""
    import io

    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from PIL import Image

    parts = {"compute_and_build_ms": [], "draw_ms": [], "encode_ms": []}
    values, live = panel.values(), False
    for index in range(repeats):
        started = time.perf_counter()
        result = panel.compute(**{**values, "tie": bool(index % 2) != values["tie"]})
        built = time.perf_counter()
        if result.png is not None:
            live = True
            parts["compute_and_build_ms"].append(built - started)
            continue
        canvas = FigureCanvasAgg(result.figure)
        canvas.draw()
        drawn = time.perf_counter()
        Image.frombuffer("RGBA", canvas.get_width_height(), canvas.buffer_rgba()).save(
            io.BytesIO(), format="png", compress_level=1)
        encoded = time.perf_counter()
        for name, seconds in zip(parts, (built - started, drawn - built, encoded - drawn), strict=True):
            parts[name].append(seconds)
    panel.redraw()  # the figure back in the panel's own state
    if live:
        return {"live_compute_draw_encode_ms": round(statistics.median(parts["compute_and_build_ms"]) * 1000, 1)}
    return {name: round(statistics.median(times) * 1000, 1) for name, times in parts.items()}


def toggle_benchmark(name: str, make_panel: Callable, *, control: str = "tie",
                     budget_seconds: float = REDRAW_BUDGET_SECONDS, repeats: int = 21,
                     redraw_only: bool = True) -> Benchmark:
    """Flip one checkbox of a panel ``repeats`` times; each flip is one full, cold redraw (compute + PNG)."""
    state = {}
    bench = Benchmark(name, lambda: None, budget_seconds, repeats, redraw_only=redraw_only)

    def setup():
        state["panel"] = panel = make_panel()
        state["widget"] = panel.controls[control]
        flip()  # warm-up: lazy imports are not what a learner waits for on every click
        flip()
        if redraw_only:
            bench.extra.update(breakdown(panel))

    def flip():
        state["widget"].value = not state["widget"].value

    bench.run, bench.setup = flip, setup
    return bench


def floor_compute(tie: bool):
    """The cheapest figure a two-panel redraw can have: 12 bars and a 12-point line, a title each."""
    from lmtie_edu.kit.panels import PanelResult
    from lmtie_edu.kit.plotting import new_figure

    fig, (left, right) = new_figure(1, 2)
    heights = [(i % 5 + 1) * (2 if tie else 1) for i in range(12)]
    left.bar(range(12), heights)
    right.plot(range(12), [h * h for h in heights])
    left.set_title("bars")
    right.set_title("line")
    return PanelResult(fig, {"sum": sum(heights)})


def floor_panel():
    from lmtie_edu.kit.panels import TiePanel

    return TiePanel(floor_compute)


FLOOR = "floor: a two-panel figure redrawn and encoded to PNG"
