"""Write Binder's environment branch: what Binder builds, and nothing it pulls. ``python -m delivery.binder_branch``.

A Binder badge that points at ``main`` builds a new image (about 2 GB, minutes) for every commit, even one that
changes a sentence of a lesson. The documented way out (nbgitpuller's link generator, "Binder" tab) is two
branches: an *environment* branch that Binder builds, and a *content* branch that nbgitpuller pulls into the
running session. Here the content is the students' branch (``delivery/student_branch.py``), and the environment is
``binder-<ref>``, which this module writes with git's plumbing (the working tree is not touched). It holds

- ``binder/requirements.txt`` — the CPU index for torch, the course's exact pins (requirements.txt) with their
  constraints (``binder/constraints.txt``), the notebook pins of ``binder/requirements.txt``, nbgitpuller at the
  hub's pin, and the package itself as ``lmtie_edu @ git+<repository>@<commit>``;
- ``binder/runtime.txt``, a ``binder/postBuild`` that runs the two set-up scripts it needs (``delivery/quiet_lab.py``,
  ``delivery/lean_server.py``, copied), ``README.md`` and ``LICENSE``.

``<commit>`` is the last commit at or before ``--ref`` that changed the environment or the package
(:data:`ENVIRONMENT_PATHS`), not ``--ref`` itself: a commit that changes only notebooks (a lesson's text or cells)
leaves the branch as it is, so Binder reuses its image, and the badge's nbgitpuller link brings the new lessons; a
change to the package (a lesson's checks included) builds a new image. Each run adds one commit on
top of the branch's tip, or nothing when nothing changed.

    python -m delivery.binder_branch                 # binder-main from main
    python -m delivery.binder_branch --ref v0.2.0    # binder-v0.2.0 from the release tag
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from delivery.repository import repository_url
from delivery.student_branch import REPO, blob, branch_command, commit_files, git

PREFIX = "binder-"
# What the image is built from: a commit that changes none of these needs no new image.
ENVIRONMENT_PATHS = ("lmtie_edu", "pyproject.toml", "requirements.txt", "constraints.txt", "binder",
                     "deploy/jupyterhub/requirements-hub.txt", "delivery/quiet_lab.py", "delivery/lean_server.py")
SCRIPTS = ("delivery/quiet_lab.py", "delivery/lean_server.py")
COPIED = {"binder/runtime.txt": "binder/runtime.txt", "binder/constraints.txt": "constraints.txt",
          "LICENSE": "LICENSE", **{path: path for path in SCRIPTS}}

POST_BUILD = """\
#!/bin/bash
# Runs once at image build time, after requirements.txt (repo2docker): a quiet JupyterLab and a leaner server
# start (delivery/quiet_lab.py, delivery/lean_server.py), and matplotlib's font cache built now, not in a lesson.
set -euo pipefail
prefix="${NB_PYTHON_PREFIX:-$(python -c 'import sys; print(sys.prefix)')}"
python delivery/quiet_lab.py --prefix "$prefix"
python delivery/lean_server.py --prefix "$prefix"
python -c "import matplotlib.pyplot"
"""

README = """\
# lmtie_edu — Binder's environment

What Binder builds for the lessons of lmtie_edu {version}: the course's exact pins and the package at commit
{commit} of {url} (the last change to the package or its environment at or before `{ref}`). No lessons: a
launch link pulls them from the students' branch `students/{ref}` with nbgitpuller, so a change to a lesson
needs no new image. Written by `python -m delivery.binder_branch`; do not commit to it by hand.
"""


def branch_for(ref: str) -> str:
    """Binder's environment branch of ``ref``: ``binder-<ref>`` (a release tag vX.Y.Z gives binder-vX.Y.Z)."""
    return PREFIX + ref.removeprefix("refs/heads/").removeprefix("refs/tags/")


def environment_commit(ref: str, repo: Path = REPO) -> str:
    """The last commit at or before ``ref`` that changed one of :data:`ENVIRONMENT_PATHS`."""
    commit = git("log", "-1", "--format=%H", ref, "--", *ENVIRONMENT_PATHS, repo=repo).strip()
    if not commit:
        raise SystemExit(f"{ref} has no commit that touches the package or its environment")
    return commit


def _pins(text: str) -> list[str]:
    """The requirement lines of a requirements file: no comments, options, includes or editable installs."""
    return [line.split("#")[0].strip() for line in text.splitlines()
            if line.split("#")[0].strip() and not line.startswith(("-", "#"))]


def requirements(commit: str, url: str, repo: Path = REPO) -> str:
    """binder/requirements.txt of the environment branch, from the files at ``commit`` (an environment commit)."""
    def show(path: str) -> str:
        return git("show", f"{commit}:{path}", repo=repo)

    index = re.search(r"^--extra-index-url \S+", show("binder/requirements.txt"), re.MULTILINE)
    if not index:
        raise SystemExit("binder/requirements.txt must name the CPU index for torch (--extra-index-url ...)")
    hub = [pin for pin in _pins(show("deploy/jupyterhub/requirements-hub.txt")) if pin.startswith("nbgitpuller==")]
    lines = ["# Written by python -m delivery.binder_branch: the course's exact pins, and the package at one commit.",
             index[0], "-c constraints.txt", *_pins(show("requirements.txt")),
             *_pins(show("binder/requirements.txt")), *hub, f"lmtie_edu @ git+{url}@{commit}"]
    return "\n".join(lines) + "\n"


def write_branch(ref: str, branch: str, repo: Path = REPO, author: dict | None = None) -> str | None:
    """Add one commit with Binder's environment for ``ref`` to ``branch``; its id, or None when nothing changed."""
    url, _ = repository_url()
    commit = environment_commit(ref, repo)
    version = re.search(r'^__version__ = "([^"]+)"', git("show", f"{commit}:lmtie_edu/__init__.py", repo=repo),
                        re.MULTILINE)
    texts = {"binder/requirements.txt": requirements(commit, url, repo), "binder/postBuild": POST_BUILD,
             "README.md": README.format(version=version[1] if version else "?", commit=commit[:12], url=url,
                                        ref=ref.removeprefix("refs/heads/").removeprefix("refs/tags/"))}
    entries = [("100755" if path == "binder/postBuild" else "100644", blob(text, repo), path)
               for path, text in texts.items()]
    for target, source in COPIED.items():
        entries.append(("100644", git("rev-parse", f"{commit}:{source}", repo=repo).strip(), target))
    return commit_files(branch, sorted(entries, key=lambda entry: entry[2]),
                        f"Binder's environment from {ref} (package at {commit[:12]})", repo, author)


def main(argv: list[str] | None = None) -> int:
    return branch_command(__doc__.splitlines()[0], write_branch, branch_for, argv)

if __name__ == "__main__":
    sys.exit(main())
