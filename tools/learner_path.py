"""What a learner does with a lesson's widgets, done by code: every panel control set, every question answered.

Used two ways:

- ``walk_panels(namespace)`` runs at the end of each solved lesson that strict nbval executes (the cell
  ``python -m tools.make_solutions --for-nbval`` appends), on the lesson's own panels: every control of every
  panel is set as the learner sets it in the widget (the checkbox flipped, each option of a menu, a slider's
  ends), and each change must redraw without a warning. It prints how many settings it made (compared by nbval).
- ``answer_in_widget(question, guess)`` answers a predict-first question through its widget's kernel side (the
  entry set, the *Check* button clicked) and returns the feedback the learner reads.
"""

from __future__ import annotations

import html
import re

import ipywidgets as widgets

LEARNER_CELL = """# Added for the check run only (python -m tools.make_solutions --for-nbval): every control of every panel
# of this lesson, set as a learner sets it, must redraw without a warning.
from tools.learner_path import walk_panels

settings = walk_panels(globals())"""


def _tries(control) -> list:
    if isinstance(control, widgets.Checkbox):
        return [not control.value]
    if hasattr(control, "options"):
        options = [o[1] if isinstance(o, tuple) else o for o in control.options]
        return [o for o in options if o != control.value][:3]
    if hasattr(control, "min") and hasattr(control, "max"):
        return [v for v in (control.min, control.max) if v != control.value]
    return []  # free text (e.g. token ids): the lesson's own cells and the panel's tests type into it


def walk_panels(namespace: dict) -> int:
    """Set every control of every panel found in ``namespace``; raise if one does not redraw cleanly."""
    from lmtie_edu.kit.panels import TiePanel

    panels = list({id(v): v for v in list(namespace.values()) if isinstance(v, TiePanel)}.values())
    if not panels:
        raise AssertionError("this lesson shows no panel")
    settings = 0
    for panel in panels:
        start = panel.values()
        for name, control in panel.controls.items():
            for value in _tries(control):
                before = panel.redraws
                control.value = value  # what a click does: the observer redraws
                if panel.status.value or panel.redraws != before + 1:
                    raise AssertionError(f"panel control {name}={value!r}: no clean redraw "
                                         f"({html.unescape(re.sub('<[^>]+>', '', panel.status.value))})")
                settings += 1
            panel.set(**{name: start[name]})
    print(f"panels: {len(panels)}, control settings made and redrawn: {settings}")
    return settings


def answer_in_widget(question, guess) -> str:
    """Answer ``question`` through its widget as a learner does; the feedback text shown under it."""
    box = question.ask()
    entry, check, feedback = box.children[1], box.children[2], box.children[3]
    entry.value = str(guess) if isinstance(entry, widgets.Text) else guess
    check.click()
    return html.unescape(re.sub("<[^>]+>", "", feedback.value))
