"""The Kubernetes values (deploy/jupyterhub/config.yaml) serve the same hub pages as the tested hub.

The class test runs its hub with ``template_paths = [deploy/jupyterhub/templates]``; on Kubernetes the
template reaches the hub pod through ``hub.extraFiles`` (content from ``helm --set-file``) and must be
mounted in a folder that ``JupyterHub.template_paths`` lists, under the name JupyterHub looks for.
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
