"""The course's environment in one command, on any OS, with nothing but Python: ``python -m tools.course_env lab``.

``make lab`` runs the same install (its recipe calls ``install`` here), so a Windows learner without ``make``
gets exactly what a Linux or macOS learner gets:

1. refuse a Python outside 3.11–3.14 (the pins' range, pyproject.toml) in one line;
2. create ``.venv`` with this Python if it is missing (``.venv\\Scripts\\python.exe`` on Windows);
3. unless ``.venv`` was installed after the last change to a requirements file: torch's CPU build first
   (``requirements-torch-cpu.txt``, ``--no-deps``: on Linux and Windows PyPI's torch is a CUDA build), then
   ``requirements.txt`` (the exact pins and this package, editable), then a quieter, leaner JupyterLab
   (delivery/quiet_lab.py, delivery/lean_server.py) and matplotlib's font cache;
4. ``lab`` only: JupyterLab on ``notebooks/`` (open the URL it prints).

    python -m tools.course_env lab                 # Windows: py -3.12 -m tools.course_env lab
    python -m tools.course_env install [--venv DIR] [--dry-run]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import venv
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SUPPORTED = ((3, 11), (3, 14))
REQUIREMENT_FILES = ("requirements-torch-cpu.txt", "requirements.txt", "constraints.txt", "pyproject.toml")
STAMP = ".lab-installed"


def venv_python(folder: Path, windows: bool = os.name == "nt") -> Path:
    return folder / ("Scripts/python.exe" if windows else "bin/python")


def python_problem(version: tuple[int, ...] = tuple(sys.version_info[:3])) -> str | None:
    """Why this Python cannot run the course, or None."""
    low, high = SUPPORTED
    if low <= tuple(version[:2]) <= high:
        return None
    return (f"lmtie_edu needs Python {low[0]}.{low[1]}–{high[0]}.{high[1]}; this is "
            f"{'.'.join(map(str, version))}: run again with another Python (Windows: py -3.12 -m tools.course_env lab)")


def up_to_date(folder: Path, repo: Path = REPO) -> bool:
    """The venv was installed after the last change to any requirements file."""
    stamp = folder / STAMP
    return stamp.is_file() and all(stamp.stat().st_mtime >= (repo / name).stat().st_mtime
                                   for name in REQUIREMENT_FILES)


def install_steps(python: Path) -> list[list[str]]:
    """The commands that install the course into the venv whose interpreter is ``python``."""
    py = str(python)
    return [
        [py, "-m", "pip", "install", "--quiet", "--upgrade", "pip"],
        [py, "-m", "pip", "install", "--quiet", "--no-deps", "-r", "requirements-torch-cpu.txt"],  # CPU torch first
        [py, "-m", "pip", "install", "--quiet", "-r", "requirements.txt"],
        [py, "-m", "delivery.lean_server"],
        [py, "-m", "delivery.quiet_lab"],
        [py, "-c", "import matplotlib.pyplot"],  # the font cache, built now rather than in a lesson
    ]


def lab_command(python: Path, port: int) -> list[str]:
    command = [str(python), "-m", "jupyterlab", "--notebook-dir=notebooks", f"--port={port}", "--no-browser",
               "--ServerApp.port_retries=50"]
    if hasattr(os, "getuid") and os.getuid() == 0:
        command.append("--allow-root")
    return command


def install(folder: Path, dry_run: bool = False) -> Path:
    """Create and install the venv at ``folder`` (relative to the repository) as needed; its interpreter."""
    folder = folder if folder.is_absolute() else REPO / folder
    python = venv_python(folder)
    if dry_run:
        for step in install_steps(python):
            print(" ".join(step))
        return python
    if not python.exists():
        print(f"creating {folder} with Python {sys.version.split()[0]}", flush=True)
        venv.create(folder, with_pip=True)
    if up_to_date(folder):
        return python
    for step in install_steps(python):
        print("+", " ".join(step[1:]), flush=True)
        subprocess.run(step, cwd=REPO, check=True, env={**os.environ,
                                                         "MPLCONFIGDIR": str(REPO / "build" / "matplotlib")})
    (folder / STAMP).touch()
    return python


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=("install", "lab"))
    parser.add_argument("--venv", type=Path, default=Path(".venv"), help="where the environment lives")
    parser.add_argument("--port", type=int, default=8888)
    parser.add_argument("--dry-run", action="store_true", help="print the install commands, run nothing")
    args = parser.parse_args(argv)
    problem = python_problem()
    if problem:
        print(problem)
        return 1
    python = install(args.venv, dry_run=args.dry_run)
    if args.command == "lab" and not args.dry_run:
        print("Starting JupyterLab; open the URL with the token printed below.", flush=True)
        return subprocess.run(lab_command(python, args.port), cwd=REPO,
                              env={**os.environ, "MPLCONFIGDIR": str(REPO / "build" / "matplotlib")}).returncode
    return 0


if __name__ == "__main__":
    sys.exit(main())
