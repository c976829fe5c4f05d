"""What will Binder build? Ask repo2docker's own code, without Docker.

Copies this checkout (tracked + untracked-but-not-ignored files) to a scratch folder, lets
repo2docker's build packs detect it exactly as ``repo2docker.app.Repo2Docker.build`` does (first build
pack in ``Repo2Docker().buildpacks`` whose ``detect()`` is true), renders the Dockerfile it would build
(``BuildPack.render``) to build/binder/Dockerfile, and checks:

- the Python build pack is picked, with Python >= 3.11 from binder/runtime.txt, and the conda lock it
  installs holds that Python;
- the Dockerfile installs binder/requirements.txt, and that file (with the ``-r``/``-c`` files it
  includes) adds the CPU index for torch and pins torch;
- postBuild runs.

repo2docker is installed into build/r2d-venv the first time (it is not a course dependency).
No Docker daemon is needed, or used: the image itself is not built here.

Usage: python -m tools.binder_check
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
VENV = REPO / "build" / "r2d-venv"
OUT = REPO / "build" / "binder"
CPU_INDEX = "https://download.pytorch.org/whl/cpu"

# Runs inside the repo2docker venv, in the copy of the checkout.
DETECT = r"""
import json, sys
from repo2docker.app import Repo2Docker
from repo2docker import __version__
app = Repo2Docker()
for BP in app.buildpacks:
    bp = BP(base_image=app.base_image)
    bp.platform = app.platform      # what Repo2Docker.build sets before render()
    if bp.detect():
        break
else:
    sys.exit("no build pack detected")
dockerfile = bp.render({"NB_USER": "jovyan", "NB_UID": "1000"})
import os, repo2docker.buildpacks as packs
files = [os.path.join(os.path.dirname(packs.__file__), src) for src in bp.get_build_script_files()]
print(json.dumps({"repo2docker": __version__, "buildpack": type(bp).__name__, "base_image": app.base_image,
                  "python_version": getattr(bp, "python_version", None), "binder_dir": bp.binder_dir,
                  "runtime": [str(x) for x in bp.runtime], "script_files": files, "dockerfile": dockerfile}))
"""


def ensure_repo2docker() -> Path:
    python = VENV / "bin" / "python"
    if subprocess.run([str(python), "-c", "import repo2docker"], capture_output=True).returncode if python.exists() else 1:
        print(f"installing jupyter-repo2docker into {VENV.relative_to(REPO)} ...", flush=True)
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", "jupyter-repo2docker"], check=True)
    return python


def copy_checkout(target: Path) -> None:
    files = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=REPO,
                           check=True, capture_output=True, text=True).stdout.split("\0")
    for name in filter(None, files):
        if (REPO / name).is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, target / name)


def requirement_lines(path: Path, seen: set | None = None) -> list[tuple[str, str]]:
    """(file, line) for every non-comment line of a requirements file and the -r/-c files it includes."""
    seen = seen if seen is not None else set()
    if path in seen:
        return []
    seen.add(path)
    rows = []
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.split(" #", 1)[0].strip()
        if not line or line.startswith("#"):
            continue
        rows.append((str(path.relative_to(REPO)), line))
        match = re.match(r"^(-r|-c|--requirement|--constraint)\s+(\S+)", line)
        if match:
            rows += requirement_lines((path.parent / match.group(2)).resolve(), seen)
    return rows


def main() -> int:
    started = time.perf_counter()
    python = ensure_repo2docker()
    with tempfile.TemporaryDirectory(prefix="binder-check-") as scratch:
        copy_checkout(Path(scratch))
        result = subprocess.run([str(python), "-c", DETECT], cwd=scratch, capture_output=True, text=True)
    if result.returncode:
        print(result.stderr[-3000:])
        return 1
    info = json.loads(result.stdout.strip().splitlines()[-1])
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "Dockerfile").write_text(info["dockerfile"], encoding="utf-8")
    dockerfile = info["dockerfile"].splitlines()
    problems = []
    print(f"repo2docker {info['repo2docker']}: build pack {info['buildpack']} (binder dir {info['binder_dir']!r}, "
          f"runtime.txt {info['runtime']}), base image {info['base_image']}")
    version = info["python_version"] or "0"
    print(f"  python_version = {version}")
    if info["buildpack"] != "PythonBuildPack" or tuple(map(int, version.split(".")[:2])) < (3, 11):
        problems.append("expected PythonBuildPack with Python >= 3.11")
    locks = [f for f in info["script_files"] if re.search(r"environment\.py-[\d.]+-linux-64\.lock$", f)]
    for lock in locks:
        line = next((x for x in Path(lock).read_text().splitlines() if "/python-3." in x), "")
        print(f"  conda lock {Path(lock).name}: {line.rsplit('/', 1)[-1].split('#')[0]}")
        if f"python-{version}." not in line:
            problems.append(f"the conda lock {Path(lock).name} does not install Python {version}")
    for line in dockerfile:
        if not line.lstrip().startswith("#") and re.search(r"pip install|postBuild|WORKDIR \$\{REPO_DIR\}", line):
            print(f"  Dockerfile: {line.strip()}")
    if not any('pip install --no-cache-dir -r "binder/requirements.txt"' in line for line in dockerfile):
        problems.append("the Dockerfile does not install binder/requirements.txt")
    if not any("./binder/postBuild" in line for line in dockerfile):
        problems.append("the Dockerfile does not run binder/postBuild")
    rows = requirement_lines(REPO / "binder" / "requirements.txt")
    for where, line in rows:
        if CPU_INDEX in line or line.startswith(("torch", "-r", "-c", "-e")):
            print(f"  {where}: {line}")
    if not any(line in (f"--extra-index-url {CPU_INDEX}", f"--index-url {CPU_INDEX}") for _, line in rows):
        problems.append(f"binder/requirements.txt does not add the CPU index {CPU_INDEX}")
    if not any(re.fullmatch(r"torch==[\d.]+", line) for _, line in rows):
        problems.append("no exact torch pin reached from binder/requirements.txt")
    print(f"  rendered Dockerfile: {(OUT / 'Dockerfile').relative_to(REPO)} ({len(dockerfile)} lines)")
    for problem in problems:
        print(f"FAIL: {problem}")
    print(f"binder check: {'FAILED' if problems else 'passed'} in {time.perf_counter() - started:.0f} s")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
