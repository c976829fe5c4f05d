"""The Kubernetes values (deploy/jupyterhub/config.yaml) serve the same hub pages as the tested hub.

The class test runs its hub with ``template_paths = [deploy/jupyterhub/templates]``; on Kubernetes the
template reaches the hub pod through ``hub.extraFiles`` (content from ``helm --set-file``) and must be
mounted in a folder that ``JupyterHub.template_paths`` lists, under the name JupyterHub looks for.
It also checks that the image pins the JupyterHub major of the chart the instructor guide names.
Fast, no hub started: part of the default test run.
"""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath

import yaml

DEPLOY = Path(__file__).resolve().parents[3] / "deploy" / "jupyterhub"
CONFIG = DEPLOY / "config.yaml"


def test_every_template_is_mounted_where_the_hub_looks():
    values = yaml.safe_load(CONFIG.read_text())
    hub = values["hub"]
    search_path = [PurePosixPath(p) for p in hub["config"]["JupyterHub"]["template_paths"]]
    mounted = {PurePosixPath(f["mountPath"]) for f in hub["extraFiles"].values()}
    for template in sorted(DEPLOY.glob("templates/*.html")):
        places = [m for m in mounted if m.name == template.name]
        assert places, f"{template.name} is not in hub.extraFiles of {CONFIG.name}"
        assert all(m.parent in search_path for m in places), f"{places} not under template_paths {search_path}"


def test_helm_command_fills_every_mounted_template():
    text = CONFIG.read_text()
    for key, entry in yaml.safe_load(text)["hub"]["extraFiles"].items():
        name = PurePosixPath(entry["mountPath"]).name
        pattern = rf"--set-file hub\.extraFiles\.{re.escape(key)}\.stringData=deploy/jupyterhub/templates/{re.escape(name)}"
        assert re.search(pattern, text), f"the helm command in {CONFIG.name} does not fill hub.extraFiles.{key}"
        assert (DEPLOY / "templates" / name).is_file()


def test_page_template_lets_requirejs_wait():
    page = (DEPLOY / "templates" / "page.html").read_text()
    assert '{% extends "templates/page.html" %}' in page  # JupyterHub's own page, one block added
    assert "require.config({ waitSeconds: 0 })" in page


# Zero to JupyterHub chart major -> the JupyterHub major its hub image runs. Source: the chart's changelog
# (jupyterhub/zero-to-jupyterhub-k8s, docs/source/changelog.md): 1.x ships JupyterHub 1.x; 2.0.0 upgraded it
# from 1.5 to 3.0; 3.0.0 from 3.x to 4.0.2; 4.0.0 from 4.1 to 5.x (4.4.0, 2026-06-10: JupyterHub 5.5.0).
# A new chart major: add its row from that changelog (or `helm show chart jupyterhub/jupyterhub --version X`).
CHART_TO_JUPYTERHUB_MAJOR = {1: 1, 2: 3, 3: 4, 4: 5}
GUIDE = DEPLOY.parents[1] / "docs" / "instructor" / "hub.md"
VERSION = r"(\d+)\.(\d+)\.(\d+)"


def chart_version_in_guide() -> tuple[int, int, int]:
    found = re.findall(rf"Zero to JupyterHub chart `{VERSION}`", GUIDE.read_text())
    assert len(found) == 1, f"{GUIDE.name} should name one chart version as 'Zero to JupyterHub chart `X.Y.Z`'"
    return tuple(map(int, found[0]))


def pinned(name: str) -> tuple[int, int, int]:
    pins = re.findall(rf"^{name}=={VERSION}\s*$", (DEPLOY / "requirements-hub.txt").read_text(), re.M)
    assert len(pins) == 1, f"requirements-hub.txt should pin {name} exactly once"
    return tuple(map(int, pins[0]))


def test_image_jupyterhub_major_matches_the_chart_the_guide_names():
    chart = chart_version_in_guide()
    assert chart[0] in CHART_TO_JUPYTERHUB_MAJOR, f"chart {chart}: add its JupyterHub major to the table"
    want, have = CHART_TO_JUPYTERHUB_MAJOR[chart[0]], pinned("jupyterhub")
    assert have[0] == want, (f"chart {'.'.join(map(str, chart))} runs JupyterHub {want}.x, "
                             f"requirements-hub.txt pins jupyterhub {'.'.join(map(str, have))}")


def test_helm_command_installs_the_chart_the_guide_names():
    found = re.findall(rf"--version {VERSION}", CONFIG.read_text())
    assert found and {tuple(map(int, f)) for f in found} == {chart_version_in_guide()}


def test_image_and_hub_test_install_the_same_pins():
    # The Dockerfile installs requirements.txt, which includes requirements-hub.txt; delivery/hub.mk (make test-hub)
    # installs requirements-hub.txt into build/hub-venv: one pin for both.
    assert "-r requirements-hub.txt" in (DEPLOY / "requirements.txt").read_text().splitlines()
    assert "HUB_PINS    := deploy/jupyterhub/requirements-hub.txt" in (DEPLOY.parents[1] / "delivery/hub.mk").read_text()
