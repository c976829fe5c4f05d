"""A graded copy of the package, for the students' environment of a graded lab (a hub image, a lab machine).

    python -m tools.graded_package DIR      # writes DIR/lmtie_edu; then `pip install DIR` or put DIR first on PYTHONPATH
    python -m tools.graded_package .        # in place, in a checkout made for a graded image (the hub's Dockerfile)

The copy is the package with every ``lessonNN/solutions.py`` replaced by a stub that holds no code (its names
are placeholders, :func:`lmtie_edu.kit.grading.withheld`), no compiled bytecode, and a ``GRADED`` marker: in that environment a
check says the lab is graded when submitted, ``ex.hint`` stops before the worked answer, and no reference
solution can be imported or printed. The grader's environment (nbgrader autograde) keeps the full package.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STUB = '''"""Withheld: this is a graded lab, and the reference solutions are not installed here."""

from lmtie_edu.kit.grading import withheld_module_getattr

WITHHELD = True
__getattr__ = withheld_module_getattr(__name__)
'''


def write(target: Path) -> list[Path]:
    """Copy lmtie_edu/ into ``target`` with its solutions withheld; return the stubbed files."""
    package = target / "lmtie_edu"
    in_place = target.resolve() == ROOT  # e.g. the hub image's build, which installs from this checkout
    if not in_place:
        shutil.rmtree(package, ignore_errors=True)
        shutil.copytree(ROOT / "lmtie_edu", package, ignore=shutil.ignore_patterns("__pycache__"))
    stubbed = sorted(package.glob("lesson[0-9][0-9]/solutions.py"))
    for path in stubbed:
        path.write_text(STUB, encoding="utf-8")
    # Bytecode compiled before the stubbing (a build context's __pycache__) holds the real solutions.
    for cache in sorted(package.rglob("__pycache__"), reverse=True):
        shutil.rmtree(cache)
    for compiled in package.rglob("*.py[co]"):
        compiled.unlink()
    (package / "GRADED").write_text("solutions withheld by tools/graded_package.py\n", encoding="utf-8")
    for name in ("pyproject.toml", "README.md", "LICENSE"):  # so that `pip install DIR` works
        if not in_place:
            shutil.copy(ROOT / name, target / name)
    return stubbed


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("target", type=Path)
    args = parser.parse_args(argv)
    stubbed = write(args.target)
    print(f"graded copy in {args.target / 'lmtie_edu'}: {len(stubbed)} solutions modules withheld")
    return 0


if __name__ == "__main__":
    sys.exit(main())
