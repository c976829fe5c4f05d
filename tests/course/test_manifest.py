"""course.toml is the one list of the lessons (tools/course.py reads it).

- Every part of a lesson (notebooks in both languages, package and test folders, catalogues, instructor notes in
  both languages) exists for each lesson it names, and nothing of the kind exists for a lesson it does not name.
- No tool, test or make rule lists lessons by itself: a scan of them finds no lesson glob and no list of lesson
  numbers outside tools/course.py (the exceptions below say why they are not lists of the course's lessons).
"""

import re
from pathlib import Path

import pytest

from tools import course
from tools.course import LESSONS, REPO


def _numbered(folder: Path, pattern: str) -> set[str]:
    """The two-digit lesson numbers of the entries of ``folder`` whose names match ``pattern`` (one group)."""
    return {match[1] for path in folder.iterdir() if (match := re.fullmatch(pattern, path.name))}


def test_the_manifest_names_lessons_in_order():
    assert [lesson.number for lesson in LESSONS] == [f"{n:02d}" for n in range(1, len(LESSONS) + 1)]


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda lesson: lesson.stem)
def test_every_part_of_a_named_lesson_exists(lesson):
    missing = [str(path.relative_to(REPO)) for path in lesson.parts() if not path.exists()]
    assert not missing, f"course.toml names lesson {lesson.stem}, but these are missing: {missing}"


@pytest.mark.parametrize(("folder", "pattern"), [
    ("notebooks", r"([0-9]{2})_\w+\.ipynb"),
    ("notebooks/zh_CN", r"([0-9]{2})_\w+\.ipynb"),
    ("lmtie_edu", r"lesson([0-9]{2})"),
    ("tests", r"lesson([0-9]{2})"),
    ("translations/zh_CN", r"([0-9]{2})_\w+\.po"),
    ("translations/zh_CN/code", r"([0-9]{2})_\w+\.po"),
    ("translations/zh_CN/lmtie_edu", r"lesson([0-9]{2})\.po"),
    ("docs/instructor", r"lesson([0-9]{2})\.md"),
    ("docs/zh_CN/instructor", r"lesson([0-9]{2})\.md"),
])
def test_no_lesson_exists_that_the_manifest_does_not_name(folder, pattern):
    found = _numbered(REPO / folder, pattern)
    named = {lesson.number for lesson in LESSONS}
    assert found == named, f"{folder}: lessons {sorted(found - named)} are not in course.toml" if found - named \
        else f"{folder}: course.toml names {sorted(named - found)}, which {folder} lacks"


# A glob or pattern for numbered lessons, or a literal list of lesson numbers.
LESSON_LIST = re.compile(r"""\[0-9\]\[0-9\]_|0\[1-9\]_|\[0-9\]\*\.ipynb|lesson\[0-9\]|\{?["']0[1-9]["'], ["']0[2-9]["']""")
# Files that may match it, and why: the reader itself, this test, tests of the tools that take a path pattern
# from a git tree of another ref (the students' branch, written from a tag whose lessons may differ), and
# recorded measurements (study time clocks, keyed by the lessons that existed at their commit).
NOT_A_LIST_OF_THE_LESSONS = {"tools/course.py", "tests/course/test_manifest.py", "delivery/student_branch.py",
                             "tools/study_time.py"}


def test_no_tool_test_or_make_rule_lists_the_lessons_itself():
    places = [*REPO.glob("tools/**/*.py"), *REPO.glob("delivery/**/*.py"), *REPO.glob("tests/**/*.py"),
              *REPO.glob("delivery/*.mk"), REPO / "Makefile", REPO / "zh.mk",
              *REPO.glob(".github/workflows/*.yml")]
    listing = sorted(str(path.relative_to(REPO)) for path in places
                     if str(path.relative_to(REPO)) not in NOT_A_LIST_OF_THE_LESSONS
                     and LESSON_LIST.search(path.read_text(encoding="utf-8")))
    assert listing == [], f"these list lessons themselves; read tools.course.LESSONS instead: {listing}"


def test_a_malformed_entry_is_refused_with_the_keys_expected(tmp_path):
    manifest = tmp_path / "course.toml"
    manifest.write_text('[[lesson]]\nnumber = "1"\nslug = "x"\npanel = "m:f"\npanel_name = "p"\npanel_settings = 1\n')
    with pytest.raises(SystemExit, match="two digits"):
        course.load(manifest)
    manifest.write_text('[[lesson]]\nnumber = "01"\nslug = "x"\n')
    with pytest.raises(SystemExit, match="malformed .* expected the keys"):
        course.load(manifest)
