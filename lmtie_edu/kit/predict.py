"""Predict, then run: a question asked *before* the cell that shows the answer.

The question is written once, in the lesson's markdown cell (``**Predict first.** …``). Its options, answer
and explanation live in ``lmtie_edu.lessonNN.questions`` (so the answer is not printed in the cell the
learner reads), and the cell just below the question asks it::

    from lmtie_edu.lesson03 import questions as predict
    predict.tied_rows.ask()        # the choices (or a number box) and "Check"; the question is not repeated

The widget records the guess in :data:`PREDICTIONS` and, once answered, says whether it was right and why;
the *next* cell computes the evidence. Without widgets (a plain console, a test), answer in code:
``predict.tied_rows.answer("12: every row")``.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence

import ipywidgets as widgets

from lmtie_edu.shared.language import tr

PREDICTIONS: dict[str, dict] = {}  # question key -> {"guess": ..., "correct": bool}


def _plain(guess):
    """A str, int or float guess as a plain built-in value: a subclass cannot bring its own == (an answer whose
    == is always True must not be "Right."); anything else is left for is_right to refuse."""
    if isinstance(guess, str):
        return str.__str__(guess)
    if isinstance(guess, bool):
        return guess
    if isinstance(guess, int):
        return int.__index__(guess)
    if isinstance(guess, float):
        return float.__float__(guess)
    return guess


class Question:
    """Shared by both kinds: a key and the explanation shown once answered (the question is the lesson's)."""

    def __init__(self, key: str, explain: str):
        for name, value in (("key", key), ("explain", explain)):
            if not isinstance(value, str) or not value.strip():
                raise ValueError(f"a question needs a non-empty string {name}; got {value!r}")
        self.key, self.explain = key, explain

    def is_right(self, guess) -> bool:
        raise NotImplementedError

    def shown_answer(self) -> str:
        raise NotImplementedError

    def feedback(self, guess) -> str:
        """Record ``guess`` and return the verdict and the explanation (plain text)."""
        guess = self.canonical(_plain(guess))
        correct = self.is_right(guess)
        PREDICTIONS[self.key] = {"guess": guess, "correct": correct}
        verdict = tr("Right.") if correct else tr("Not quite: you said {said}; the answer is {answer}.",
                                                  said=self.shown_guess(guess), answer=self.shown_answer())
        return tr("{verdict} {explanation} Run the next cell to see it happen.", verdict=verdict,
                  explanation=tr(self.explain))

    def canonical(self, guess):
        """The guess as the question stores it (a translated option becomes its English original)."""
        return guess

    def shown_guess(self, guess) -> str:
        return f"{guess:,g}" if isinstance(guess, float) else tr(guess)

    def answer(self, guess) -> None:
        """Answer in code (no widget): prints the verdict and the explanation."""
        print(self.feedback(guess))

    def ask(self) -> widgets.VBox:
        """The widget: the choices or a number box, a Check button and the feedback area.

        The question is not repeated: the learner has just read it in the markdown cell above."""
        entry = self._entry()
        check = widgets.Button(description=tr("Check my prediction"), button_style="info",
                               layout=widgets.Layout(width="max-content"))
        result = widgets.HTML()

        def on_check(_button) -> None:
            guess = self._read(entry)
            if guess is None:
                result.value = "<i>" + html.escape(tr("Choose an answer first.")) + "</i>"
                return
            try:
                text = self.feedback(guess)
            except ValueError as error:
                text = str(error)
            result.value = f"<div class='lmtie-predict-feedback'>{html.escape(text)}</div>"

        check.on_click(on_check)
        heading = widgets.HTML("<b>" + html.escape(tr("Your prediction:")) + "</b>")
        box = widgets.VBox([heading, entry, check, result])
        box.add_class("lmtie-predict")
        return box

    def _entry(self):
        raise NotImplementedError

    def _read(self, entry):
        """The guess in the entry widget, or None when nothing has been entered yet."""
        return entry.value


class Choice(Question):
    """Multiple choice: ``options`` are strings, ``answer`` is one of them."""

    def __init__(self, key: str, options: Sequence[str], answer: str, explain: str):
        super().__init__(key, explain)
        options = list(options)
        if len(options) < 2 or not all(isinstance(o, str) and o for o in options) or len(set(options)) != len(options):
            raise ValueError(f"question {key!r}: give at least two different, non-empty options; got {options!r}")
        if answer not in options:
            raise ValueError(f"question {key!r}: the answer {answer!r} is not one of the options {options!r}")
        self.options, self.right = options, answer

    def canonical(self, guess):
        translated = {tr(option): option for option in self.options}
        return guess if guess in self.options else translated.get(guess, guess)

    def is_right(self, guess) -> bool:
        if guess not in self.options:
            raise ValueError(tr("choose one of {options}; got {guess}",
                                options=[tr(option) for option in self.options], guess=repr(guess)))
        return guess == self.right

    def shown_guess(self, guess) -> str:  # an option is quoted, the guess as the answer, in the lesson's quotes
        return tr("'{option}'", option=tr(guess))

    def shown_answer(self) -> str:
        return tr("'{option}'", option=tr(self.right))

    def _entry(self):
        # shown in the lesson's language; the widget's value is the English option (what is_right compares)
        return widgets.RadioButtons(options=[(tr(option), option) for option in self.options], value=None,
                                    layout=widgets.Layout(width="max-content"))


class Number(Question):
    """A number: right when within ``tolerance`` (relative, e.g. 0.1 = ±10 %) of ``answer``."""

    def __init__(self, key: str, answer: float, explain: str, *, tolerance: float = 0.0):
        super().__init__(key, explain)
        if isinstance(answer, bool) or not isinstance(answer, int | float) or not math.isfinite(answer):
            raise ValueError(f"question {key!r}: the answer must be a finite number; got {answer!r}")
        if isinstance(tolerance, bool) or not isinstance(tolerance, int | float) or not 0 <= tolerance < 1:
            raise ValueError(f"question {key!r}: tolerance is a fraction in [0, 1); got {tolerance!r}")
        self.right, self.tolerance = answer, tolerance

    def is_right(self, guess) -> bool:
        if isinstance(guess, bool) or not isinstance(guess, int | float) or not math.isfinite(guess):
            raise ValueError(tr("type a finite number; got {guess}", guess=repr(guess)))
        return abs(guess - self.right) <= self.tolerance * abs(self.right)

    def shown_answer(self) -> str:
        return f"{self.right:,g}" if not self.tolerance else tr("about {value}", value=format(self.right, ",g"))

    def _entry(self):
        # a text box, not FloatText: an empty box must mean "not answered" (NaN is not valid JSON for a widget)
        return widgets.Text(value="", placeholder=tr("a number"), description=tr("your guess:"))

    def _read(self, entry):
        text = entry.value.strip().replace(",", "")
        if not text:
            return None
        try:
            return float(text)
        except ValueError:
            return text  # feedback() then says a number is expected
