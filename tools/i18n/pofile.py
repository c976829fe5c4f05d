"""Read and write gettext catalogues (.po) with Babel, working around what Babel does not do as gettext does.

- Babel flags any "38 % of" as python-format and "{0, …}" as python-brace-format; markdown has no format
  strings, and the flags would make Poedit/msgfmt demand the same placeholders in the Chinese text.
- Babel writes a fuzzy entry's old msgid (``#| msgid``) wrapped into one garbled comment, and reads it back
  as a user comment that then grows at every update; here it is written and read as gettext and Poedit do.
- Lines are not wrapped: one line of the English cell is one line of the .po file (readable diffs).
"""

from __future__ import annotations

import io
import re
from datetime import UTC, datetime
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.pofile import normalize, read_po, unescape, write_po

from .errors import TranslationError

LOCALE = "zh_CN"
PROJECT = "lmtie_edu"
# Who translated and reviewed, written into every catalogue's header (gettext's fields, not placeholders).
TEAM = "lmtie_edu 中文版翻译组 (Chinese edition team) <https://github.com/lmtie-edu/lmtie_edu/issues>"
REVIEWED = datetime(2026, 12, 2, tzinfo=UTC)  # the native-style review of every catalogue (issue 29)
HEADER_COMMENT = (
    "# lmtie_edu 中文版 (Simplified Chinese) — translations of the course's lessons and package text.\n"
    "# Copyright (C) 2026 the lmtie_edu contributors; lesson text CC BY 4.0, code text MIT, as the English.\n"
    "# Translated by the lmtie_edu Chinese edition team; native-style review 2026-12-02 against\n"
    "# docs/glossary.md (terms follow zh.d2l.ai). Edit with `python -m tools.zh` (docs/authoring.md).\n"
    "#")


def without_format_flags(catalogue: Catalog) -> None:
    """Markdown has no format strings, but Babel flags "38 % of" as python-format and "{0, …}" as
    python-brace-format, and then Poedit/msgfmt would demand the same placeholders in the Chinese text."""
    for message in catalogue:
        message.flags -= {flag for flag in message.flags if flag.endswith("-format")}


def new_catalogue() -> Catalog:
    return Catalog(locale=LOCALE, project=PROJECT, fuzzy=False, creation_date=datetime.now(UTC))


def read_catalogue(path: Path) -> Catalog:
    """A .po file; a missing one reads as an empty catalogue, an unreadable one is an error naming the file."""
    path = Path(path)
    if not path.exists():
        return new_catalogue()
    try:
        with path.open("rb") as handle:
            catalogue = read_po(handle, locale=LOCALE, abort_invalid=True)
    except Exception as error:  # Babel raises several types (PoFileError, ValueError, UnicodeDecodeError)
        raise TranslationError(f"{path}: not a readable gettext catalogue ({type(error).__name__}: {error})") from None
    for message in catalogue:
        read_previous_msgid(message)
    return catalogue


# A fuzzy entry's old msgid, read and written as gettext does ("#| msgid ..."; see the module docstring).
QUOTED = re.compile(r'"(?:[^"\\]|\\.)*"')


def read_previous_msgid(message) -> None:
    previous = [comment[1:].strip() for comment in message.user_comments if comment.startswith("|")]
    message.user_comments = [comment for comment in message.user_comments if not comment.startswith("|")]
    text = " ".join(previous)
    if text.startswith("msgid "):
        message.previous_id = ["".join(unescape(token) for token in QUOTED.findall(text[len("msgid "):]))]


def with_previous_msgids(text: str, catalogue: Catalog) -> str:
    for message in catalogue:
        if message.id and message.fuzzy and message.previous_id:
            entry = "\nmsgid " + normalize(message.id, width=0) + "\n"
            old_msgid = f"msgid {normalize(message.previous_id[0], width=0)}"
            previous = "".join(f"#| {line}\n" for line in old_msgid.split("\n"))
            text = text.replace(entry, "\n" + previous + entry[1:], 1)
    return text


def with_team_header(catalogue: Catalog) -> None:
    """The header names the translation team and its review instead of Babel's placeholders."""
    catalogue.header_comment = HEADER_COMMENT
    catalogue.last_translator = TEAM
    catalogue.language_team = TEAM
    catalogue.msgid_bugs_address = "https://github.com/lmtie-edu/lmtie_edu/issues"
    catalogue.copyright_holder = "the lmtie_edu contributors"
    catalogue.version = "1"
    catalogue.revision_date = REVIEWED


def render(catalogue: Catalog) -> bytes:
    """The .po text: lines unwrapped (one English source line = one .po line), old msgids kept for fuzzy ones."""
    without_format_flags(catalogue)
    with_team_header(catalogue)
    buffer = io.BytesIO()
    write_po(buffer, catalogue, width=0)
    return with_previous_msgids(buffer.getvalue().decode("utf-8"), catalogue).encode("utf-8")
