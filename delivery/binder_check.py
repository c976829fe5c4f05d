"""What will Binder build? Ask repo2docker's own command line, without Docker.

The badges launch Binder's environment branch ``binder-<ref>`` (delivery/binder_branch.py), which nbgitpuller then
fills with the students' branch. This check writes that branch from this checkout's HEAD (in a scratch clone: the
repository's own branches are not touched), extracts it to a scratch folder and runs ``repo2docker --no-build
--debug`` on it: repo2docker picks its build pack and prints the Dockerfile it would build (saved to
build/binder/Dockerfile) without contacting a Docker engine. Checks:

- Python >= 3.11 from binder/runtime.txt: repo2docker says so, and the conda lock the Dockerfile copies in
  holds that Python;
- the Dockerfile installs binder/requirements.txt and runs binder/postBuild;
- binder/requirements.txt (with the ``-c`` file it includes) adds the CPU index for torch, pins torch, installs
  nbgitpuller and the package at a commit, and pins the notebook that matches the course's jupyterlab;
- the branch holds no lesson, solution or test (its image does not change when a lesson does).

``--env`` also builds the environment repo2docker would build, in build/binder-env, and runs ``pip check``
in it: a venv of this machine's Python 3.11 gets every Python package of that conda lock at the lock's
version (``--no-deps``: conda installed them as one consistent set), then the branch's requirements as the
Dockerfile installs them, with this checkout's package in place of the ``git+`` line (GitHub is unreachable
here). Not done here: the CPU index line is left out (that host is unreachable here; torch 2.13.0+cpu comes
from this machine's wheel, the file that index serves), and conda's non-Python packages (node, libraries) are
not installed. The venv is kept and rebuilt only when the lock or a requirements file changes.

repo2docker (pinned below) is installed into build/r2d-venv the first time (it is not a course dependency).

Usage: python -m delivery.binder_check [--env]
"""

from __future__ import annotations

import argparse
import hashlib
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
VENV = REPO / "build" / "r2d-venv"
ENV = REPO / "build" / "binder-env"
OUT = REPO / "build" / "binder"
CPU_INDEX = "https://download.pytorch.org/whl/cpu"
REPO2DOCKER = "2026.4.0"  # jupyter-repo2docker, exactly; mybinder.org runs a recent release
# conda-forge names whose PyPI distribution is called otherwise (the rest are the same name).
CONDA_TO_PYPI = {"python-fastjsonschema": "fastjsonschema", "jupyterhub-base": "jupyterhub",
                 "nbconvert-core": "nbconvert", "brotli-python": "brotli"}
NOT_FROM_LOCK = {"pip"}  # the venv's own


def ensure_repo2docker() -> Path:
    exe = VENV / "bin" / "repo2docker"
    have = subprocess.run([str(exe), "--version"], capture_output=True, text=True) if exe.exists() else None
    if have is None or have.returncode or have.stdout.strip() != REPO2DOCKER:
        print(f"installing jupyter-repo2docker=={REPO2DOCKER} into {VENV.relative_to(REPO)} ...", flush=True)
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
        subprocess.run([str(VENV / "bin" / "python"), "-m", "pip", "install", "-q",
                        f"jupyter-repo2docker=={REPO2DOCKER}"], check=True)
    return exe


def environment_tree(target: Path) -> None:
    """Binder's environment branch of this checkout's HEAD, written in a scratch clone, extracted into ``target``."""
    from delivery.binder_branch import write_branch

    with tempfile.TemporaryDirectory(prefix="binder-branch-") as scratch:
        clone = Path(scratch) / "course.git"
        subprocess.run(["git", "clone", "--quiet", "--bare", str(REPO), str(clone)], check=True)
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO, check=True, capture_output=True,
                              text=True).stdout.strip()
        write_branch(head, "binder-check", repo=clone)
        archive = subprocess.run(["git", "--git-dir", str(clone), "archive", "binder-check"], check=True,
                                 capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(target)], input=archive, check=True)


def run_repo2docker(exe: Path, tree: Path) -> tuple[str, str]:
    """The Dockerfile repo2docker prints for the folder ``tree``, and its log."""
    result = subprocess.run([str(exe), "--no-build", "--debug", "--user-id", "1000", "--user-name",
                             "jovyan", "."], cwd=tree, capture_output=True, text=True)
    if result.returncode:
        sys.exit(f"repo2docker --no-build failed:\n{result.stderr[-3000:]}")
    return result.stdout, result.stderr


def unescape(name: str) -> str:
    """repo2docker names copied build files with escapism ('-2f' for '/'); undo it."""
    return re.sub(r"-([0-9a-f]{2})", lambda m: chr(int(m.group(1), 16)), name)


def conda_lock(dockerfile: str) -> Path | None:
    """The conda lock file that the Dockerfile copies in as /tmp/env/environment.lock."""
    match = re.search(r"^COPY \S* ?build_script_files/(\S+)-[0-9a-f]{6} /tmp/env/environment\.lock$",
                      dockerfile, re.M)
    return Path(unescape(match.group(1))) if match else None


def requirement_lines(path: Path, root: Path, seen: set | None = None) -> list[tuple[str, str]]:
    """(file relative to ``root``, line) for every non-comment line of a requirements file and the -r/-c files it
    includes."""
    seen = seen if seen is not None else set()
    if path in seen:
        return []
    seen.add(path)
    rows = []
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.split(" #", 1)[0].strip()
        if not line or line.startswith("#"):
            continue
        rows.append((str(path.relative_to(root)), line))
        match = re.match(r"^(-r|-c|--requirement|--constraint)\s+(\S+)", line)
        if match:
            rows += requirement_lines((path.parent / match.group(2)).resolve(), root, seen)
    return rows


def lock_python_packages(lock: Path) -> list[str]:
    """`name==version` for each Python package of a conda lock (build string py…: pure or CPython builds)."""
    pins = []
    for line in lock.read_text().splitlines():
        match = re.search(r"/(?:noarch|linux-64)/(.+)-([^-]+)-([^-]+)\.(?:conda|tar\.bz2)#", line)
        if match and match.group(3).startswith("py") and match.group(1) not in NOT_FROM_LOCK:
            pins.append(f"{CONDA_TO_PYPI.get(match.group(1), match.group(1))}=={match.group(2)}")
    return pins


def check_env(lock: Path, tree: Path) -> list[str]:
    """Build the environment repo2docker would build (see the module's doc) and run pip check in it."""
    started = time.perf_counter()
    binder_req = tree / "binder" / "requirements.txt"
    inputs = [lock, binder_req, tree / "binder" / "constraints.txt", REPO / "pyproject.toml"]
    digest = hashlib.sha256(b"".join(p.read_bytes() for p in inputs)).hexdigest()[:16]
    stamp, python = ENV / f".installed-{digest}", ENV / "bin" / "python"
    if not stamp.exists():
        shutil.rmtree(ENV, ignore_errors=True)
        subprocess.run([sys.executable, "-m", "venv", str(ENV)], check=True)
        base = ENV / "conda-base.txt"
        base.write_text("\n".join(lock_python_packages(lock)) + "\n")
        print(f"  binder env: {len(base.read_text().split())} Python packages of {lock.name} (--no-deps) ...",
              flush=True)
        done = subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-deps", "-r", str(base)],
                              capture_output=True, text=True)
        if done.returncode:
            return [f"installing the conda lock's packages failed:\n{done.stderr[-3000:]}"]
        # The branch's requirements as the Dockerfile installs them, less the index line, and this checkout's
        # package in place of its git+ line (GitHub is unreachable here).
        shutil.copy(tree / "binder" / "constraints.txt", ENV / "constraints.txt")
        lines = [f"lmtie_edu @ {REPO.as_uri()}" if line.startswith("lmtie_edu @ git+") else line
                 for line in binder_req.read_text().splitlines() if CPU_INDEX not in line]
        (ENV / "requirements.txt").write_text("\n".join(lines) + "\n")
        print("  binder env: pip install -r binder/requirements.txt ...", flush=True)
        install = subprocess.run([str(python), "-m", "pip", "install", "-q", "-r", str(ENV / "requirements.txt")],
                                 cwd=ENV, capture_output=True, text=True)
        if install.returncode:
            return [f"pip install -r binder/requirements.txt failed:\n{install.stderr[-3000:]}"]
        conflicts = [x for x in install.stderr.splitlines() if "requires" in x and "incompatible" in x]
        for line in conflicts:
            print(f"  pip install said: {line}")
        stamp.touch()
    check = subprocess.run([str(python), "-m", "pip", "check"], capture_output=True, text=True)
    versions = subprocess.run([str(python), "-c", "from importlib.metadata import version as v; "
                               "print(*(f'{n} {v(n)}' for n in ('jupyterlab', 'notebook', 'jupyterhub', "
                               "'torch')), sep=', ')"], capture_output=True, text=True).stdout.strip()
    print(f"  binder env ({ENV.relative_to(REPO)}): {versions}")
    print(f"  pip check: {(check.stdout or check.stderr).strip()} ({time.perf_counter() - started:.0f} s)")
    return [] if check.returncode == 0 else [f"pip check fails in the Binder environment:\n{check.stdout}"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--env", action="store_true", help="also build the environment and run pip check in it")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    exe = ensure_repo2docker()
    with tempfile.TemporaryDirectory(prefix="binder-check-") as scratch:
        tree = Path(scratch)
        environment_tree(tree)
        problems = check_tree(exe, tree)
        lock = conda_lock((OUT / "Dockerfile").read_text(encoding="utf-8"))
        if args.env and lock is not None and lock.is_file():
            problems += check_env(lock, tree)
    for problem in problems:
        print(f"FAIL: {problem}")
    print(f"binder check: {'FAILED' if problems else 'passed'} in {time.perf_counter() - started:.0f} s")
    return 1 if problems else 0


def check_tree(exe: Path, tree: Path) -> list[str]:
    """What repo2docker would build from the environment branch in ``tree``: the problems found."""
    dockerfile, log = run_repo2docker(exe, tree)
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "Dockerfile").write_text(dockerfile, encoding="utf-8")
    lines, problems = dockerfile.splitlines(), []
    files = sorted(str(path.relative_to(tree)) for path in tree.rglob("*") if path.is_file())
    print(f"Binder's environment branch, written from HEAD: {', '.join(files)}")
    strays = [name for name in files if name.startswith(("notebooks/", "lmtie_edu/", "tests/"))
              or name.endswith(("solutions.py", ".ipynb"))]
    if strays:
        problems.append(f"the environment branch holds {strays}: a change to them would rebuild the image")
    picked = re.search(r"Building conda environment for python=([\d.]+)", log)
    version = picked.group(1) if picked else "0"
    print(f"repo2docker {REPO2DOCKER} --no-build: conda environment for python={version}, "
          f"{next((x for x in lines if x.startswith('FROM ')), 'no FROM')}")
    if tuple(map(int, version.split(".")[:2])) < (3, 11):
        problems.append("repo2docker does not pick Python >= 3.11 (binder/runtime.txt)")
    lock = conda_lock(dockerfile)
    if lock is None or not lock.is_file():
        problems.append(f"no conda lock found in the Dockerfile ({lock})")
    else:
        line = next((x for x in lock.read_text().splitlines() if "/python-3." in x), "")
        print(f"  conda lock {lock.name}: {line.rsplit('/', 1)[-1].split('#')[0]}")
        if f"python-{version}." not in line:
            problems.append(f"the conda lock {lock.name} does not install Python {version}")
    for line in lines:
        if not line.lstrip().startswith("#") and re.search(r"pip install|postBuild|WORKDIR \$\{REPO_DIR\}", line):
            print(f"  Dockerfile: {line.strip()}")
    if not any('pip install --no-cache-dir -r "binder/requirements.txt"' in line for line in lines):
        problems.append("the Dockerfile does not install binder/requirements.txt")
    if not any("./binder/postBuild" in line for line in lines):
        problems.append("the Dockerfile does not run binder/postBuild")
    rows = requirement_lines(tree / "binder" / "requirements.txt", tree)
    for where, line in rows:
        if CPU_INDEX in line or line.startswith(("torch", "notebook", "nbgitpuller", "lmtie_edu", "-c")):
            print(f"  {where}: {line}")
    if not any(line in (f"--extra-index-url {CPU_INDEX}", f"--index-url {CPU_INDEX}") for _, line in rows):
        problems.append(f"binder/requirements.txt does not add the CPU index {CPU_INDEX}")
    if not any(re.fullmatch(r"torch==[\d.]+", line) for _, line in rows):
        problems.append("no exact torch pin reached from binder/requirements.txt")
    lock_notebook = [x for x in lock_python_packages(lock) if x.startswith("notebook==")] if lock else []
    if lock_notebook and not any(re.fullmatch(r"notebook==[\d.]+", line) for _, line in rows):
        problems.append(f"the conda lock ships {lock_notebook[0]} and binder/requirements.txt does not pin the "
                        "notebook that matches the course's jupyterlab (make test-binder-env shows pip check)")
    if not any(re.fullmatch(r"nbgitpuller==[\d.]+", line) for _, line in rows):
        problems.append("binder/requirements.txt does not pin nbgitpuller, which the launch link needs")
    if not any(re.fullmatch(r"lmtie_edu @ git\+https://\S+@[0-9a-f]{40}", line) for _, line in rows):
        problems.append("binder/requirements.txt does not install lmtie_edu at one commit")
    print(f"  rendered Dockerfile: {(OUT / 'Dockerfile').relative_to(REPO)} ({len(lines)} lines)")
    return problems

if __name__ == "__main__":
    sys.exit(main())
