"""The live-widget pattern used by every lesson.

A :class:`TiePanel` is a thin shell over a plain function ``compute(tie=..., **controls)`` that
returns a :class:`PanelResult` (a figure plus the numbers that matter). The panel shows a
*tie weights* checkbox, the lesson's own controls, the figure as an ``ipywidgets.Image`` and the
numbers as a small table. Any change calls ``compute`` again and swaps the image in place.

Why an ``Image`` widget and not an ``Output`` widget: a redraw only changes a widget value, so it
never produces cell output — no stacked figures in JupyterLab, no leaked pyplot figures, and
nothing that nbval would see as an extra output (``Output`` capture does not work under nbval;
see the stack notes). Tests drive the panel headless by calling :meth:`TiePanel.set` or setting
``panel.tie.value`` and asserting on ``panel.result``.

Use in a notebook::

    panel = TiePanel(my_compute, controls={"ids": ipywidgets.Text("2, 5, 5, 9")})
    panel            # displays it
"""

from __future__ import annotations

import contextlib
import gc
import html
import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import ipywidgets as widgets
from matplotlib.figure import Figure

from lmtie_edu.shared.language import N_, tr
from lmtie_edu.shared.validation import check_bool, is_option, plain_number

from .plotting import figure_to_png


@dataclass
class PanelResult:
    """What a compute function returns: the figure to show and the numbers it illustrates."""

    figure: Figure
    numbers: dict = field(default_factory=dict)
    png: bytes | None = None  # already rendered (a LiveFigure's update); otherwise the panel renders ``figure``


def format_number(value, digits: int = 4) -> str:
    """A float with ``digits`` significant digits (fixed-point from 0.001 up to 10**digits).

    A float32 result differs in its last bits from one CPU to another (other kernels, other
    summation orders); four significant digits stay the same, so a printed report is reproducible.
    """
    if isinstance(value, bool) or not isinstance(value, float):
        return str(value)
    if not math.isfinite(value) or value == 0:
        return str(value)
    value = float(f"{value:.{digits - 1}e}")  # round first: 999.96 becomes 1000 (another decade)
    magnitude = math.floor(math.log10(abs(value)))
    if magnitude < -3 or magnitude >= digits:
        return f"{value:.{digits - 1}e}"
    decimals = max(digits - 1 - magnitude, 0)
    return f"{round(value, decimals):.{decimals}f}"


def report(numbers: Mapping) -> None:
    """Print ``name: value`` lines (what the deterministic cell after a widget shows).

    ``numbers`` is a dict of numbers or a panel's result (``report(panel.result)`` prints its numbers)."""
    if isinstance(numbers, PanelResult):
        numbers = numbers.numbers
    if not isinstance(numbers, Mapping):
        hint = " — for a panel call panel.report()" if hasattr(numbers, "report") else ""
        raise TypeError(f"report needs a dict of numbers or a PanelResult (e.g. panel.result){hint}; "
                        f"got {type(numbers).__name__}")
    for name, value in numbers.items():
        print(tr("{name}: {value}", name=tr(name), value=format_number(value)))


def _allowed(control) -> str:
    if hasattr(control, "options"):
        values = [option[1] if isinstance(option, tuple) else option for option in control.options]
        return tr("one of {options}", options=values)  # what set() accepts: the values, not their labels
    if hasattr(control, "min") and hasattr(control, "max"):
        return tr("a value in [{low}, {high}]", low=control.min, high=control.max)
    if isinstance(control, (widgets.Checkbox, widgets.ToggleButton)):
        return tr("True or False")
    return tr("a valid value")


def check_control_value(name: str, control, value):
    """Return the value to store (NumPy's bool as Python's); raise ``ValueError``/``TypeError`` for a value the
    control cannot hold.

    ipywidgets silently clamps an out-of-range slider value; a learner who asks for d = 10_000 on a
    slider that stops at 256 should be told, not handed a different model.
    """
    if isinstance(control, (widgets.Checkbox, widgets.ToggleButton)):
        return check_bool(value, name)  # a Checkbox refuses np.True_ with a TraitError
    if isinstance(control, (widgets.IntSlider, widgets.IntText, widgets.BoundedIntText)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(tr("{name} must be an integer, {allowed}; got {value}", name=name,
                               allowed=_allowed(control), value=repr(value)))
    if isinstance(control, (widgets.FloatSlider, widgets.FloatLogSlider, widgets.BoundedFloatText)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise TypeError(tr("{name} must be a finite number, {allowed}; got {value}", name=name,
                               allowed=_allowed(control), value=repr(value)))
    if isinstance(control, widgets.FloatLogSlider):
        low, high = control.base ** control.min, control.base ** control.max
        if not low <= value <= high:
            raise ValueError(tr("{name} must be a value in [{low}, {high}]; got {value}", name=name,
                                low=format(low, "g"), high=format(high, "g"), value=repr(value)))
        return value
    if hasattr(control, "min") and hasattr(control, "max") and not control.min <= value <= control.max:
        raise ValueError(tr("{name} must be {allowed}; got {value}", name=name, allowed=_allowed(control),
                            value=repr(value)))
    if isinstance(control, widgets.SelectMultiple):
        bad = [v for v in value if not any(is_option(v, option) for option in control.options)]
        if bad:
            raise ValueError(tr("{name} must be chosen from {options}; got {bad}", name=name,
                                options=list(control.options), bad=bad))
        return value
    if hasattr(control, "options"):
        values = [option[1] if isinstance(option, tuple) else option for option in control.options]
        if not any(is_option(value, option) for option in values):
            raise ValueError(tr("{name} must be {allowed}; got {value}", name=name, allowed=_allowed(control),
                                value=repr(value)))
    if isinstance(control, widgets.Text) and not isinstance(value, str):
        raise TypeError(tr("{name} must be text; got {value}", name=name, value=repr(value)))
    return value


@contextlib.contextmanager
def _no_collection_pause():
    """Hold Python's cyclic garbage collector during a redraw. Matplotlib allocates tens of thousands of objects
    per figure, which triggers collections; in a kernel that has imported torch (and maybe transformers) a full
    collection walks millions of objects, and a click would wait for it. Collection resumes afterwards, while
    the learner looks at the figure."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


class TiePanel:
    """A *tie weights* toggle plus lesson controls, bound to ``compute``; redraws in place."""

    def __init__(self, compute: Callable[..., PanelResult], *, controls: Mapping | None = None,
                 tie: bool = True, title: str = "", tie_description: str = N_("tie weights"),
                 values: Mapping | None = None):
        """``values``: the starting value of each control as the caller asked for it. Checked by the same rule
        as :meth:`set` (a widget would clamp an out-of-range value silently), so the constructor and ``set()``
        accept and refuse the same values."""
        tie = check_bool(tie, "tie")  # np.True_ as True: a Checkbox refuses NumPy's
        self.compute = compute
        self.tie = widgets.Checkbox(value=tie, description=tr(tie_description), indent=False)
        self.controls = {"tie": self.tie, **dict(controls or {})}
        for name, value in {k: plain_number(v) for k, v in dict(values or {}).items()}.items():
            if name not in self.controls:
                raise ValueError(tr("this panel has no control {name}; its controls are {controls}", name=repr(name),
                                    controls=list(self.controls)))
            self.controls[name].value = check_control_value(name, self.controls[name], value)
        self.image = widgets.Image(format="png", layout=widgets.Layout(max_width="100%"))
        self.numbers = widgets.HTML()
        self.status = widgets.HTML()
        self.result: PanelResult | None = None
        self.redraws = 0
        self.last_redraw_seconds = math.nan
        self._holding = False
        for control in self.controls.values():
            control.observe(self._on_change, names="value")
        header = [widgets.HTML(f"<b>{html.escape(tr(title))}</b>")] if title else []
        self.widget = widgets.VBox(
            header + [widgets.HBox(list(self.controls.values()), layout=widgets.Layout(flex_flow="row wrap")),
                      self.status, self.image, self.numbers],
        )
        self.widget.add_class("lmtie-panel")
        self.redraw()

    # -- state ---------------------------------------------------------------------------------
    def values(self) -> dict:
        """The current control values, as keyword arguments for ``compute``."""
        return {name: control.value for name, control in self.controls.items()}

    def set(self, **values) -> PanelResult:
        """Set several controls at once (one redraw); reject unknown names and impossible values.

        A refused ``set()`` leaves the panel exactly as it was: controls, figure and numbers."""
        values = {name: plain_number(value) for name, value in values.items()}  # np.int64(50) is 50
        for name, value in values.items():
            if name not in self.controls:
                raise ValueError(tr("this panel has no control {name}; its controls are {controls}", name=repr(name),
                                    controls=list(self.controls)))
            values[name] = check_control_value(name, self.controls[name], value)  # np.True_ stored as True
        before = self.values()
        self._assign(values)
        try:
            return self.redraw()
        except Exception:
            self._assign(before)  # the compute function refused the values (e.g. a token id out of range)
            raise

    def _assign(self, values: Mapping) -> None:
        self._holding = True
        try:
            for name, value in values.items():
                self.controls[name].value = value
        finally:
            self._holding = False

    # -- drawing -------------------------------------------------------------------------------
    def redraw(self) -> PanelResult:
        """Call ``compute`` with the current values and show its figure and numbers."""
        started = time.perf_counter()
        with _no_collection_pause():
            result = self.compute(**self.values())
            if not isinstance(result, PanelResult):
                raise TypeError(f"compute must return a PanelResult; got {type(result).__name__}")
            png = result.png if result.png is not None else figure_to_png(result.figure, fast=True)
            numbers = self._numbers_html(result.numbers)
        self.image.value = png
        self.numbers.value = numbers
        self.status.value = ""
        self.result = result
        self.redraws += 1
        self.last_redraw_seconds = time.perf_counter() - started
        return result

    def _on_change(self, change) -> None:
        if self._holding:
            return
        try:
            self.redraw()
        except (TypeError, ValueError) as error:  # bad input typed by the learner: say so, keep the old figure
            self.status.value = f"<span style='color:#b00'>⚠ {html.escape(str(error))}</span>"
        except Exception as error:  # noqa: BLE001 — an observer's traceback would only reach the browser console
            self.status.value = (f"<span style='color:#b00'>⚠ redraw failed: {html.escape(type(error).__name__)}: "
                                 f"{html.escape(str(error))}</span>")

    @staticmethod
    def _numbers_html(numbers: Mapping) -> str:
        rows = "".join(
            f"<tr><td style='padding-right:1em'>{html.escape(tr(str(k)))}</td><td><code>{html.escape(format_number(v))}"
            "</code></td></tr>" for k, v in numbers.items()
        )
        return f"<table>{rows}</table>"

    def report(self) -> None:
        """Print the numbers of the current result (for the deterministic cell after the widget)."""
        print(tr("controls: ") + ", ".join(f"{k}={v!r}" for k, v in self.values().items()))
        report(self.result.numbers)

    def _repr_mimebundle_(self, **kwargs):
        return self.widget._repr_mimebundle_(**kwargs)

    if not hasattr(widgets.Widget, "_repr_mimebundle_"):  # ipywidgets 7 (Google Colab) displays by side effect
        def _ipython_display_(self, **kwargs):
            self.widget._ipython_display_(**kwargs)
