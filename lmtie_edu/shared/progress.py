"""A progress bar for training loops that keeps notebook outputs comparable.

In a Jupyter kernel it displays an ``IntProgress`` bar and a label, then updates their values
(no new output, so nbval compares the cell as usual: the display's text form is fixed).
Anywhere else — tests, benchmarks, scripts — it shows nothing.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable, Iterator

from .language import tr
from .validation import check_bool


def in_kernel() -> bool:
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    return shell is not None and hasattr(shell, "kernel")


class Progress:
    """``for step in Progress(range(n), "training")`` — call ``.note("loss 2.31")`` to update the label."""

    def __init__(self, iterable: Iterable, description: str = "", total: int | None = None, show: bool | None = None):
        if not hasattr(iterable, "__iter__"):
            raise TypeError(tr("iterable must be something to loop over, e.g. Progress(range(steps), 'training'); "
                               "got {value:.40} ({type})", value=repr(iterable), type=type(iterable).__name__))
        if not isinstance(description, str):
            raise TypeError(tr("description must be text, e.g. 'training'; got {value:.40}", value=repr(description)))
        if total is None:
            if not hasattr(iterable, "__len__"):
                raise TypeError(tr("Progress needs total=... for an iterable without a length ({type}); "
                                   "e.g. Progress(items, 'training', total=steps)", type=type(iterable).__name__))
            total = len(iterable)
        if isinstance(total, bool) or not isinstance(total, numbers.Integral) or total < 0:
            raise ValueError(tr("total must be a whole number of steps >= 0; got {value}", value=repr(total)))
        self.iterable = iterable
        self.total = int(total)
        self.show = in_kernel() if show is None else check_bool(show, "show")
        self.bar = self.label = None
        if self.show:
            import ipywidgets as widgets
            from IPython.display import display

            self.bar = widgets.IntProgress(value=0, min=0, max=max(self.total, 1), description=description)
            self.label = widgets.Label(value="")
            display(widgets.HBox([self.bar, self.label]))

    def note(self, text: str) -> None:
        if self.label is not None:
            self.label.value = str(text)  # a number or a tensor is shown as its text

    def __iter__(self) -> Iterator:
        for done, item in enumerate(self.iterable, start=1):
            yield item
            if self.bar is not None:
                self.bar.value = done
        if self.bar is not None:
            self.bar.bar_style = "success"
