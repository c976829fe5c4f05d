"""The package's own text in Chinese: what lmtie_edu shows a learner, extracted with Babel, compiled for gettext.

Strings marked ``tr("…")`` or ``N_("…")`` (lmtie_edu/shared/language.py) are extracted with Babel's Python
extractor, one catalogue per part of the package, so a lesson's text sits with its lesson:
``translations/zh_CN/lmtie_edu/kit.po``, ``shared.po``, ``lesson01.po`` … ``lesson08.po``. Updating works as
for the lessons' markdown (tools/i18n/catalogue.py): unchanged text keeps its translation, changed text is
fuzzy, new text untranslated, removed text dropped. All of them compile into one gettext file,
``lmtie_edu/locale/zh_CN/LC_MESSAGES/lmtie_edu.mo``, which the package loads with the standard library.

A translation must keep the English text's ``{fields}`` (the code fills them after translating).

The worked answers (the last hint tier shows a reference solution's source) have a catalogue of their own,
``translations/zh_CN/lmtie_edu/worked_answers.po``: each comment and docstring of ``lessonNN/solutions.py``
(read by ``lmtie_edu.shared.language.source_text``, which also translates them when shown), compiled into
``lmtie_edu_worked_answers.mo`` beside the package's file, so that a graded copy can leave it out with the
solutions.
"""

from __future__ import annotations

import hashlib
import io
import re
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import write_mo

from lmtie_edu.shared.language import WORKED_ANSWERS_DOMAIN, source_text

from .catalogue import CATALOGUE_DIR, REPO
from .pofile import LOCALE, PROJECT, REVIEWED, read_catalogue, render, without_format_flags

PACKAGE = REPO / "lmtie_edu"
PACKAGE_CATALOGUES = CATALOGUE_DIR / "lmtie_edu"
COMPILED = PACKAGE / "locale" / LOCALE / "LC_MESSAGES" / "lmtie_edu.mo"
KEYWORDS = {"tr": None, "N_": None}  # the first argument of each is the message
WORKED_ANSWERS = "worked_answers"  # the catalogue of the solutions' comments and docstrings
WORKED_ANSWERS_COMPILED = COMPILED.with_name(f"{WORKED_ANSWERS_DOMAIN}.mo")
FIELD = re.compile(r"(?<!\{)\{([A-Za-z_]\w*)[^{}]*\}(?!\})")


def parts() -> list[str]:
    """The parts of the package with a catalogue each: kit, shared, lesson01 … (folders with Python files)."""
    return sorted(path.name for path in PACKAGE.iterdir() if path.is_dir() and any(path.glob("*.py")))


def part_catalogue(part: str) -> Path:
    return PACKAGE_CATALOGUES / f"{part}.po"


def worked_answers_template() -> Catalog:
    """Every comment and function docstring of the lessons' reference solutions, with its file and line."""
    result = Catalog(locale=LOCALE, project=PROJECT, fuzzy=False)
    for part in parts():
        path = PACKAGE / part / "solutions.py"
        if path.exists():
            for start, _end, _kind, message in source_text(path.read_text(encoding="utf-8")):
                if start != (1, 0):  # the module's docstring: never part of a worked answer
                    result.add(message, locations=[(f"lmtie_edu/{part}/solutions.py", start[0])])
    return result


def template(part: str) -> Catalog:
    """Every marked string of one part of the package, with the files and lines it comes from."""
    if part == WORKED_ANSWERS:
        return worked_answers_template()
    result = Catalog(locale=LOCALE, project=PROJECT, fuzzy=False)
    folder = PACKAGE / part
    for filename, line, message, _comments, _context in extract_from_dir(
            folder, method_map=[("*.py", "python")], keywords=KEYWORDS, comment_tags=(), strip_comment_tags=True):
        if isinstance(message, tuple):  # tr(a, b) is not a plural form here: the message is the first string
            message = message[0]
        if message:
            result.add(message, locations=[(f"lmtie_edu/{part}/{filename}", line)])
    without_format_flags(result)
    return result


def merged(part: str) -> Catalog:
    catalogue = read_catalogue(part_catalogue(part))
    catalogue.update(template(part), update_creation_date=False)
    catalogue.obsolete.clear()  # removed text is gone from the package: keep no stale entries
    return catalogue


MATH = re.compile(r"\$[^$]+\$")


def fields(text: str) -> set[str]:
    """The ``{name}`` fields the code fills; braces inside ``$…$`` are TeX's (``N_{nv}``), not fields."""
    return set(FIELD.findall(MATH.sub("", text)))


def problems(part: str, catalogue: Catalog | None = None) -> list[str]:
    """Every entry of a part that the Chinese package cannot show: untranslated, fuzzy, or fields changed."""
    catalogue = catalogue if catalogue is not None else merged(part)
    found = []
    for message in catalogue:
        if not message.id:
            continue
        where = f"translations/zh_CN/lmtie_edu/{part}.po ({message.locations[0][0]}:{message.locations[0][1]})" \
            if message.locations else f"translations/zh_CN/lmtie_edu/{part}.po"
        first = message.id.splitlines()[0][:70]
        if not message.string:
            found.append(f"{where}: untranslated: {first!r}")
        elif message.fuzzy:
            found.append(f"{where}: fuzzy (the English changed): {first!r}")
        elif fields(message.id) != fields(message.string):
            found.append(f"{where}: the translation's fields {sorted(fields(message.string))} are not the "
                         f"English {sorted(fields(message.id))}: {first!r}")
    return found


def extract(chosen: list[str] | None = None) -> list[str]:
    """Update each chosen part's .po (default: every part) from the package source; the parts whose file changed."""
    changed = []
    for part in chosen if chosen is not None else parts():
        text = render(merged(part))
        path = part_catalogue(part)
        if not (path.exists() and path.read_bytes() == text):
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(text)
            changed.append(part)
    return changed


def fingerprint(lesson_stem: str) -> str:
    """A short hash of the package text a lesson shows (kit, shared and its own part): when it changes, the
    Chinese lesson's stored outputs are stale and the build executes it again."""
    chosen = [part for part in parts() if not part.startswith("lesson") or part == f"lesson{lesson_stem[:2]}"]
    digest = hashlib.sha256()
    for part in chosen:
        for message in read_catalogue(part_catalogue(part)):
            if message.id and message.string and not message.fuzzy:
                digest.update(f"{message.id}\0{message.string}\0".encode())
    return digest.hexdigest()[:16]


def all_problems() -> list[str]:
    return [problem for part in parts() for problem in problems(part)]


def compiled(chosen: list[str] | None = None) -> bytes:
    """The .mo file of every part's translated, non-fuzzy entries (whatever is missing stays English)."""
    # fixed dates: the same catalogues always compile to the same bytes (a test compares them)
    everything = Catalog(locale=LOCALE, project=PROJECT, fuzzy=False, creation_date=REVIEWED, revision_date=REVIEWED)
    for part in chosen if chosen is not None else parts():
        for message in merged(part):
            if message.id and message.string and not message.fuzzy and fields(message.id) == fields(message.string):
                everything.add(message.id, message.string)
    buffer = io.BytesIO()
    write_mo(buffer, everything, use_fuzzy=False)
    return buffer.getvalue()


def _compiled_files() -> dict[Path, bytes]:
    return {COMPILED: compiled(), WORKED_ANSWERS_COMPILED: compiled([WORKED_ANSWERS])}


def write_compiled() -> list[Path]:
    """Write the package's .mo and the worked answers' .mo where they are not current; the files written."""
    changed = []
    for path, data in _compiled_files().items():
        if not (path.exists() and path.read_bytes() == data):
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
            changed.append(path)
    return changed


def is_compiled_current() -> bool:
    return all(path.exists() and path.read_bytes() == data for path, data in _compiled_files().items())
