"""Binder's environment branch (delivery/binder_branch.py) and the launch link that pulls the lessons into it."""

from urllib.parse import parse_qs, urlsplit

import pytest
import yaml

from delivery import colab
from delivery.binder_branch import branch_for, environment_commit, main, write_branch

from .conftest import AUTHOR, REPO, commit_change, git

URL = "https://github.com/lmtie-edu/lmtie_edu"


def pins(text: str) -> list[str]:
    return [line for line in text.splitlines() if line and not line.startswith(("#", "-"))]


def test_the_branch_holds_the_environment_and_no_lesson(clone):
    assert write_branch("course", "binder-course", repo=clone, author=AUTHOR)
    files = git(clone, "ls-tree", "-r", "--name-only", "binder-course").split()
    assert files == ["LICENSE", "README.md", "binder/constraints.txt", "binder/postBuild", "binder/requirements.txt",
                     "binder/runtime.txt", "delivery/lean_server.py", "delivery/quiet_lab.py"]
    assert "100755 blob" in git(clone, "ls-tree", "binder-course", "binder/postBuild")
    requirements = git(clone, "show", "binder-course:binder/requirements.txt")
    course_pins = pins(git(clone, "show", "course:requirements.txt"))
    package = f"lmtie_edu @ git+{URL}@{environment_commit('course', clone)}"
    assert pins(requirements) == [*course_pins, "notebook==7.6.5", "jupyter-builder==1.3.0", "nbgitpuller==1.3.0",
                                  package]
    assert "--extra-index-url https://download.pytorch.org/whl/cpu" in requirements.splitlines()
    assert git(clone, "show", "binder-course:binder/constraints.txt") == git(clone, "show", "course:constraints.txt")
    post_build = git(clone, "show", "binder-course:binder/postBuild")
    assert "python delivery/quiet_lab.py" in post_build and "python delivery/lean_server.py" in post_build


def test_a_lesson_change_keeps_the_image_and_a_package_change_rebuilds_it(clone, tmp_path):
    first = write_branch("course", "binder-course", repo=clone, author=AUTHOR)
    commit_change(clone, tmp_path / "work", {"notebooks/LICENSE.md": "changed\n"})
    assert write_branch("course", "binder-course", repo=clone, author=AUTHOR) is None  # Binder reuses its image
    commit_change(clone, tmp_path / "work", {"lmtie_edu/shared/new_module.py": "x = 1\n"})
    second = write_branch("course", "binder-course", repo=clone, author=AUTHOR)
    assert git(clone, "rev-parse", f"{second}^").strip() == first
    head = git(clone, "rev-parse", "course").strip()
    assert f"@{head}\n" in git(clone, "show", "binder-course:binder/requirements.txt")


@pytest.mark.parametrize("notebook", ["01_embedding_lookup.ipynb", "zh_CN/01_embedding_lookup.ipynb"])
def test_the_badge_launches_the_environment_branch_and_pulls_the_students_branch(notebook):
    link = urlsplit(colab.binder_link(URL, "v0.2.0", notebook))
    assert (link.netloc, link.path) == ("mybinder.org", "/v2/gh/lmtie-edu/lmtie_edu/binder-v0.2.0")
    pull = parse_qs(link.query)["urlpath"]
    assert len(pull) == 1 and pull[0].startswith("git-pull?")
    assert parse_qs(pull[0].removeprefix("git-pull?")) == {
        "repo": [URL], "branch": ["students/v0.2.0"], "urlpath": [f"lab/tree/lmtie_edu/notebooks/{notebook}"]}


def test_names_and_the_command(clone, monkeypatch, capsys):
    assert branch_for("v0.2.0") == "binder-v0.2.0" and branch_for("refs/heads/main") == "binder-main"
    for key, value in AUTHOR.items():
        monkeypatch.setenv(key, value)
    assert main(["--ref", "course", "--repo", str(clone)]) == 0
    assert "binder-course: now " in capsys.readouterr().out


def test_main_and_each_tag_publish_both_branches():
    for name, ref in (("lessons", "main"), ("release", '"$TAG"')):
        text = (REPO / ".github" / "workflows" / f"{name}.yml").read_text(encoding="utf-8")
        yaml.safe_load(text)
        assert f"python -m delivery.binder_branch --ref {ref}" in text
        assert f"python -m delivery.student_branch --ref {ref}" in text
