"""The one place that names the course's repository: ``[project.urls] Repository`` in pyproject.toml.

The Colab cell and badges (delivery/colab.py), Binder's environment branch (delivery/binder_branch.py) and the
site's launch links read it from here; a fork changes that line and re-stamps the lessons.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def repository_url(pyproject: Path = REPO / "pyproject.toml") -> tuple[str, str]:
    """The repository URL and where it came from."""
    urls = tomllib.loads(pyproject.read_text(encoding="utf-8")).get("project", {}).get("urls", {})
    if urls.get("Repository"):
        return urls["Repository"].rstrip("/").removesuffix(".git"), f"{pyproject.name} [project.urls] Repository"
    raise SystemExit(f"{pyproject} has no [project.urls] Repository: the badges and Colab's install need it")


def github_slug(url: str) -> str:
    match = re.fullmatch(r"https://github\.com/([\w.-]+/[\w.-]+)", url)
    if not match:
        raise SystemExit(f"the repository URL must look like https://github.com/OWNER/NAME; got {url!r}")
    return match.group(1)
