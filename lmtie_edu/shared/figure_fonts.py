"""Fonts for figures in the chosen language: the package's own CJK font, so no glyph is missing anywhere.

English figures keep matplotlib's settings untouched (their pictures do not change). For Chinese,
:func:`use_for` adds the font shipped in lmtie_edu/shared/fonts/ (a subset of Noto Sans CJK SC, made by
tools/make_cjk_font.py) and puts it after DejaVu Sans: matplotlib (≥ 3.6) takes each glyph from the first
family that has it, so Latin letters, digits and math look as in the English figures and hanzi come from Noto.
"""

from __future__ import annotations

import logging
from pathlib import Path

import matplotlib
from matplotlib import font_manager

CJK_FONT = Path(__file__).resolve().parent / "fonts" / "NotoSansSC-lmtie-subset.otf"


class _RegularForBold(logging.Filter):
    """The shipped font has one weight: a bold title is drawn regular, without matplotlib printing
    "findfont: Failed to find font weight bold …" into the lesson's output each time."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "Failed to find font weight" not in record.getMessage()


_english = {}  # the rc settings before a language other than English was chosen


def cjk_family() -> str:
    """The family name of the shipped CJK font, registered with matplotlib."""
    font_manager.fontManager.addfont(str(CJK_FONT))
    return font_manager.FontProperties(fname=str(CJK_FONT)).get_name()


def use_for(language: str) -> None:
    rc = matplotlib.rcParams
    if language == "en":
        rc.update(_english)
        return
    if not _english:
        _english.update({key: rc[key] for key in ("font.family", "font.sans-serif")})
    family = cjk_family()
    font_log = logging.getLogger("matplotlib.font_manager")
    if not any(isinstance(existing, _RegularForBold) for existing in font_log.filters):
        font_log.addFilter(_RegularForBold())
    # Fallback goes through the families of font.family, one font each: name both (not "sans-serif").
    rc["font.family"] = ["DejaVu Sans", family]
    rc["font.sans-serif"] = ["DejaVu Sans", family]
