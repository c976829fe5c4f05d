"""Add a lesson to the course: ``python -m tools.new_lesson 10 slug "Title" --title-zh "标题"``.

Writes the skeleton of lesson NN from tools/lesson_template/ — every part a lesson has, each working, on the
smallest example of the course's subject (a tied embedding and head: one predict-first question per idea, a
panel, one exercise with a named mistake), so that the whole suite passes before the lesson's own content goes in:

- its ``course.toml`` entry, the notebook ``notebooks/NN_slug.ipynb`` (stamped for Colab and Binder, executed),
  ``lmtie_edu/lessonNN/`` (figures, questions, exercises, solutions), ``tests/lessonNN/``, the instructor notes
  ``docs/instructor/lessonNN.md`` and ``docs/zh_CN/instructor/lessonNN.md``;
- its rows in the lesson tables of README.md, README.zh-CN.md, docs/instructor.md and docs/zh_CN/instructor.md
  (study times from ``tools.study_time``), and a link to it in the previous lesson's Next section (both
  languages: the previous lesson's prose may need a word about it, said at the end);
- its three Chinese catalogues, filled from the template's Chinese (tools/lesson_template/zh.tmpl), then the Chinese
  lesson built and executed (``tools.zh``).

The number must be the next one; nothing of the lesson may exist yet. The files are listed once written; each
later step (a ``python -m tools...`` command) is printed as it runs, and a failed one says what to do.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path
from string import Template

import nbformat

from tools.course import LESSONS, MANIFEST, NUMBER, REPO, SLUG, Lesson
from tools.i18n import pofile

TEMPLATES = Path(__file__).resolve().parent / "lesson_template"
BLOCK = re.compile(r"^%% (markdown|code)(.*)$", re.MULTILINE)
FILES = {  # template -> where it goes ({number}: the lesson's number)
    "package__init__.py.tmpl": "lmtie_edu/lesson{number}/__init__.py",
    "package_figures.py.tmpl": "lmtie_edu/lesson{number}/figures.py",
    "package_questions.py.tmpl": "lmtie_edu/lesson{number}/questions.py",
    "package_exercises.py.tmpl": "lmtie_edu/lesson{number}/exercises.py",
    "package_solutions.py.tmpl": "lmtie_edu/lesson{number}/solutions.py",
    "tests__init__.py.tmpl": "tests/lesson{number}/__init__.py",
    "tests_wrong_answers.py.tmpl": "tests/lesson{number}/wrong_answers.py",
    "tests_test_questions.py.tmpl": "tests/lesson{number}/test_questions.py",
    "instructor.md.tmpl": "docs/instructor/lesson{number}.md",
    "instructor.zh_CN.md.tmpl": "docs/zh_CN/instructor/lesson{number}.md",
}
# The row of a lesson in each lesson table, and (after the tables) the link lists of the instructor guides.
ROWS = {
    "README.md": "| {number} | [`{stem}`](notebooks/{stem}.ipynb) | {title} | 0 min | 0 min |",
    "README.zh-CN.md": "| {number} | [`{stem}`](notebooks/zh_CN/{stem}.ipynb) | {title_zh} | 0 分钟 | 0 分钟 |",
    "docs/instructor.md": "| {number} | [{title}](../notebooks/{stem}.ipynb) | 0 min | 0 min | core: the whole lesson |",
}
# The Chinese guide's table is not one tools.study_time writes: its row gets the estimate when it is known.
ZH_GUIDE = "docs/zh_CN/instructor.md"
ZH_GUIDE_ROW = "| {number} | [{title_zh}](../../notebooks/zh_CN/{stem}.ipynb) | {minutes} 分钟 | 0 分钟 | 核心：整节课 |"
ZH_GUIDE_NOTES = ("](instructor/lesson{previous}.md)", "- [第 {number} 课 — {title_zh}](instructor/lesson{number}.md)")
LINKS = {  # a file's list of instructor notes: (the previous lesson's entry, the new one's)
    "docs/instructor.md": ("[{previous}](instructor/lesson{previous}.md)", " · [{number}](instructor/lesson{number}.md)"),
    "docs/zh_CN/instructor.md": ("[{previous}](../instructor/lesson{previous}.md)",
                                 " · [{number}](../instructor/lesson{number}.md)"),
}
NEXT_EN = "\n\n[Lesson {number} — {title}]({stem}.ipynb) follows."
NEXT_ZH = "\n\n接下来是[第 {number} 课 — {title_zh}]({stem}.ipynb)。"


def render(name: str, values: dict) -> str:
    return Template((TEMPLATES / name).read_text(encoding="utf-8")).substitute(values)


def notebook(values: dict, like: Path):
    """The template's cells as an unexecuted notebook, with the metadata of the lesson ``like``."""
    text = render("lesson.ipynb.tmpl", values)
    heads = list(BLOCK.finditer(text))
    nb = nbformat.v4.new_notebook(metadata={key: value for key, value in nbformat.read(like, as_version=4).metadata.items()
                                            if key in ("kernelspec", "language_info")})
    for index, head in enumerate(heads):
        end = heads[index + 1].start() if index + 1 < len(heads) else len(text)
        source = text[head.end() + 1:end].rstrip("\n")
        factory = nbformat.v4.new_code_cell if head[1] == "code" else nbformat.v4.new_markdown_cell
        cell = factory(source, id=f"cell-{index}")
        if head[2].split():
            cell.metadata["tags"] = head[2].split()
        nb.cells.append(cell)
    return nb


def insert_after(path: Path, anchor: str, line: str) -> None:
    """Insert ``line`` after the first line of ``path`` that contains ``anchor``; a clear error if none does."""
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    found = next((i for i, text in enumerate(lines) if anchor in text), None)
    if found is None:
        raise SystemExit(f"{path.relative_to(REPO)} has no line with {anchor!r}: add the lesson's row by hand")
    lines.insert(found + 1, line + "\n")
    path.write_text("".join(lines), encoding="utf-8")


def link_from_previous(previous: Lesson, values: dict) -> tuple[str, str]:
    """Add the new lesson's link to the previous lesson's Next cell; return the cell's new text and what its
    Chinese translation becomes (read before the catalogue is updated)."""
    nb = nbformat.read(previous.notebook, as_version=4)
    before = nb.cells[-1].source
    nb.cells[-1].source = before + NEXT_EN.format(**values)
    nbformat.write(nb, previous.notebook)
    catalogue = pofile.read_catalogue(REPO / "translations" / "zh_CN" / f"{previous.stem}.po")
    return nb.cells[-1].source, catalogue[before].string + NEXT_ZH.format(**values)


def translate(path: Path, chinese) -> list[str]:
    """Give each untranslated or fuzzy message of the catalogue ``path`` ``chinese(message)`` (None: none known);
    return the messages left without one."""
    catalogue = pofile.read_catalogue(path)
    missing = []
    for message in catalogue:
        if message.id and (not message.string or message.fuzzy):
            text = chinese(message)
            if text is None:
                missing.append(message.id)
                continue
            message.string, message.previous_id = text, []
            message.flags.discard("fuzzy")
    path.write_bytes(pofile.render(catalogue))
    return missing


def fill_chinese(values: dict, previous: Lesson, next_cell: tuple[str, str]) -> None:
    """The new lesson's catalogues from the template's Chinese; the previous Next cell's translation with the link."""
    stem, number = values["stem"], values["number"]
    zh = REPO / "translations" / "zh_CN"
    # The course's own translation of a text it already has (the Colab cell, "tied", "head", ...: a text two parts
    # of the package share must keep one translation), then the template's Chinese for the skeleton's own text.
    chinese = {message.id: message.string for path in sorted(zh.rglob("*.po")) if stem not in path.name
               for message in pofile.read_catalogue(path) if message.id and message.string and not message.fuzzy}
    text = render("zh.tmpl", values)
    pairs = re.findall(r"^%% en\n(.*?)\n%% zh\n(.*?)(?=\n%% en\n|\Z)", text, re.MULTILINE | re.DOTALL)
    chinese.update({english: zh_text.rstrip("\n") for english, zh_text in pairs if english not in chinese})
    missing = []
    for path in (zh / f"{stem}.po", zh / "code" / f"{stem}.po", zh / "lmtie_edu" / f"lesson{number}.po",
                 zh / "lmtie_edu" / "worked_answers.po"):
        missing += translate(path, lambda message: chinese.get(message.id))
    if missing:
        raise SystemExit(f"tools/lesson_template/zh.tmpl has no Chinese for: {missing}")
    english, chinese_next = next_cell
    translate(zh / f"{previous.stem}.po", lambda message: chinese_next if message.id == english else None)


def run(*command: str) -> None:
    print("$ python", " ".join(command), flush=True)
    if subprocess.run([sys.executable, *command], cwd=REPO).returncode:
        raise SystemExit(f"`python {' '.join(command)}` failed (its message is above). The lesson's files are written "
                         "(listed above): fix the cause and run this step and the ones after it by hand "
                         "(tools/new_lesson.py lists them), or delete the files and start again.")


def new_lesson(number: str, slug: str, title: str, title_zh: str) -> list[Path]:
    """Write lesson ``number`` and return the files written or changed."""
    expected = f"{len(LESSONS) + 1:02d}"
    if not NUMBER.fullmatch(number) or number != expected:
        raise SystemExit(f"the new lesson's number must be {expected!r} (the course has {len(LESSONS)}); got {number!r}")
    if not SLUG.fullmatch(slug):
        raise SystemExit(f"the slug must be lower-case words joined by _, like 'tied_transformer'; got {slug!r}")
    for name, value in (("title", title), ("--title-zh", title_zh)):
        if not value.strip() or "\n" in value or "|" in value:
            raise SystemExit(f"{name} must be one line of text without '|'; got {value!r}")
    from lmtie_edu import __version__

    previous = LESSONS[-1]
    lesson = Lesson(number=number, slug=slug, panel=f"lmtie_edu.lesson{number}.figures:stored_numbers_panel",
                    panel_name=f"lesson {number} panel: tie toggle", panel_settings=1)
    existing = [str(path.relative_to(REPO)) for path in lesson.parts() if path.exists()]
    if existing:
        raise SystemExit(f"lesson {number} exists in part already: {existing}")
    values = {"number": number, "slug": slug, "stem": lesson.stem, "title": title, "title_zh": title_zh,
              "version": __version__, "previous": previous.number,
              "next_text": f"This is the last lesson of the course. Back to the beginning: "
                           f"[Lesson 01]({LESSONS[0].stem}.ipynb)."}
    written = []
    for template, target in FILES.items():
        path = REPO / target.format(number=number)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(render(template, values), encoding="utf-8")
        written.append(path)
    nbformat.write(notebook(values, previous.notebook), lesson.notebook)
    with MANIFEST.open("a", encoding="utf-8") as manifest:
        manifest.write(f'\n[[lesson]]\nnumber = "{number}"\nslug = "{slug}"\npanel = "{lesson.panel}"\n'
                       f'panel_name = "{lesson.panel_name}"\npanel_settings = {lesson.panel_settings}\n')
    for name, row in ROWS.items():
        insert_after(REPO / name, f"{previous.stem}.ipynb)", row.format(**values))
    for name, (anchor, link) in LINKS.items():
        path, anchor = REPO / name, anchor.format(**values)
        text = path.read_text(encoding="utf-8")
        if anchor not in text:
            raise SystemExit(f"{name} has no {anchor!r} to add lesson {number}'s notes after: add it by hand")
        path.write_text(text.replace(anchor, anchor + link.format(**values), 1), encoding="utf-8")
    next_cell = link_from_previous(previous, values)
    written += [lesson.notebook, MANIFEST, previous.notebook, *(REPO / name for name in ROWS), REPO / ZH_GUIDE]
    print("written:", ", ".join(str(path.relative_to(REPO)) for path in written), flush=True)
    run("-m", "delivery.colab", str(lesson.notebook.relative_to(REPO)))
    run("-m", "tools.execute_notebooks", str(lesson.notebook.relative_to(REPO)))
    run("-m", "tools.study_time", "--write")
    values["minutes"] = set_frame_minutes(lesson.notebook)
    insert_after(REPO / ZH_GUIDE, f"{previous.stem}.ipynb)", ZH_GUIDE_ROW.format(**values))
    insert_after(REPO / ZH_GUIDE, ZH_GUIDE_NOTES[0].format(**values), ZH_GUIDE_NOTES[1].format(**values))
    run("-m", "tools.zh", "extract", number, previous.number)
    fill_chinese(values, previous, next_cell)
    run("-m", "tools.zh", "build", number, previous.number)
    return written


def set_frame_minutes(path: Path) -> int:
    """Write the opening cell's study time, as ``tools.study_time`` estimates it; return the minutes."""
    from tools.study_time import FRAME, estimate

    nb = nbformat.read(path, as_version=4)
    first = next(cell for cell in nb.cells if cell.cell_type == "markdown")
    found = FRAME.search(first.source)
    minutes = estimate(path)["core"]
    first.source = first.source[:found.start(1)] + str(minutes) + first.source[found.end(1):]
    nbformat.write(nb, path)
    return minutes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("number", help=f"two digits, the next lesson's ({len(LESSONS) + 1:02d})")
    parser.add_argument("slug", help="the notebook's name after the number: lower-case words joined by _")
    parser.add_argument("title", help="the English title")
    parser.add_argument("--title-zh", required=True, help="the Chinese title")
    args = parser.parse_args(argv)
    new_lesson(args.number, args.slug, args.title, args.title_zh)
    print(f"Lesson {args.number} is in place and runs. Next: write its content (docs/authoring.md); the Next "
          f"section of lesson {LESSONS[-1].number} now links to it — say in its prose what the new lesson adds.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
