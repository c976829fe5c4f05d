"""The course's lessons, read from ``course.toml`` (the one list of them): ``from tools.course import LESSONS``.

Each :class:`Lesson` knows where its parts live — the English and Chinese notebooks, the package and test
folders, the catalogues, the instructor notes — and its panel's benchmark settings. ``python -m tools.course``
prints the notebook paths (the make rules that run over the lessons use it).
"""

from __future__ import annotations

import argparse
import re
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MANIFEST = REPO / "course.toml"
NUMBER, SLUG = re.compile(r"[0-9]{2}"), re.compile(r"[a-z][a-z0-9_]*")


@dataclass(frozen=True)
class Lesson:
    number: str             # "01"
    slug: str               # "embedding_lookup"
    panel: str              # "module:factory" of its tie-toggle panel
    panel_name: str         # what the benchmark calls it
    panel_settings: int     # control settings tools.learner_path walks in the solved lesson
    panel_budget: float | None = None  # seconds, for a panel whose toggle recomputes; None: redraw-only
    extra_benchmark: str | None = None  # "module:function" returning one more Benchmark of this lesson's

    @property
    def stem(self) -> str:
        return f"{self.number}_{self.slug}"

    @property
    def notebook(self) -> Path:
        return REPO / "notebooks" / f"{self.stem}.ipynb"

    @property
    def chinese_notebook(self) -> Path:
        return REPO / "notebooks" / "zh_CN" / f"{self.stem}.ipynb"

    @property
    def package(self) -> str:
        return f"lmtie_edu.lesson{self.number}"

    @property
    def package_dir(self) -> Path:
        return REPO / "lmtie_edu" / f"lesson{self.number}"

    @property
    def tests_dir(self) -> Path:
        return REPO / "tests" / f"lesson{self.number}"

    def parts(self) -> list[Path]:
        """Every file or folder that belongs to this lesson and to no other."""
        zh = REPO / "translations" / "zh_CN"
        return [self.notebook, self.chinese_notebook, self.package_dir, self.tests_dir,
                zh / f"{self.stem}.po", zh / "code" / f"{self.stem}.po", zh / "lmtie_edu" / f"lesson{self.number}.po",
                REPO / "docs" / "instructor" / f"lesson{self.number}.md",
                REPO / "docs" / "zh_CN" / "instructor" / f"lesson{self.number}.md"]


def load(path: Path = MANIFEST) -> list[Lesson]:
    """The lessons ``path`` lists, in order; a clear error for an entry that is malformed."""
    entries = tomllib.loads(path.read_text(encoding="utf-8")).get("lesson", [])
    lessons = []
    for entry in entries:
        try:
            lesson = Lesson(**entry)
        except TypeError as error:
            raise SystemExit(f"{path.name}: lesson entry {entry} is malformed ({error}); expected the keys "
                             f"{list(Lesson.__dataclass_fields__)}") from None
        if not (NUMBER.fullmatch(lesson.number) and SLUG.fullmatch(lesson.slug)):
            raise SystemExit(f"{path.name}: lesson {lesson.number!r} {lesson.slug!r}: the number must be two digits "
                             f"and the slug lower-case words joined by _")
        lessons.append(lesson)
    numbers = [lesson.number for lesson in lessons]
    if numbers != sorted(set(numbers)):
        raise SystemExit(f"{path.name}: lesson numbers must be unique and in order; got {numbers}")
    return lessons


LESSONS = load()


def by_number(number: str) -> Lesson:
    found = [lesson for lesson in LESSONS if lesson.number == number]
    if not found:
        raise SystemExit(f"no lesson {number!r} in course.toml; the lessons are {[x.number for x in LESSONS]}")
    return found[0]


def notebooks(chinese: bool = False) -> list[Path]:
    return [lesson.chinese_notebook if chinese else lesson.notebook for lesson in LESSONS]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chinese", action="store_true", help="the Chinese notebooks instead")
    args = parser.parse_args(argv)
    print(" ".join(str(path.relative_to(REPO)) for path in notebooks(args.chinese)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
