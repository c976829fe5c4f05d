"""The language the package speaks to the learner: English unless the lesson's set-up chooses another.

Every string the package shows a learner is written in English and marked for translation:

- ``tr("text")`` translates where the text is shown (a check line, a figure title, an axis label);
  ``tr("rows {rows} are non-zero", rows=rows)`` translates first, then fills the fields, so the
  Chinese text may put them in another order;
- ``N_("text")`` only marks text that is declared once and translated where it is shown (a predict
  question's options and explanation, an exercise's hints and diagnoses): the kit calls ``tr`` on it.

``python -m tools.zh extract`` collects both kinds with Babel into translations/zh_CN/lmtie_edu/*.po, and
``python -m tools.zh build`` compiles them into lmtie_edu/locale/zh_CN/LC_MESSAGES/lmtie_edu.mo. A Chinese
lesson's set-up cell calls ``setup_lesson(seed=0, language="zh_CN")``, which calls :func:`use`; English
needs no call and its text is the msgid itself, so English outputs never depend on a catalogue.
"""

from __future__ import annotations

import gettext
from pathlib import Path

LANGUAGES = ("en", "zh_CN")
LOCALE_DIR = Path(__file__).resolve().parents[1] / "locale"
DOMAIN = "lmtie_edu"
_state = {"language": "en", "catalogue": gettext.NullTranslations()}


def N_(text: str) -> str:  # noqa: N802 — gettext's conventional name for "mark only"
    """Mark ``text`` for the catalogue without translating it (it is translated where it is shown)."""
    return text


def tr(message: str, /, **fields) -> str:
    """``message`` in the current language, then ``str.format(**fields)`` if fields are given."""
    translated = _state["catalogue"].gettext(message) if message else message
    return translated.format(**fields) if fields else translated


def labelled_options(values) -> list:
    """A control's options with each value shown by its label in the current language: ``(label, value)``
    pairs, or the plain values in English (so the English control and its messages stay exactly as they were)."""
    labels = [tr(value) for value in values]
    return list(values) if labels == list(values) else list(zip(labels, values, strict=True))


def current() -> str:
    """The language now in use: ``"en"`` or ``"zh_CN"``."""
    return _state["language"]


def use(language: str) -> None:
    """Speak ``language`` from now on: its catalogue for text, and for figures a font that has its glyphs."""
    if language not in LANGUAGES:
        raise ValueError(f"language must be one of {', '.join(map(repr, LANGUAGES))}; got {language!r}")
    if language == "en" and current() == "en":
        return  # nothing to undo: no catalogue, and matplotlib's settings were never touched
    if language == "en":
        catalogue = gettext.NullTranslations()
    else:
        try:
            catalogue = gettext.translation(DOMAIN, LOCALE_DIR, languages=[language])
        except OSError:
            raise FileNotFoundError(
                f"the {language} catalogue {LOCALE_DIR / language / 'LC_MESSAGES' / (DOMAIN + '.mo')} is missing: "
                "a repository checkout builds it with `python -m tools.zh build`") from None
    from . import figure_fonts  # matplotlib only when a language is chosen

    figure_fonts.use_for(language)
    _state.update(language=language, catalogue=catalogue)
