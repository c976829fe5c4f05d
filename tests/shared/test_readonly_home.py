"""A read-only home or checkout: each lesson's first cell writes nothing to stderr (issue 24).

matplotlib warns "... is not a writable directory" when it imports with nowhere to write its config and
font cache; importing :mod:`lmtie_edu.shared.notebook` or :mod:`lmtie_edu.kit.plotting` first points
MPLCONFIGDIR to a directory of the user's own in the temporary folder. Run in fresh interpreters.
"""

import os
import subprocess
import sys
import tempfile

import pytest

from lmtie_edu.shared.notebook import use_writable_matplotlib_dir

SETUP_FIRST = "from lmtie_edu.shared.notebook import setup_lesson\nsetup_lesson(seed=0)"  # lessons 04-07
PLOTTING_FIRST = ("import torch\nfrom lmtie_edu.kit.plotting import show\n"  # lessons 01-03
                  "from lmtie_edu.shared.notebook import setup_lesson\nsetup_lesson(seed=0)")
DRAW = "\nfrom matplotlib.figure import Figure\nFigure().savefig(__import__('io').BytesIO())\nimport os\n" \
       "print(os.environ['MPLCONFIGDIR'])"


@pytest.fixture(scope="module")
def blocked(tmp_path_factory):
    """A file where matplotlib wants a directory (mkdir fails, as in a read-only home, even for root),
    and a temporary folder of the test's own."""
    root = tmp_path_factory.mktemp("readonly")
    (root / "file").write_text("not a directory")
    (root / "tmp").mkdir()
    return root


def _run(code, blocked, **overrides):
    env = {**os.environ, "TMPDIR": str(blocked / "tmp")}
    for name, value in overrides.items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value.replace("BLOCKED", str(blocked / "file"))
    return subprocess.run([sys.executable, "-c", code + DRAW], env=env, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("first_cell, env", [
    (PLOTTING_FIRST, {"MPLCONFIGDIR": "BLOCKED/matplotlib"}),
    (SETUP_FIRST, {"MPLCONFIGDIR": None, "HOME": "BLOCKED", "XDG_CONFIG_HOME": None, "XDG_CACHE_HOME": None}),
], ids=["plotting first, unwritable MPLCONFIGDIR", "setup first, read-only home"])
def test_an_unwritable_matplotlib_dir_writes_nothing_to_stderr(blocked, first_cell, env):
    done = _run(first_cell, blocked, **env)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert done.stdout.strip() == str(blocked / "tmp" / f"lmtie-matplotlib-{os.getuid()}")


def test_without_the_fix_matplotlib_does_warn(blocked):
    """The probe itself: plain matplotlib in the same environment writes the warning."""
    done = _run("", blocked, MPLCONFIGDIR="BLOCKED/matplotlib")
    assert "writable" in done.stderr or "mkdir -p failed" in done.stderr


def test_the_choice_in_process(blocked, tmp_path, monkeypatch):
    """Before matplotlib's import (simulated): a writable MPLCONFIGDIR stays, an unwritable one is replaced
    by the user's own temporary directory; after it, nothing changes (matplotlib read the setting once)."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.delitem(sys.modules, "matplotlib")
    monkeypatch.setenv("MPLCONFIGDIR", str(blocked / "tmp"))
    use_writable_matplotlib_dir()
    assert os.environ["MPLCONFIGDIR"] == str(blocked / "tmp")
    monkeypatch.setenv("MPLCONFIGDIR", str(blocked / "file" / "matplotlib"))
    use_writable_matplotlib_dir()
    assert os.environ["MPLCONFIGDIR"] == str(tmp_path / f"lmtie-matplotlib-{os.getuid()}")
    monkeypatch.undo()
    monkeypatch.setenv("MPLCONFIGDIR", str(blocked / "file" / "matplotlib"))
    use_writable_matplotlib_dir()  # matplotlib is imported: too late to matter, so left as it is
    assert os.environ["MPLCONFIGDIR"] == str(blocked / "file" / "matplotlib")
