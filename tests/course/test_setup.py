"""The set-up commands refuse what cannot work, in one line that says why (no pip ResolutionImpossible)."""

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


def fake_python(path: Path, version: str) -> Path:
    """An executable that answers --version like Python `version` and fails any real use (as 3.10 would)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f'#!/bin/sh\n[ "$1" = "--version" ] && echo "Python {version}" && exit 0\nexit 1\n')
    path.chmod(0o755)
    return path


def python_check(**variables) -> subprocess.CompletedProcess:
    args = ["make", "-s", "--no-print-directory", "python-check"] + [f"{k}={v}" for k, v in variables.items()]
    return subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=60)


def test_an_unsupported_python_is_refused_with_the_supported_range(tmp_path):
    old = fake_python(tmp_path / "bin" / "python3.10", "3.10.13")
    done = python_check(PYTHON=old, VENV=tmp_path / "no-venv")
    assert done.returncode != 0
    assert "needs Python 3.11–3.14" in done.stdout and "3.10.13" in done.stdout
    assert not (tmp_path / "no-venv").exists()  # refused before creating anything


def test_a_missing_python_is_named(tmp_path):
    done = python_check(PYTHON=tmp_path / "python-nowhere", VENV=tmp_path / "no-venv")
    assert done.returncode != 0 and "not found" in done.stdout and "3.11–3.14" in done.stdout


def test_a_venv_made_by_an_unsupported_python_is_not_reused(tmp_path):
    fake_python(tmp_path / "venv" / "bin" / "python", "3.10.13")
    done = python_check(VENV=tmp_path / "venv")
    assert done.returncode != 0
    assert "was made by Python 3.10.13" in done.stdout and "make clean-venv" in done.stdout


def test_the_supported_python_passes(tmp_path):
    done = python_check(VENV=tmp_path / "no-venv")  # the python3 running these tests' make
    assert done.returncode == 0, done.stdout + done.stderr


def test_requires_python_matches_the_makefile():
    text = (ROOT / "pyproject.toml").read_text()
    makefile = (ROOT / "Makefile").read_text()
    assert 'requires-python = ">=3.11,<3.15"' in text and 'target-version = "py311"' in text
    assert "SUPPORTED_PYTHON := 3.11–3.14" in makefile and "(3, 11) <= sys.version_info[:2] <= (3, 14)" in makefile
