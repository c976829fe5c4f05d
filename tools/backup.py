"""Before a tool overwrites a notebook, keep the version it replaces when that version holds work.

A notebook holds work when it differs from the repository's committed copy (an edit, or outputs a learner
produced in `make lab`), or when it is not tracked at all. :func:`keep_before_overwrite` copies such a file
to ``build/backups/<time>/<its path>`` and returns that path, so the tool can say where it went; a file that
equals its committed copy (nothing to lose) is not copied.
"""

from __future__ import annotations

import shutil
import subprocess
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BACKUPS = ROOT / "build" / "backups"
_STAMP = time.strftime("%Y%m%d-%H%M%S")  # one folder per run of a tool


def _matches_committed(path: Path) -> bool:
    try:
        relative = path.resolve().relative_to(ROOT)
        committed = subprocess.run(["git", "show", f"HEAD:{relative.as_posix()}"], cwd=ROOT,
                                   capture_output=True, check=True).stdout
    except (ValueError, OSError, subprocess.CalledProcessError):
        return False  # outside the checkout, untracked, or no git: treat it as work
    return committed == path.read_bytes()


def keep_before_overwrite(path: Path) -> Path | None:
    """Copy ``path`` aside if overwriting it would lose work; return where it went (None: nothing kept)."""
    path = Path(path)
    if not path.exists() or _matches_committed(path):
        return None
    try:
        relative = path.resolve().relative_to(ROOT)
    except ValueError:
        relative = Path(path.name)
    target = BACKUPS / _STAMP / relative
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(path, target)
    return target


def say_kept(path: Path, kept: Path | None) -> None:
    if kept is not None:
        print(f"{path}: your version (it differed from the committed one) is kept in {kept}")
