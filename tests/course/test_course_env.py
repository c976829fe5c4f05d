"""`python -m tools.course_env lab`: the set-up without make (Windows), and the install `make lab` runs."""

import os
import time
from pathlib import Path

import pytest

from tools import course_env

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("version, refused", [((3, 10, 13), True), ((3, 11, 0), False), ((3, 14, 2), False),
                                              ((3, 15, 0), True)])
def test_the_supported_pythons_are_the_makefiles(version, refused):
    problem = course_env.python_problem(version)
    assert (problem is not None) == refused
    if refused:
        assert "needs Python 3.11–3.14" in problem and ".".join(map(str, version)) in problem
    makefile = (REPO / "Makefile").read_text()
    assert "PY_OK := import sys; sys.exit(not (3, 11) <= sys.version_info[:2] <= (3, 14))" in makefile


def test_windows_and_posix_venvs_are_found():
    assert course_env.venv_python(Path("v"), windows=True) == Path("v/Scripts/python.exe")
    assert course_env.venv_python(Path("v"), windows=False) == Path("v/bin/python")


def test_torch_cpu_build_is_installed_first_and_alone():
    steps = [" ".join(step[1:]) for step in course_env.install_steps(Path("py"))]
    torch = steps.index("-m pip install --quiet --no-deps -r requirements-torch-cpu.txt")
    assert torch < steps.index("-m pip install --quiet -r requirements.txt")
    assert "-m delivery.lean_server" in steps and "-m delivery.quiet_lab" in steps


def test_make_lab_installs_through_it():
    recipe = (REPO / "Makefile").read_text().split("$(LAB_STAMP):", 1)[1].split("\n\n", 1)[0]
    assert "-m tools.course_env install --venv $(VENV)" in recipe
    assert "pip install" not in recipe  # the steps live in one place


def test_a_requirements_change_after_the_install_reinstalls(tmp_path):
    venv = tmp_path / "venv"
    venv.mkdir()
    assert not course_env.up_to_date(venv)
    (venv / course_env.STAMP).touch()
    assert course_env.up_to_date(venv)
    later = time.time() + 60
    changed = tmp_path / "repo"
    changed.mkdir()
    for name in course_env.REQUIREMENT_FILES:
        (changed / name).write_text("x")
    os.utime(changed / "requirements.txt", (later, later))
    assert not course_env.up_to_date(venv, repo=changed)


def test_dry_run_prints_the_steps_and_installs_nothing(tmp_path, capsys):
    assert course_env.main(["install", "--dry-run", "--venv", str(tmp_path / "v")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == len(course_env.install_steps(Path("x"))) and "requirements-torch-cpu.txt" in lines[1]
    assert not (tmp_path / "v").exists()
