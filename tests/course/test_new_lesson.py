"""tools/new_lesson.py: a copy of the course with one more lesson written by the command passes the lesson checks.

The command runs in a scratch copy of this checkout (its files as git sees them); the copy's package is imported
from the copy (PYTHONPATH). Then, in the copy: the manifest's tests, every course test of the new lesson and of
the previous one (whose Next section changed), the new lesson's own tests, strict nbval over both of its editions,
the study-time check and ruff. About a minute and a half on two cores.
"""

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tools import new_lesson
from tools.course import LESSONS, REPO

NUMBER = f"{len(LESSONS) + 1:02d}"
SLUG = "tie_skeleton"
STEM = f"{NUMBER}_{SLUG}"
PREVIOUS = LESSONS[-1]


def copy_checkout(target: Path) -> None:
    files = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=REPO,
                           check=True, capture_output=True, text=True).stdout.split("\0")
    for name in filter(None, files):
        if (REPO / name).is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            (target / name).write_bytes((REPO / name).read_bytes())


@pytest.fixture(scope="module")
def course(tmp_path_factory) -> tuple[Path, dict]:
    copy = tmp_path_factory.mktemp("course")
    copy_checkout(copy)
    env = {**os.environ, "PYTHONPATH": str(copy)}
    done = subprocess.run([sys.executable, "-m", "tools.new_lesson", NUMBER, SLUG, "The tie in one line",
                           "--title-zh", "一行代码的绑定"], cwd=copy, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return copy, env


def run(course, *command: str) -> None:
    copy, env = course
    done = subprocess.run([sys.executable, *command], cwd=copy, env=env, capture_output=True, text=True)
    assert done.returncode == 0, f"{' '.join(command)} failed:\n{done.stdout[-4000:]}\n{done.stderr[-2000:]}"


def test_the_skeleton_has_every_part_of_a_lesson(course):
    copy, _ = course
    lesson = next(entry for entry in tomllib.loads((copy / "course.toml").read_text())["lesson"]
                  if entry["number"] == NUMBER)
    assert lesson["slug"] == SLUG
    for part in (f"notebooks/{STEM}.ipynb", f"notebooks/zh_CN/{STEM}.ipynb", f"lmtie_edu/lesson{NUMBER}/exercises.py",
                 f"tests/lesson{NUMBER}/wrong_answers.py", f"translations/zh_CN/{STEM}.po",
                 f"docs/instructor/lesson{NUMBER}.md", f"docs/zh_CN/instructor/lesson{NUMBER}.md"):
        assert (copy / part).is_file(), part
    for table in ("README.md", "README.zh-CN.md", "docs/instructor.md", "docs/zh_CN/instructor.md"):
        assert f"{STEM}.ipynb)" in (copy / table).read_text(encoding="utf-8"), table
    assert f"]({STEM}.ipynb)" in (copy / "notebooks" / f"{PREVIOUS.stem}.ipynb").read_text(encoding="utf-8")


def test_the_lesson_checks_pass_on_the_skeleton(course):
    lessons = f"{STEM} or {PREVIOUS.stem} or lesson{NUMBER} or stored_numbers or panel_factory"
    run(course, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-k", lessons, "tests/course/test_hygiene.py",
        "tests/course/test_exercises.py", "tests/course/test_learner_path.py", "tests/course/test_translations.py",
        "tests/course/test_chinese_edition.py", "tests/shared/test_answer_process.py", "tests/platform/test_bench.py",
        f"tests/lesson{NUMBER}")
    run(course, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/course/test_manifest.py",
        "tests/shared/test_cell_order.py::test_every_lesson_knows_where_its_names_are_made")
    run(course, "-m", "tools.study_time", "--check")
    run(course, "-m", "ruff", "check", "lmtie_edu", "tests", "notebooks")


def test_both_editions_pass_strict_nbval(course):
    run(course, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--nbval", "--nbval-current-env",
        "--nbval-sanitize-with", "tests/nbval_sanitize.cfg", f"notebooks/{STEM}.ipynb", f"notebooks/zh_CN/{STEM}.ipynb")


def test_the_command_refuses_a_number_out_of_turn_and_a_bad_slug():
    with pytest.raises(SystemExit, match=f"must be '{NUMBER}'"):
        new_lesson.new_lesson("42", SLUG, "Title", "标题")
    with pytest.raises(SystemExit, match="lower-case words"):
        new_lesson.new_lesson(NUMBER, "Tie-Skeleton", "Title", "标题")
    with pytest.raises(SystemExit, match="one line of text"):
        new_lesson.new_lesson(NUMBER, SLUG, "Title | two", "标题")
