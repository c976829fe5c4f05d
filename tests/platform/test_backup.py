"""Tools that overwrite a notebook keep the version they replace when it holds work (tools/backup.py)."""

import shutil
import subprocess
from pathlib import Path

from tools import backup

REPO = Path(__file__).resolve().parents[2]


def test_a_file_with_work_is_kept_and_the_tool_says_where(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(backup, "BACKUPS", tmp_path / "backups")
    scratch = REPO / "build" / "test-backup"
    scratch.mkdir(parents=True, exist_ok=True)
    mine = scratch / "my_lesson.ipynb"  # not in the repository: a learner's own work
    mine.write_text('{"cells": ["my edits"]}', encoding="utf-8")
    try:
        kept = backup.keep_before_overwrite(mine)
        assert kept is not None and kept.read_text(encoding="utf-8") == '{"cells": ["my edits"]}'
        backup.say_kept(mine, kept)
        assert f"is kept in {kept}" in capsys.readouterr().out
    finally:
        shutil.rmtree(scratch)


def test_a_file_equal_to_its_committed_copy_is_not_copied(tmp_path, monkeypatch):
    monkeypatch.setattr(backup, "BACKUPS", tmp_path / "backups")
    tracked = subprocess.run(["git", "ls-files", "notebooks"], cwd=REPO, capture_output=True, text=True).stdout
    unchanged = [REPO / f for f in tracked.split() if f.endswith(".ipynb") and subprocess.run(
        ["git", "diff", "--quiet", "HEAD", "--", f], cwd=REPO).returncode == 0]
    assert unchanged, "no committed notebook without local changes to try"
    assert backup.keep_before_overwrite(unchanged[0]) is None
    assert not (tmp_path / "backups").exists()
    assert backup.keep_before_overwrite(tmp_path / "missing.ipynb") is None
