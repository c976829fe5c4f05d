"""The GitHub Actions workflows an instructor's fork runs (.github/workflows/): what each one runs and when.

Fast (no network, nothing installed): part of the default test run. The workflow files are also checked by
actionlint here (the binary from requirements-test.txt), as `make lint-workflows` does.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
WORKFLOWS = REPO / ".github" / "workflows"
CPU_INDEX = "https://download.pytorch.org/whl/cpu"


def load(name: str) -> dict:
    workflow = yaml.safe_load((WORKFLOWS / name).read_text())
    workflow["on"] = workflow.pop(True, workflow.get("on"))  # YAML 1.1 reads the key `on` as True
    return workflow


def steps(workflow: dict) -> list[dict]:
    return [step for job in workflow["jobs"].values() for step in job["steps"]]


def runs(workflow: dict) -> str:
    return "\n".join(step.get("run", "") for step in steps(workflow))


def uses(workflow: dict) -> dict[str, dict]:
    return {step["uses"].split("@")[0]: step for step in steps(workflow) if "uses" in step}


def test_actionlint_passes():
    exe = shutil.which("actionlint", path=str(Path(sys.executable).parent)) or shutil.which("actionlint")
    assert exe, "actionlint is missing: it comes with requirements-test.txt (make test installs it)"
    files = sorted(str(p) for p in WORKFLOWS.glob("*.yml"))
    assert len(files) == 6
    result = subprocess.run([exe, *files], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_lessons_on_every_push_and_pull_request_with_pip_cache():
    workflow = load("lessons.yml")
    assert {"push", "pull_request"} <= set(workflow["on"])
    python = uses(workflow)["actions/setup-python"]["with"]
    assert python["python-version"] == "3.11" and python["cache"] == "pip"
    assert "make test-lessons" in runs(workflow)
    assert workflow["jobs"]["lessons"]["env"]["PIP_EXTRA_INDEX_URL"] == CPU_INDEX  # no CUDA torch


@pytest.mark.parametrize(
    "name", ["integration.yml", "loose-ranges.yml", "lowest-versions.yml", "python-versions.yml"]
)
def test_scheduled_jobs_run_weekly_and_on_demand(name):
    workflow = load(name)
    assert "workflow_dispatch" in workflow["on"]
    (cron,) = [entry["cron"] for entry in workflow["on"]["schedule"]]
    minute, hour, day, month, weekday = cron.split()
    assert (day, month) == ("*", "*") and weekday.isdigit(), f"{cron!r} is not once a week"


def test_integration_installs_chromium_and_node_and_keeps_timings_and_screenshots():
    workflow = load("integration.yml")
    text = runs(workflow)
    assert "apt-get install" in text and "chromium" in text
    assert uses(workflow)["actions/setup-node"]["with"]["node-version"]
    assert "make test-integration" in text and "make test-binder-env" in text
    upload = uses(workflow)["actions/upload-artifact"]
    assert upload.get("if") == "always()"
    paths = upload["with"]["path"].split()
    assert "build/*.json" in paths and "tests/platform/browser/screenshots/" in paths
    assert workflow["jobs"]["integration"]["env"]["LMTIE_REQUIRE_BROWSER"] == "1"
    assert "actions/cache" in uses(workflow)


def test_loose_ranges_installs_pyproject_ranges_not_the_pins():
    workflow = load("loose-ranges.yml")
    assert "make test-loose" in runs(workflow) and CPU_INDEX in runs(workflow)
    recipe = (REPO / "delivery/ci.mk").read_text().split("\ntest-loose:", 1)[1]
    assert 'pip install --quiet -e ".[lessons]"' in recipe
    assert "constraints.txt" not in recipe and "-r requirements" not in recipe  # no pins
    assert "--nbval-lax" in recipe and "01_embedding_lookup.ipynb" in (REPO / "delivery/ci.mk").read_text()


def test_lowest_versions_installs_each_lower_bound_and_runs_every_lesson():
    """lowest-versions.yml: each `>=X` of pyproject.toml installed as `==X` (CPU torch), every lesson with nbval."""
    workflow = load("lowest-versions.yml")
    assert "make test-lowest" in runs(workflow) and CPU_INDEX in runs(workflow)
    assert uses(workflow)["actions/setup-python"]["with"]["python-version"] == "3.11"  # requires-python's lowest
    assert uses(workflow)["actions/upload-artifact"]["with"]["path"] == "build/lowest-freeze.txt"
    ci = (REPO / "delivery/ci.mk").read_text()
    recipe = ci.split("\ntest-lowest:", 1)[1]
    assert 'pip install --quiet -e ".[lessons]" $$pins' in recipe and "--nbval-lax" in recipe
    assert "constraints.txt" not in recipe and "-r requirements" not in recipe  # no pins but the lower bounds
    assert "LOWEST_LESSONS     ?= $$($(LOWEST_PY) -m tools.course)" in ci  # every lesson course.toml names, not one


def test_lowest_pins_are_pyprojects_lower_bounds():
    """The shell snippet of delivery/ci.mk's LOWEST_PINS, run here: one `name==X` per requirement, X its lower bound."""
    import tomllib

    ci = (REPO / "delivery/ci.mk").read_text()
    snippet = ci.split('LOWEST_PINS = $$($(LOWEST_PY) -c "', 1)[1].split('")', 1)[0]
    code = snippet.replace("\\\n\t", " ")  # make joins the continued lines
    pins = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True).stdout
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    requirements = project["dependencies"] + project["optional-dependencies"]["lessons"]
    assert len(pins.split()) == len(requirements)
    for pin, requirement in zip(pins.split(), requirements, strict=True):
        name, version = pin.split("==")
        assert requirement.startswith(f"{name}>={version}"), (pin, requirement)

def test_every_supported_python_runs_the_lessons():
    """lessons.yml runs 3.11 on every push; python-versions.yml each newer Python requires-python admits."""
    from delivery.install_check import supported_pythons

    weekly = load("python-versions.yml")["jobs"]["lessons"]
    every_push = load("lessons.yml")["jobs"]["lessons"]
    pushed = [step["with"]["python-version"] for step in every_push["steps"] if "setup-python" in step.get("uses", "")]
    assert pushed + weekly["strategy"]["matrix"]["python"] == supported_pythons()
    assert "make test-lessons" in runs(load("python-versions.yml")) and weekly["env"]["PIP_EXTRA_INDEX_URL"] == CPU_INDEX


def test_actions_are_current_majors():
    for name in ("lessons.yml", "integration.yml", "loose-ranges.yml", "lowest-versions.yml", "python-versions.yml",
                 "release.yml"):
        for step in steps(load(name)):
            if step.get("uses", "").startswith("actions/"):
                major = int(step["uses"].split("@v")[1])
                assert major >= 5, f"{name}: {step['uses']} runs on Node 20, which GitHub has retired"


def test_a_tag_releases_the_wheel_the_students_branch_the_hub_context_and_the_site():
    """release.yml: one pushed tag vX.Y.Z makes every artefact a term needs (docs/instructor.md, step 4)."""
    workflow = load("release.yml")
    assert workflow["on"] == {"push": {"tags": ["v*"]}}
    text = runs(workflow)
    assert "make release-check" in text and "make pdf" in text            # wheel + sdist checked; site + PDFs
    assert 'python -m delivery.student_branch --ref "$TAG"' in text and 'git push origin "students/$TAG"' in text
    assert "git archive" in text and "hub-context" in text                  # the image's build context
    assert 'gh release create "$TAG" build/dist/*' in text
    assert uses(workflow)["actions/upload-pages-artifact"]["with"]["path"] == "build/site"
    release, pages = workflow["jobs"]["release"], workflow["jobs"]["pages"]
    assert release["permissions"] == {"contents": "write"} and workflow["permissions"] == {"contents": "read"}
    assert pages["needs"] == "release" and pages["permissions"] == {"pages": "write", "id-token": "write"}
    assert "actions/deploy-pages" in uses(workflow) and release["env"]["PIP_EXTRA_INDEX_URL"] == CPU_INDEX
    assert release["env"]["TAG"] == "${{ github.ref_name }}"
