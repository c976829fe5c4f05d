"""The students' branch (delivery/student_branch.py): every lesson, no solutions, a history nbgitpuller can merge."""

import subprocess

import pytest

from delivery import colab
from delivery.student_branch import branch_for, main, write_branch

from .conftest import AUTHOR, REPO, commit_change, git


def test_the_branch_holds_every_lesson_and_nothing_else(clone):
    assert write_branch("course", "students/course", repo=clone, author=AUTHOR)
    files = git(clone, "ls-tree", "-r", "--name-only", "students/course").split()
    lessons = sorted(f for f in git(clone, "ls-tree", "-r", "--name-only", "course", "notebooks").split()
                     if f.endswith(".ipynb"))
    assert len(lessons) >= 18 and sorted(f for f in files if f.endswith(".ipynb")) == lessons
    assert set(files) - set(lessons) == {"README.md", "LICENSE", "notebooks/LICENSE.md"}
    assert not [f for f in files if f.endswith((".py", ".pyc")) or f.startswith(("lmtie_edu/", "tools/", "tests/"))]
    # the solutions' source is nowhere on the branch, not even inside a file
    solution = (REPO / "lmtie_edu" / "lesson01" / "solutions.py").read_text(encoding="utf-8")
    body = next(line for line in solution.splitlines() if line.strip().startswith("return "))
    assert subprocess.run(["git", "grep", "-qF", body.strip(), "students/course"], cwd=clone).returncode == 1
    assert "lmtie_edu" in git(clone, "show", "students/course:README.md")


def test_a_second_run_adds_nothing_and_a_change_adds_one_commit_on_top(clone, tmp_path):
    first = write_branch("course", "students/course", repo=clone, author=AUTHOR)
    assert write_branch("course", "students/course", repo=clone, author=AUTHOR) is None
    commit_change(clone, tmp_path / "work", {"notebooks/LICENSE.md": "changed\n", "tools/new_tool.py": "x = 1\n"})
    second = write_branch("course", "students/course", repo=clone, author=AUTHOR)
    assert git(clone, "rev-parse", f"{second}^").strip() == first  # a fast-forward: nbgitpuller merges it
    assert git(clone, "show", "students/course:notebooks/LICENSE.md") == "changed\n"
    assert "tools/new_tool.py" not in git(clone, "ls-tree", "-r", "--name-only", "students/course")


def test_a_ref_without_lessons_is_refused(clone):
    empty = git(clone, "commit-tree", git(clone, "hash-object", "-t", "tree", "/dev/null").strip(), "-m", "x")
    with pytest.raises(SystemExit, match="has no lessons"):
        write_branch(empty.strip(), "students/empty", repo=clone, author=AUTHOR)


def test_links_and_names_point_at_the_students_branch(capsys):
    assert branch_for("v0.2.0") == "students/v0.2.0" and branch_for("main") == "students/main"
    assert colab.pull_branch("v0.2.0") == "students/v0.2.0"
    assert colab.main(["--ref", "v0.2.0", "--links", "https://hub.example.org/"]) == 0
    links = capsys.readouterr().out.split()
    assert links and all("&branch=students%2Fv0.2.0&" in link for link in links)


def test_the_command_names_the_branch_and_how_to_push(clone, monkeypatch, capsys):
    for key, value in AUTHOR.items():
        monkeypatch.setenv(key, value)
    assert main(["--ref", "course", "--repo", str(clone)]) == 0
    assert "students/course: now " in capsys.readouterr().out
