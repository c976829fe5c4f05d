"""The graded hub image holds no reference solution, not even as bytecode.

There is no Docker engine here, so the image's file system is rebuilt the way the Dockerfile builds it: every
COPY of deploy/jupyterhub/Dockerfile from a build context that is this checkout with compiled bytecode in it
(a developer's checkout has it), less what .dockerignore excludes, then the graded RUN step in place.
"""

import compileall
import fnmatch
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DOCKERFILE = REPO / "deploy" / "jupyterhub" / "Dockerfile"


def ignored(relative: str) -> bool:
    """Whether .dockerignore leaves ``relative`` out of the build context (its patterns, ``**`` included)."""
    patterns = [line.strip() for line in (REPO / ".dockerignore").read_text().splitlines()
                if line.strip() and not line.startswith("#")]
    parts = relative.split("/")
    prefixes = ["/".join(parts[:i]) for i in range(1, len(parts) + 1)]
    return any(fnmatch.fnmatch(prefix, pattern) or fnmatch.fnmatch(prefix, pattern.removeprefix("**/")) or
               fnmatch.fnmatch(parts[i - 1], pattern.removeprefix("**/"))
               for pattern in patterns for i, prefix in enumerate(prefixes, start=1))


def build_like_the_dockerfile(context: Path, image: Path, dockerignore: bool) -> None:
    workdir = None
    for line in DOCKERFILE.read_text().replace("\\\n", " ").splitlines():
        words = shlex.split(line) if line.strip() and not line.startswith("#") else []
        if words[:1] == ["WORKDIR"] and workdir is None:
            workdir = words[1]
        if words[:1] == ["COPY"]:
            *sources, destination = words[1:]
            target = image / Path(workdir).relative_to("/") / destination
            for source in sources:
                for path in [context / source] if (context / source).is_file() else (context / source).rglob("*"):
                    relative = path.relative_to(context).as_posix()
                    if path.is_file() and not (dockerignore and ignored(relative)):
                        into = target / (path.relative_to(context / source) if (context / source).is_dir()
                                         else Path(path.name) if destination.endswith("/") else Path())
                        into.parent.mkdir(parents=True, exist_ok=True)
                        shutil.copy(path, into)
    assert "python -m delivery.graded_package /opt/lmtie_edu" in DOCKERFILE.read_text()
    done = subprocess.run([sys.executable, "-m", "delivery.graded_package", str(image / "opt" / "lmtie_edu")],
                          cwd=image / "opt" / "lmtie_edu", capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("dockerignore", [True, False], ids=["as built", "without .dockerignore"])
def test_the_graded_image_holds_no_solution_bytecode(tmp_path, dockerignore):
    """Either defence alone keeps the solutions out: .dockerignore, and the graded step's own clean-up."""
    context = tmp_path / "context"
    shutil.copytree(REPO, context, ignore=shutil.ignore_patterns(".git", ".venv", "build", "notebooks"))
    assert compileall.compile_dir(context / "lmtie_edu", quiet=1)  # a developer's checkout has these
    assert list((context / "lmtie_edu" / "lesson01" / "__pycache__").glob("solutions.*.pyc"))
    image = tmp_path / "image"
    build_like_the_dockerfile(context, image, dockerignore)
    package = image / "opt" / "lmtie_edu" / "lmtie_edu"
    assert (package / "GRADED").is_file() and (package / "lesson01" / "solutions.py").is_file()
    assert not list(package.rglob("*.pyc")) and not list(package.rglob("__pycache__"))
    assert not list(package.rglob("lmtie_edu_worked_answers.mo"))  # the solutions' comments, translated
    real = (REPO / "lmtie_edu" / "lesson01" / "solutions.py").read_text(encoding="utf-8")
    marker = next(line.strip() for line in real.splitlines() if line.strip().startswith("return ")).encode()
    leaks = [path for path in image.rglob("*") if path.is_file() and marker in path.read_bytes()]
    assert leaks == []


def test_dockerignore_keeps_bytecode_out_of_the_context_and_the_package_in():
    assert ignored("lmtie_edu/lesson01/__pycache__/solutions.cpython-311.pyc")
    assert ignored("lmtie_edu/kit/x.pyc") and ignored(".venv/bin/python")
    assert not ignored("lmtie_edu/lesson01/solutions.py") and not ignored("delivery/graded_package.py")
    assert not ignored("requirements.txt") and not ignored("deploy/jupyterhub/requirements.txt")
