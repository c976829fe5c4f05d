"""What the tests of the branches written for classes share: a scratch clone of this repository, and git."""

import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
AUTHOR = {"GIT_AUTHOR_NAME": "Test", "GIT_AUTHOR_EMAIL": "test@example.invalid",
          "GIT_COMMITTER_NAME": "Test", "GIT_COMMITTER_EMAIL": "test@example.invalid"}


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True).stdout


@pytest.fixture
def clone(tmp_path) -> Path:
    """A clone of this repository with this checkout's HEAD as the branch `course`."""
    target = tmp_path / "course"
    git(tmp_path, "clone", "-q", "--no-checkout", str(REPO), str(target))
    git(target, "fetch", "-q", str(REPO), "HEAD:refs/heads/course")
    return target


def commit_change(clone: Path, work: Path, changes: dict[str, str]) -> None:
    """Commit ``changes`` ({path: new text}) on top of the clone's branch `course`, through a checkout in ``work``."""
    if not work.exists():
        git(work.parent, "clone", "-q", "--branch", "course", str(clone), str(work))
    for path, text in changes.items():
        (work / path).parent.mkdir(parents=True, exist_ok=True)
        (work / path).write_text(text, encoding="utf-8")
    git(work, "add", *changes)
    git(work, "-c", "user.name=T", "-c", "user.email=t@example.invalid", "commit", "-qm", "change")
    git(work, "push", "-q", "origin", "course")
