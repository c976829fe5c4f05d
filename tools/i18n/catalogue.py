"""One gettext catalogue per lesson, whose messages are the lesson's English markdown cells.

``translations/zh_CN/<lesson stem>.po``: msgid = the exact source of one English markdown cell, msgstr = its
Chinese text, no msgctxt. Read and written with Babel, so Poedit, Weblate or Crowdin open them.

Updating works as gettext's ``msgmerge`` does (Babel's ``Catalog.update``): a template is built from the
lesson's current English cells; a cell whose text is unchanged keeps its translation, a changed cell keeps
the translation of its old text but is marked *fuzzy* (the old English is kept as ``#| msgid`` so the
translator sees what changed), a new cell becomes an untranslated entry, a removed cell's entry is dropped.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from babel.messages.catalog import Catalog

from tools.course import notebooks

from .errors import TranslationError
from .pofile import LOCALE, PROJECT, read_catalogue, render, without_format_flags

REPO = Path(__file__).resolve().parents[2]
ENGLISH_DIR = REPO / "notebooks"
CATALOGUE_DIR = REPO / "translations" / "zh_CN"
# delivery/colab.py stamps this badge cell; it is rebuilt for the Chinese lesson, never translated.
BADGE_MARKER = "colab.research.google.com/assets/colab-badge.svg"


@dataclass(frozen=True)
class Problem:
    """An English markdown cell without a usable translation."""

    lesson: str
    cell_index: int
    cell_id: str
    kind: str  # "untranslated" or "stale"
    english: str

    def __str__(self) -> str:
        first_line = self.english.strip().splitlines()[0][:70]
        what = ("has no Chinese translation" if self.kind == "untranslated" else
                "changed in English since it was translated (the entry is fuzzy)")
        return f"{self.lesson}: markdown cell {self.cell_index} (id {self.cell_id}) {what}: {first_line!r}"


def english_lessons() -> list[Path]:
    """The English lessons, notebooks/NN_*.ipynb (not the built Chinese ones in notebooks/zh_CN/)."""
    return notebooks()


def read_notebook(path: Path) -> dict:
    """A notebook as plain JSON; a clear error when ``path`` is not a notebook."""
    path = Path(path)
    if path.suffix != ".ipynb" or not path.is_file():
        raise TranslationError(f"{path}: expected an existing .ipynb lesson file (e.g. notebooks/01_embedding_lookup.ipynb)")
    try:
        notebook = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise TranslationError(f"{path}: not a notebook (invalid JSON: {error})") from None
    if not isinstance(notebook, dict) or not isinstance(notebook.get("cells"), list):
        raise TranslationError(f"{path}: not a notebook (expected a JSON object with a 'cells' list)")
    return notebook


def cell_source(cell: dict) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def is_translatable(cell: dict) -> bool:
    """A markdown cell with text, other than the Colab/Binder badge cell."""
    text = cell_source(cell)
    return cell.get("cell_type") == "markdown" and bool(text.strip()) and BADGE_MARKER not in text


def translatable_cells(notebook: dict) -> list[tuple[int, dict]]:
    return [(index, cell) for index, cell in enumerate(notebook["cells"]) if is_translatable(cell)]


def catalogue_path(lesson: Path) -> Path:
    return CATALOGUE_DIR / f"{Path(lesson).stem}.po"


def template(lesson: Path, notebook: dict | None = None) -> Catalog:
    """The catalogue template of a lesson: one empty entry per English markdown cell, in lesson order."""
    notebook = notebook if notebook is not None else read_notebook(lesson)
    result = Catalog(locale=LOCALE, project=PROJECT, fuzzy=False)
    for index, cell in translatable_cells(notebook):
        result.add(cell_source(cell), locations=[(f"notebooks/{Path(lesson).name}", index)])
    without_format_flags(result)
    return result



def merged(lesson: Path, notebook: dict | None = None) -> Catalog:
    """The lesson's catalogue updated from its current English cells (in memory; nothing is written)."""
    catalogue = read_catalogue(catalogue_path(lesson))
    # Catalog.update keeps the fuzzy flag of an unchanged msgid but not its old msgid: carry it over.
    previous = {message.id: message.previous_id for message in catalogue if message.fuzzy and message.previous_id}
    catalogue.update(template(lesson, notebook), update_creation_date=False)
    catalogue.obsolete.clear()  # a removed cell's translation is in git's history, not kept as a stale entry
    for message in catalogue:
        if message.fuzzy and not message.previous_id and message.id in previous:
            message.previous_id = previous[message.id]
    return catalogue


def problems(lesson: Path, notebook: dict, catalogue: Catalog) -> list[Problem]:
    """Every English markdown cell of ``notebook`` that ``catalogue`` (already merged) cannot translate."""
    found = []
    for index, cell in translatable_cells(notebook):
        message = catalogue.get(cell_source(cell))
        kind = ("untranslated" if message is None or not message.string else
                "stale" if message.fuzzy else None)
        if kind:
            found.append(Problem(Path(lesson).stem, index, cell.get("id", "?"), kind, cell_source(cell)))
    return found


def extract(lesson: Path) -> bool:
    """Update the lesson's .po file from its English cells; True if the file changed (it is written only then)."""
    path = catalogue_path(lesson)
    text = render(merged(lesson))
    if path.exists() and path.read_bytes() == text:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text)
    return True
