"""Releases for a term (issue 25): licence metadata, one version, CHANGELOG/CITATION, the stamp tool with a
release tag and back, the nbgitpuller branch, the hub image's version label, the Intel-Mac refusal.

The full build + fresh-venv lesson run is `make release-check` (delivery/release_check.py); here a clean copy of
the project is built once with pip (its pinned build backend, in build isolation) and the log is read.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import jsonschema
import nbformat
import pytest
import yaml

from delivery import colab, graded_package, release_check
from tools import backup

REPO = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
# What setuptools 84 printed for the old `license = {text = "MIT"}` (the detector must catch it).
OLD_WARNING = """\
  /tmp/pip-build-env-x/overlay/lib/python3.11/site-packages/setuptools/config/_apply_pyprojecttoml.py:82: \
BuildBackendWarning: `project.license` as a TOML table is deprecated
          By 2027-Feb-18, you need to update your project and remove deprecated calls
"""


def clean_copy(target: Path) -> Path:
    """What a fresh clone holds for building the package (no egg-info, no caches)."""
    target.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(REPO / name, target / name)
    shutil.copytree(REPO / "lmtie_edu", target / "lmtie_edu", ignore=shutil.ignore_patterns("__pycache__"))
    return target


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """A clean copy built by pip as a clean-clone install builds it: build isolation, the pinned backend."""
    root = tmp_path_factory.mktemp("release")
    source, out = clean_copy(root / "src"), root / "wheels"
    result = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-v", "-w", str(out), str(source)],
                            capture_output=True, text=True, timeout=600)
    log = result.stdout + result.stderr
    assert result.returncode == 0, log[-3000:]
    return log, next(out.glob("*.whl"))


def test_a_clean_build_prints_no_warning_about_the_projects_metadata(built):
    log, wheel = built
    assert "Successfully built lmtie_edu" in log or wheel.exists()
    assert release_check.metadata_warnings(log) == []
    assert release_check.wheel_problems(wheel, release_check.course_version()) == []


def test_the_warning_detector_catches_setuptools_deprecations():
    assert len(release_check.metadata_warnings(OLD_WARNING)) == 2
    assert release_check.metadata_warnings("  warning: build_py: byte-compiling is disabled, skipping.") == []
    assert release_check.metadata_warnings("Pattern 'LICENSE' did not match any files.")


def test_licence_metadata_is_pep_639_with_a_backend_that_supports_it():
    # the code; the Chinese figures' font; the Lee news corpus in lmtie_edu/shared/data/
    assert PYPROJECT["project"]["license"] == "MIT AND OFL-1.1 AND LGPL-2.1-only"
    assert PYPROJECT["project"]["license-files"] == ["LICENSE", "lmtie_edu/shared/fonts/LICENSE-OFL.txt",
                                                     "lmtie_edu/shared/data/LICENSE-LGPL-2.1.txt"]
    assert "SIL OPEN FONT LICENSE" in (REPO / "lmtie_edu/shared/fonts/LICENSE-OFL.txt").read_text(encoding="utf-8")
    assert "LESSER GENERAL PUBLIC LICENSE" in (REPO / "lmtie_edu/shared/data/LICENSE-LGPL-2.1.txt").read_text()
    [backend] = PYPROJECT["build-system"]["requires"]
    name, _, version = backend.partition("==")
    assert name == "setuptools" and tuple(map(int, version.split("."))) >= (77, 0), backend
    assert "Permission is hereby granted, free of charge" in (REPO / "LICENSE").read_text(encoding="utf-8")
    content = (REPO / "notebooks" / "LICENSE.md").read_text(encoding="utf-8")
    assert "CC BY 4.0" in content and "creativecommons.org/licenses/by/4.0" in content
    assert "CC BY 4.0" in (REPO / "README.md").read_text(encoding="utf-8")


def test_the_version_lives_in_one_place_and_everything_agrees(tmp_path):
    assert "version" not in PYPROJECT["project"] and PYPROJECT["project"]["dynamic"] == ["version"]
    assert PYPROJECT["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "lmtie_edu.__version__"}
    assert release_check.version_problems() == []
    copy = tmp_path / "repo"
    for name in ("CHANGELOG.md", "CITATION.cff", "lmtie_edu/__init__.py", "deploy/jupyterhub/Dockerfile"):
        (copy / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(REPO / name, copy / name)
    init = copy / "lmtie_edu" / "__init__.py"
    init.write_text(init.read_text(encoding="utf-8").replace("__version__ = ", "__version__ = '9.9.9'  # "))
    problems = release_check.version_problems(copy)
    assert len(problems) == 3 and all("9.9.9" in p for p in problems), problems  # CHANGELOG, CITATION, image


def test_citation_cff_is_valid_cff_1_2_0():
    schema = json.loads((Path(__file__).parent / "citation_cff_1.2.0.schema.json").read_text(encoding="utf-8"))
    citation = yaml.safe_load((REPO / "CITATION.cff").read_text(encoding="utf-8"))
    validator = jsonschema.Draft7Validator(schema, format_checker=jsonschema.FormatChecker())
    assert [e.message for e in validator.iter_errors(citation)] == []
    assert list(validator.iter_errors(citation | {"date-released": "Nov 2026"}))  # the schema does check
    assert citation["repository-code"] == PYPROJECT["project"]["urls"]["Repository"]


def test_the_hub_image_carries_the_course_version_and_the_licence():
    dockerfile = (REPO / "deploy" / "jupyterhub" / "Dockerfile").read_text(encoding="utf-8")
    assert release_check.image_version(dockerfile) == release_check.course_version()
    assert 'org.opencontainers.image.version="${LMTIE_EDU_VERSION}"' in dockerfile
    copy = next(line for line in dockerfile.splitlines() if line.startswith("COPY") and "pyproject.toml" in line)
    assert "LICENSE" in copy.split(), "the image builds lmtie_edu from pyproject.toml, which names LICENSE"


def test_a_graded_package_copy_carries_the_licence_its_pyproject_names(tmp_path):
    graded_package.write(tmp_path / "graded")
    assert (tmp_path / "graded" / "LICENSE").exists(), "pyproject.toml's license-files names LICENSE"


def stamp_sources(path: Path) -> tuple[str, str]:
    nb = nbformat.read(path, as_version=4)
    setup = next(c.source for c in nb.cells if colab.SETUP_MARKER in c.source)
    badges = next(c.source for c in nb.cells if colab.BADGE_MARKER in c.source)
    return setup, badges


def test_the_stamp_tool_stamps_a_release_tag_and_back(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(backup, "BACKUPS", tmp_path / "backups")
    lesson = REPO / "notebooks" / "01_embedding_lookup.ipynb"
    copy = Path(shutil.copy(lesson, tmp_path / lesson.name))
    assert colab.main(["--ref", "v0.2.0", str(copy)]) == 0
    setup, badges = stamp_sources(copy)
    assert "git+https://github.com/lmtie-edu/lmtie_edu@v0.2.0" in setup and "@main" not in setup
    assert "/blob/v0.2.0/notebooks/01_embedding_lookup.ipynb" in badges
    assert "mybinder.org/v2/gh/lmtie-edu/lmtie_edu/binder-v0.2.0?" in badges and "main" not in badges
    assert "branch%3Dstudents%252Fv0.2.0" in badges  # nbgitpuller pulls the release's students' branch
    assert colab.main(["--check", str(copy)]) == 1  # neither main nor this version's tag
    current = f"v{release_check.course_version()}"
    assert colab.main(["--ref", current, str(copy)]) == 0
    assert colab.main(["--check", str(copy)]) == 0  # a release commit passes make test-colab
    assert colab.main([str(copy)]) == 0  # back to main
    assert json.loads(copy.read_text(encoding="utf-8")) == json.loads(lesson.read_text(encoding="utf-8"))
    assert colab.main(["--check", "--ref", "v0.2.0", str(copy)]) == 1
    capsys.readouterr()


@pytest.mark.parametrize(("system", "machine", "refused"), [
    ("Darwin", "x86_64", True), ("Darwin", "arm64", False), ("Linux", "x86_64", False)])
def test_platform_check_refuses_an_intel_mac_in_one_line(tmp_path, system, machine, refused):
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "uname").write_text(f'#!/bin/sh\ncase "$1" in -s) echo {system};; -m) echo {machine};; esac\n')
    (fake / "uname").chmod(0o755)
    env = os.environ | {"PATH": f"{fake}{os.pathsep}{os.environ['PATH']}"}
    result = subprocess.run(["make", "--no-print-directory", "-s", "-f", "delivery/release.mk", "platform-check"],
                            cwd=REPO, env=env, capture_output=True, text=True)
    assert (result.returncode != 0) == refused, result.stdout + result.stderr
    if refused:
        [line] = result.stdout.splitlines()
        assert "Intel Mac" in line and "Colab" in line and "Binder" in line and "Linux VM" in line
