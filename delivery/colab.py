"""Stamp every lesson with an "Open in Colab" / Binder badge and a set-up cell that runs only in Colab.

The repository URL comes from ONE place: ``[project.urls] Repository`` in pyproject.toml.

What a stamped notebook looks like:

- cell 0, code: the set-up cell. Inside Google Colab (``"google.colab" in sys.modules``) it
  pip-installs ``lmtie_edu[lessons]`` from the repository, pinning the torch, numpy, ipykernel and
  ipywidgets that Colab already has, so pip keeps them (or fails loudly) instead of replacing the
  runtime's own builds. Anywhere else it does nothing and prints nothing.
- the lesson's title cell (the first markdown cell, unchanged),
- right after it, a markdown cell with the two badges (its own cell, so the title cell that the
  lesson's author edits is never touched).

Idempotent: a second run changes nothing. A URL or ref change rewrites the two cells in place.
Inserting the set-up cell shifts the stored execution counts by one, as Restart & Run All would.

Usage:
    python -m delivery.colab                      # stamp every lesson course.toml names, in place
    python -m delivery.colab --check              # exit 1 if a notebook lacks the current cells
    python -m delivery.colab --url URL a.ipynb    # another repository, other notebooks
    python -m delivery.colab --ref v0.2.0         # a term release: cell and badges point at the tag ...
    python -m delivery.colab                      # ... and back to main once the tag is cut
    python -m delivery.colab --ref v0.2.0 --links https://HUB   # print each lesson's nbgitpuller link, change nothing

nbgitpuller needs a branch, not a tag (its later pulls merge ``origin/<branch>``, which a tag does not have:
the second click fails), and a branch of the whole repository would copy the solutions into every student's
home; so the links for ``--ref R`` name the students' branch ``students/R`` that ``python -m
delivery.student_branch --ref R`` writes (docs/instructor.md, "Cutting a term release").
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from urllib.parse import urlencode

import nbformat

from delivery.repository import github_slug, repository_url
from tools.backup import keep_before_overwrite, say_kept
from tools.course import notebooks

REPO = Path(__file__).resolve().parents[1]
DEFAULT_REF = "main"

SETUP_MARKER = "# Google Colab only: install the course package there. Elsewhere this cell does nothing."
BADGE_MARKER = "colab.research.google.com/assets/colab-badge.svg"
SETUP_ID, BADGE_ID = "colab-setup", "colab-badges"
# Packages Colab ships and the install must not replace (a replaced torch/numpy needs a runtime restart).
KEEP = ("torch", "numpy", "ipykernel", "ipywidgets")


def install_target(url: str, ref: str) -> str:
    """The requirement the set-up cell installs (colab_env_check.py replaces it by a local path)."""
    return f"lmtie_edu[lessons] @ git+{url}@{ref}"


def setup_source(url: str, ref: str) -> str:
    keep = ", ".join(f'"{name}"' for name in KEEP)
    return f"""{SETUP_MARKER}
import sys

if "google.colab" in sys.modules:
    import importlib
    import subprocess
    from importlib.metadata import version

    keep = [f"{{name}}=={{version(name)}}" for name in ({keep})]  # Colab's own builds stay
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "{install_target(url, ref)}", *keep], check=True)
    importlib.invalidate_caches()
    print("lmtie_edu installed; kept", ", ".join(keep))"""


def binder_link(url: str, ref: str, notebook: str) -> str:
    """Binder builds the environment branch ``binder-<ref>`` (delivery/binder_branch.py), then nbgitpuller pulls the
    students' branch into the session and opens the lesson: the link nbgitpuller's generator writes ("Binder" tab).
    """
    from delivery.binder_branch import branch_for

    slug = github_slug(url)
    pull = "git-pull?" + urlencode({"repo": url, "branch": pull_branch(ref),
                                    "urlpath": f"lab/tree/{slug.split('/')[1]}/notebooks/{notebook}"})
    return f"https://mybinder.org/v2/gh/{slug}/{branch_for(ref)}?{urlencode({'urlpath': pull})}"


def stamped_ref(nb) -> str:
    """The branch or tag a stamped lesson's set-up cell installs from (main between releases, vX.Y.Z on one)."""
    setup = _find(nb, "code", SETUP_MARKER)
    found = re.search(r'git\+\S+@([^"\s]+)"', _source(nb.cells[setup])) if setup is not None else None
    return found[1] if found else DEFAULT_REF


def colab_link(url: str, ref: str, notebook: str) -> str:
    """Colab opens the lesson from the repository at ``ref`` (its set-up cell installs the package)."""
    return f"https://colab.research.google.com/github/{github_slug(url)}/blob/{ref}/notebooks/{notebook}"


def badge_source(url: str, ref: str, notebook: str) -> str:
    colab, binder = colab_link(url, ref, notebook), binder_link(url, ref, notebook)
    return (f"[![Open In Colab](https://{BADGE_MARKER})]({colab}) "
            f"[![Launch Binder](https://mybinder.org/badge_logo.svg)]({binder})")


def pull_branch(ref: str) -> str:
    """The branch nbgitpuller pulls for ``ref``: its students' branch, ``students/<ref>`` (delivery/student_branch.py)."""
    from delivery.student_branch import branch_for

    return branch_for(ref)


def pull_links(hub: str, url: str, ref: str, notebooks: list[str]) -> list[str]:
    """One nbgitpuller link per lesson, in the hub test's own format (delivery.hub.server.pull_link)."""
    from delivery.hub.server import pull_link

    return [pull_link(hub, url, name, branch=pull_branch(ref)) for name in notebooks]


def _source(cell) -> str:
    return "".join(cell.source) if isinstance(cell.source, list) else cell.source


def _find(nb, cell_type: str, needle: str) -> int | None:
    for index, cell in enumerate(nb.cells):
        if cell.cell_type == cell_type and needle in _source(cell):
            return index
    return None


def _shift_execution_counts(nb, by: int) -> None:
    for cell in nb.cells:
        if cell.cell_type == "code" and cell.execution_count is not None:
            cell.execution_count += by
            for output in cell.outputs:
                if output.get("execution_count") is not None:
                    output["execution_count"] += by


def _new_cell(factory, source: str, cell_id: str, nb):
    cell = factory(source)
    if nb.nbformat_minor >= 5:
        cell.id = cell_id
    else:
        cell.pop("id", None)
    return cell


def stamp(nb, notebook_name: str, url: str, ref: str = DEFAULT_REF) -> bool:
    """Put the set-up cell and the badges into ``nb`` (in place); True if anything changed."""
    changed = False
    setup, badges = setup_source(url, ref), badge_source(url, ref, notebook_name)
    index = _find(nb, "code", SETUP_MARKER)
    if index is None:
        executed = any(c.cell_type == "code" and c.execution_count for c in nb.cells)
        if executed:
            _shift_execution_counts(nb, 1)
        cell = _new_cell(nbformat.v4.new_code_cell, setup, SETUP_ID, nb)
        cell.execution_count = 1 if executed else None  # what Restart & Run All gives it: no output
        nb.cells.insert(0, cell)
        changed = True
    elif index != 0 or _source(nb.cells[index]) != setup:
        cell = nb.cells.pop(index)
        cell.source = setup
        nb.cells.insert(0, cell)
        changed = True
    title = next((i for i, c in enumerate(nb.cells) if c.cell_type == "markdown" and BADGE_MARKER not in _source(c)),
                 None)
    if title is None:
        raise SystemExit(f"{notebook_name}: no title (markdown) cell to put the badges after")
    index = _find(nb, "markdown", BADGE_MARKER)
    if index is None:
        nb.cells.insert(title + 1, _new_cell(nbformat.v4.new_markdown_cell, badges, BADGE_ID, nb))
        changed = True
    elif index != title + 1 or _source(nb.cells[index]) != badges:
        cell = nb.cells.pop(index)
        cell.source = badges
        title = title - 1 if index < title else title
        nb.cells.insert(title + 1, cell)
        changed = True
    return changed


def render(nb) -> str:
    """The file text nbformat.write produces (what execute_notebooks.py saves)."""
    return nbformat.writes(nb) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("notebooks", nargs="*", type=Path)
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if a notebook is not stamped")
    parser.add_argument("--url", help="repository URL (default: pyproject.toml [project.urls] Repository)")
    parser.add_argument("--ref", help="branch or tag the badges and the install use (default: main; --check alone "
                        "also accepts every lesson stamped with the current version's tag vX.Y.Z)")
    parser.add_argument("--links", metavar="HUB", help="print the nbgitpuller links for HUB and --ref; change nothing")
    args = parser.parse_args(argv)
    url, _origin = (args.url, "--url") if args.url else repository_url()
    github_slug(url)
    paths = args.notebooks or notebooks()
    if args.links:
        print("\n".join(pull_links(args.links, url, args.ref or DEFAULT_REF, [p.name for p in paths])))
        return 0
    ref = args.ref or DEFAULT_REF
    if args.check and args.ref is None:
        # Between releases the lessons point at main; on a release commit, at that release's tag (all of them).
        from delivery.release_check import course_version

        results = {r: stale_notebooks(paths, url, r) for r in (DEFAULT_REF, f"v{course_version()}")}
        ref = next((r for r, pairs in results.items() if not pairs), DEFAULT_REF)
        pairs = results[ref]
    else:
        pairs = stale_notebooks(paths, url, ref)
    stale = [path for path, _new in pairs]
    if args.check and stale:
        print("not stamped with the current Colab set-up cell and badges (run `python -m delivery.colab`): "
              + ", ".join(p.name for p in stale), file=sys.stderr)
        return 1
    if not args.check:
        for path, new in pairs:
            say_kept(path, keep_before_overwrite(path))
            path.write_text(new, encoding="utf-8")
            print(f"stamped {path} ({ref})")
    if not stale:
        print(f"{len(paths)} notebook(s) already stamped ({url}@{ref})")
    return 0


def stale_notebooks(paths: list[Path], url: str, ref: str) -> list[tuple[Path, str]]:
    """The notebooks whose stamp differs from ``ref``'s, each with its stamped text."""
    stale = []
    for path in paths:
        text = path.read_text(encoding="utf-8")
        nb = nbformat.reads(text, as_version=4)
        stamp(nb, path.name, url, ref)
        new = render(nb)
        if json.loads(new) != json.loads(text):
            stale.append((path, new))
    return stale

if __name__ == "__main__":
    sys.exit(main())
