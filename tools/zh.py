"""The Chinese edition (中文版): update the catalogues, build notebooks/zh_CN/, check that nothing is stale.

Usage:
    python -m tools.zh extract [LESSON ...]   # update the catalogues: translations/zh_CN/<stem>.po (markdown),
                                              # code/<stem>.po (comments, printed text), lmtie_edu/<part>.po
                                              # (the package's text: kit, shared and the lessons' parts),
                                              # lmtie_edu/worked_answers.po (the solutions' comments)
    python -m tools.zh build [LESSON ...]     # compile lmtie_edu/locale/zh_CN/LC_MESSAGES/lmtie_edu.mo, write
                                              # notebooks/zh_CN/<stem>.ipynb and execute it if its code changed;
                                              # refuses untranslated/fuzzy cells
    python -m tools.zh check [LESSON ...]     # write nothing; exit 1 if a translation is missing or stale,
                                              # or a built lesson / the compiled catalogue is not current

LESSON is an English notebook path (notebooks/01_embedding_lookup.ipynb, or a copy elsewhere with the same
file name) or a lesson's number or stem (01, 01_embedding_lookup); default: every notebooks/NN_*.ipynb.
`make zh` runs extract, then build. The catalogue format and the update rules: tools/i18n/catalogue.py;
what a build changes and keeps: tools/i18n/edition.py; code cells: tools/i18n/code_cells.py; the package's
text: tools/i18n/package.py.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tools.i18n import code_cells, package
from tools.i18n.catalogue import ENGLISH_DIR, REPO, catalogue_path, english_lessons, extract, read_notebook
from tools.i18n.edition import chinese_path, is_current, write
from tools.i18n.errors import TranslationError


def resolve_lesson(name: str) -> Path:
    """An English lesson from a path, a stem or a number; a clear error naming the lessons there are."""
    path = Path(name)
    if path.suffix == ".ipynb":
        if not path.is_file():
            raise TranslationError(f"{name}: no such notebook")
        return path
    matches = [lesson for lesson in english_lessons() if lesson.stem == name or lesson.stem.split("_")[0] == name]
    if len(matches) != 1:
        known = ", ".join(lesson.stem for lesson in english_lessons())
        raise TranslationError(f"{name!r} is not one lesson of {ENGLISH_DIR}; expected a number, a stem or a path "
                               f"among: {known}")
    return matches[0]


def run(command: str, names: list[str]) -> int:
    lessons = [resolve_lesson(name) for name in names] or english_lessons()
    elsewhere = [str(lesson) for lesson in lessons if lesson.resolve().parent != ENGLISH_DIR]
    if command != "check" and elsewhere:
        raise TranslationError(f"{command} works on the lessons in {ENGLISH_DIR} only (it writes their catalogues "
                               f"and Chinese lessons); got {', '.join(elsewhere)}. `check` accepts copies.")
    failures = []
    parts = [part for part in package.parts() if not part.startswith("lesson") or not names
             or any(lesson.stem[:2] == part[-2:] for lesson in lessons)] + [package.WORKED_ANSWERS]
    if command == "extract":
        for part in package.extract(parts):
            print(f"updated translations/zh_CN/lmtie_edu/{part}.po")
    elif command == "build":
        written = package.write_compiled()
        for path in (package.COMPILED, package.WORKED_ANSWERS_COMPILED):
            print(f"{'wrote' if path in written else 'unchanged'} {path.relative_to(REPO)}")
        missing = [problem for part in parts if package.part_catalogue(part).exists()
                   for problem in package.problems(part)]
        if missing:  # a warning: a lesson can be built while the package's text is being translated
            print(f"{len(missing)} entries of the package's text are not translated yet (they stay English; "
                  "`python -m tools.zh check` lists them)", file=sys.stderr)
    else:
        failures += [problem for part in parts for problem in package.problems(part)]
        if not package.is_compiled_current():
            failures.append(f"{package.COMPILED.relative_to(REPO)} or {package.WORKED_ANSWERS_COMPILED.name} is not "
                            "what `python -m tools.zh build` compiles now")
    for lesson in lessons:
        try:
            if command == "extract":
                print(f"{'updated' if extract(lesson) else 'unchanged'} {catalogue_path(lesson).relative_to(REPO)}")
                code = code_cells.extract(lesson, read_notebook(lesson))
                print(f"{'updated' if code else 'unchanged'} {code_cells.catalogue_path(lesson).relative_to(REPO)}")
            elif command == "build":
                print(f"{'wrote' if write(lesson) else 'unchanged'} {chinese_path(lesson).relative_to(REPO)}")
            elif not is_current(lesson):
                state = ("is not what `python -m tools.zh build` writes now (the English lesson or its catalogue "
                         "changed)" if chinese_path(lesson).exists() else "is missing")
                failures.append(f"{lesson.stem}: notebooks/zh_CN/{lesson.name} {state}: run `make zh`")
        except TranslationError as error:
            failures.append(str(error))
    for failure in failures:
        print(failure, file=sys.stderr)
    if command == "check" and not failures:
        print(f"{len(lessons)} Chinese lesson(s) translated and current")
    return 1 if failures else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("command", choices=["extract", "build", "check"])
    parser.add_argument("lessons", nargs="*", help="lesson numbers, stems or English notebook paths (default: all)")
    args = parser.parse_args(argv)
    try:
        return run(args.command, args.lessons)
    except TranslationError as error:
        print(error, file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
