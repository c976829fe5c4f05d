"""Check a release of the course: ``python -m delivery.release_check`` (``make release-check``).

1. The version agrees everywhere: ``lmtie_edu/__init__.py`` holds it (pyproject.toml reads it, dynamic),
   CHANGELOG.md has a section for it (or Unreleased above it), CITATION.cff, the hub image's
   ``LMTIE_EDU_VERSION`` default and every lesson's ``setup_lesson(course=...)`` (both languages) say the same.
2. ``python -m build`` writes the sdist and the wheel (from the sdist, as PyPI users get it) into build/dist/;
   the build log holds no deprecation warning from the project's own metadata; the wheel carries LICENSE
   and ``License-Expression: MIT AND OFL-1.1 AND LGPL-2.1-only`` (the Chinese figures' font, the Lee corpus), the
   Chinese catalogue, the font and the data files the lessons read;
   ``twine check --strict`` passes.
3. The wheel is installed into a fresh venv (``python -m venv``, nothing layered under it) with the course's
   pinned dependencies (requirements.txt + constraints.txt; torch is the CPU wheel found on disk), and
   lesson 01 runs there through nbclient, from a folder outside the checkout, importing the installed
   package (a last cell checks where ``lmtie_edu`` came from).

build and twine come from build/release-venv (requirements-release.txt, layered over .venv by delivery/release.mk);
``--python`` names that interpreter. ``--version`` prints the course version and exits. ``--reuse`` (what
`make test` uses) keeps the wheel's venv of an earlier run when the wheel's declared dependencies and the
pins are unchanged and reinstalls only the wheel; `make release-check` always makes it afresh.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import os
import re
import shutil
import subprocess
import sys
import time
import venv
import zipfile
from pathlib import Path

import yaml

from tools.course import notebooks

REPO = Path(__file__).resolve().parents[1]
DIST = REPO / "build" / "dist"
WHEEL_VENV = REPO / "build" / "release-wheel-venv"
LESSON = REPO / "notebooks" / "01_embedding_lookup.ipynb"
DOCKERFILE = REPO / "deploy" / "jupyterhub" / "Dockerfile"
# What the fresh venv needs besides the wheel to run a notebook (versions from the course's pins).
RUNNER = ("ipykernel", "nbclient", "nbformat")
# setuptools' warnings about a project's own configuration ("`project.license` as a TOML table is deprecated",
# "By 2027-Feb-18, you need to update your project ...", "Pattern 'LICENSE' did not match any files").
METADATA_WARNING = re.compile(r"DeprecationWarning|BuildBackendWarning|SetuptoolsWarning|deprecated"
                              r"|By \d{4}-[A-Z][a-z]{2}-\d{2}|did not match any files", re.IGNORECASE)


def course_version(init: Path = REPO / "lmtie_edu" / "__init__.py") -> str:
    """``__version__`` from the package's ``__init__.py``, read as setuptools reads it (no import)."""
    for node in ast.parse(init.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "__version__" for t in node.targets):
            return ast.literal_eval(node.value)
    raise SystemExit(f"{init} has no literal __version__")


def metadata_warnings(log: str) -> list[str]:
    """The lines of a build or install log that warn about the project's own metadata."""
    return [line.strip() for line in log.splitlines() if METADATA_WARNING.search(line)]


def changelog_date(changelog: str, version: str) -> str | None:
    """The date of ``## [version] - YYYY-MM-DD``, or None when CHANGELOG.md has no such section."""
    match = re.search(rf"^## \[{re.escape(version)}\] - (\d{{4}}-\d{{2}}-\d{{2}})\s*$", changelog, re.MULTILINE)
    return match.group(1) if match else None


def image_version(dockerfile: str) -> str | None:
    match = re.search(r"^ARG LMTIE_EDU_VERSION=(\S+)\s*$", dockerfile, re.MULTILINE)
    return match.group(1) if match else None


def version_problems(root: Path = REPO) -> list[str]:
    """Where the version is missing or disagrees with lmtie_edu.__version__ (empty: all agree)."""
    version = course_version(root / "lmtie_edu" / "__init__.py")
    problems = []
    changelog = (root / "CHANGELOG.md").read_text(encoding="utf-8")
    released = changelog_date(changelog, version)
    if released is None:
        problems.append(f"CHANGELOG.md has no '## [{version}] - YYYY-MM-DD' section")
    if "## [Unreleased]" not in changelog:
        problems.append("CHANGELOG.md has no '## [Unreleased]' section (Keep a Changelog)")
    citation = yaml.safe_load((root / "CITATION.cff").read_text(encoding="utf-8"))
    if str(citation.get("version")) != version:
        problems.append(f"CITATION.cff version is {citation.get('version')!r}, the package's is {version!r}")
    if released and str(citation.get("date-released")) != released:
        problems.append(f"CITATION.cff date-released {citation.get('date-released')} != CHANGELOG's {released}")
    dockerfile = root / "deploy" / "jupyterhub" / "Dockerfile"
    label = image_version(dockerfile.read_text(encoding="utf-8"))
    if label != version:
        problems.append(f"{dockerfile.relative_to(root)}: ARG LMTIE_EDU_VERSION={label}, the package's is {version}")
    lessons = [root / path.relative_to(REPO) for path in notebooks() + notebooks(chinese=True)]
    for lesson in (path for path in lessons if path.exists()):  # a missing lesson is test_manifest's to find
        named = re.findall(r'setup_lesson\([^)]*course=\\"([^"\\]+)\\"', lesson.read_text(encoding="utf-8"))
        if named != [version]:
            problems.append(f"{lesson.relative_to(root)}: setup_lesson(course=...) names {named or 'no version'}, "
                            f"the package's is {version}")
    return problems


def pins(root: Path = REPO) -> dict[str, str]:
    """Every exact pin of the course (name -> version): constraints.txt, then requirements.txt's."""
    found = {}
    for name in ("constraints.txt", "requirements.txt"):
        for line in (root / name).read_text(encoding="utf-8").splitlines():
            match = re.fullmatch(r"([A-Za-z0-9_.-]+)==(\S+)", line.split("#")[0].strip())
            if match:
                found[re.sub(r"[-_.]+", "-", match.group(1)).lower()] = match.group(2)
    return found


def run(command: list, log: Path, **kwargs) -> str:
    """Run ``command``, keep its output in ``log``; exit with the log's tail when it fails."""
    result = subprocess.run([str(c) for c in command], capture_output=True, text=True, **kwargs)
    log.write_text(result.stdout + result.stderr, encoding="utf-8")
    if result.returncode:
        tail = "\n".join((result.stdout + result.stderr).splitlines()[-25:])
        raise SystemExit(f"failed ({result.returncode}): {' '.join(map(str, command))}\n{tail}\n(log: {log})")
    return result.stdout + result.stderr


def build(python: Path, outdir: Path = DIST, source: Path = REPO) -> tuple[Path, Path]:
    """Build ``source``'s sdist and wheel into ``outdir``; refuse a log with metadata warnings."""
    shutil.rmtree(outdir, ignore_errors=True)
    outdir.mkdir(parents=True)
    log = run([python, "-m", "build", "--outdir", outdir, source], outdir / "build.log")
    if warned := metadata_warnings(log):
        raise SystemExit("the build warns about the project's metadata:\n  " + "\n  ".join(warned))
    wheel, sdist = sorted(outdir.glob("*.whl")), sorted(outdir.glob("*.tar.gz"))
    if len(wheel) != 1 or len(sdist) != 1:
        raise SystemExit(f"expected one wheel and one sdist in {outdir}, found {wheel + sdist}")
    return wheel[0], sdist[0]


def wheel_problems(wheel: Path, version: str) -> list[str]:
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        info = f"lmtie_edu-{version}.dist-info"
        metadata = archive.read(f"{info}/METADATA").decode() if f"{info}/METADATA" in names else ""
    problems = []
    for needed in (f"{info}/licenses/LICENSE", "lmtie_edu/__init__.py", "lmtie_edu/lesson01/exercises.py",
                   "lmtie_edu/locale/zh_CN/LC_MESSAGES/lmtie_edu.mo", "lmtie_edu/shared/fonts/NotoSansSC-lmtie-subset.otf",
                   f"{info}/licenses/lmtie_edu/shared/fonts/LICENSE-OFL.txt", "lmtie_edu/shared/data/lee_background.cor",
                   "lmtie_edu/shared/data/lee.cor", "lmtie_edu/shared/data/simlex999.txt",
                   "lmtie_edu/shared/data/wordsim353.tsv", "lmtie_edu/shared/data/README.md",
                   f"{info}/licenses/lmtie_edu/shared/data/LICENSE-LGPL-2.1.txt"):
        if needed not in names:
            problems.append(f"{wheel.name} lacks {needed}")
    for header in (f"Version: {version}", "License-Expression: MIT AND OFL-1.1 AND LGPL-2.1-only",
                   "License-File: LICENSE"):
        if header not in metadata.splitlines():
            problems.append(f"{wheel.name} METADATA lacks '{header}'")
    if any(name.startswith(("tools/", "tests/", "notebooks/")) for name in names):
        problems.append(f"{wheel.name} carries tools/, tests/ or notebooks/ (they are not the package's)")
    return problems


def clean_env() -> dict[str, str]:
    """The environment for the fresh venv: nothing from the checkout or .venv leaks in."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if ".venv" not in p)
    return env


def venv_key(wheel: Path, constraints: str) -> str:
    """What decides the fresh venv's contents: the wheel's declared dependencies, the pins, the interpreter."""
    with zipfile.ZipFile(wheel) as archive:
        metadata = next(archive.read(n).decode() for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
    requires = sorted(line for line in metadata.splitlines() if line.startswith("Requires-Dist:"))
    text = "\n".join([sys.version, constraints, *RUNNER, *requires])
    return hashlib.sha256(text.encode()).hexdigest()


def install_wheel(wheel: Path, target: Path = WHEEL_VENV, reuse: bool = False,
                  root: Path = REPO) -> tuple[Path, bool]:
    """A fresh venv with the wheel, its dependencies at the course's pins, and a notebook runner.

    ``reuse``: when the venv from an earlier run was made for the same dependencies and pins (``venv_key``),
    only the wheel is reinstalled into it (what `make test` does; a release is checked fresh). Returns the
    venv's python and whether the venv was made afresh. ``pip check`` must pass either way.
    """
    course = pins(root)
    pinned = "".join(f"{name}=={v}\n" for name, v in sorted(course.items()))
    wheel = wheel.resolve()
    python, stamp, key = target / "bin" / "python", target / ".release-check-key", venv_key(wheel, pinned)
    env = clean_env()
    fresh = not (reuse and python.exists() and stamp.exists() and stamp.read_text() == key)
    if fresh:
        shutil.rmtree(target, ignore_errors=True)
        venv.EnvBuilder(with_pip=True, clear=True).create(target)
        constraints = target / "course-pins.txt"
        constraints.write_text(pinned, encoding="utf-8")
        runner = [f"{name}=={course[name]}" for name in RUNNER]
        command = [f"{wheel}", f"torch=={course['torch']}", *runner, "-c", constraints]
    else:
        command = ["--no-deps", "--force-reinstall", f"{wheel}"]
    log = run([python, "-m", "pip", "install", "--no-input", "--no-compile", *command], target / "install.log",
              env=env, cwd=target)
    if warned := metadata_warnings(log):
        raise SystemExit("installing the wheel warned:\n  " + "\n  ".join(warned))
    downloads = [line.strip() for line in log.splitlines() if re.match(r"\s*Downloading torch\b", line)]
    if downloads:
        raise SystemExit(f"torch was downloaded instead of taken from disk: {downloads}")
    run([python, "-m", "pip", "check"], target / "pip-check.log", env=env, cwd=target)
    if fresh:
        stamp.write_text(key, encoding="utf-8")
    return python, fresh


RUN_LESSON = """
import sys, nbformat
from nbclient import NotebookClient
nb = nbformat.read(sys.argv[1], as_version=4)
nb.cells.append(nbformat.v4.new_code_cell(
    "import sys, lmtie_edu; print(lmtie_edu.__version__, lmtie_edu.__file__, sys.prefix, sep='|')"))
NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": sys.argv[2]}}).execute()
print("WHERE|" + nb.cells[-1].outputs[0]["text"].strip())
"""


def run_lesson(python: Path, lesson: Path = LESSON) -> str:
    """Run ``lesson`` in ``python``'s venv from a folder outside the checkout; check what it imported."""
    target = python.parent.parent
    workdir = target / "lesson"
    shutil.rmtree(workdir, ignore_errors=True)
    workdir.mkdir()
    copy = shutil.copy(lesson, workdir / lesson.name)
    env = clean_env() | {"MPLCONFIGDIR": str(target / "matplotlib")}
    out = run([python, "-c", RUN_LESSON, copy, workdir], target / "lesson.log", env=env, cwd=workdir)
    where = next(line for line in out.splitlines() if line.startswith("WHERE|")).split("|")[1:]
    version, package, prefix = where
    if Path(prefix).resolve() != target.resolve() or not Path(package).resolve().is_relative_to(target.resolve()):
        raise SystemExit(f"the lesson ran in {prefix} importing {package}, not the installed wheel in {target}")
    return version


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", type=Path, default=REPO / "build" / "release-venv" / "bin" / "python",
                        help="the interpreter with build and twine (default: build/release-venv)")
    parser.add_argument("--version", action="store_true", help="print the course version and exit")
    parser.add_argument("--reuse", action="store_true",
                        help="keep the wheel's venv from an earlier run when its dependencies and pins are unchanged")
    parser.add_argument("--source", type=Path, default=REPO,
                        help="the checkout to release (default: this one; e.g. a `git worktree` of a tag)")
    args = parser.parse_args(argv)
    source = args.source.resolve()
    version = course_version(source / "lmtie_edu" / "__init__.py")
    if args.version:
        print(version)
        return 0
    if problems := version_problems(source):
        raise SystemExit("the version does not agree:\n  " + "\n  ".join(problems))
    print(f"version {version}: lmtie_edu/__init__.py, CHANGELOG.md, CITATION.cff, the hub image and the lessons agree")
    start = time.monotonic()
    wheel, sdist = build(args.python, source=source)
    if problems := wheel_problems(wheel, version):
        raise SystemExit("\n".join(problems))
    run([args.python, "-m", "twine", "check", "--strict", wheel, sdist], DIST / "twine.log")
    print(f"built and twine-checked {wheel.name}, {sdist.name} ({time.monotonic() - start:.0f} s, no metadata "
          "warnings)")
    start = time.monotonic()
    python, fresh = install_wheel(wheel, reuse=args.reuse, root=source)
    how = "a fresh" if fresh else "the unchanged (--reuse)"
    print(f"installed the wheel into {how} {WHEEL_VENV.relative_to(REPO)}, pip check passes "
          f"({time.monotonic() - start:.0f} s)")
    start = time.monotonic()
    ran = run_lesson(python, source / LESSON.relative_to(REPO))
    print(f"{LESSON.name} ran from the installed wheel (lmtie_edu {ran}, {time.monotonic() - start:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
