"""Make a venv that also sees the course's .venv: ``python -m delivery.layered_venv build/x-venv``.

Suites that need extra tools the learners' environment must not carry (JupyterHub, nbgrader, …) install
them into such a venv: a ``.pth`` file adds the project venv's site-packages, so the course's own JupyterLab,
ipywidgets, torch and lmtie_edu are used as they are, and nothing is installed twice or changed under them.
"""

from __future__ import annotations

import argparse
import subprocess
import venv
from pathlib import Path


def layered_venv(target: Path, base_python: Path) -> Path:
    """Create ``target`` (a venv made by ``base_python``) whose site-packages include the base venv's."""
    if not base_python.exists():
        raise SystemExit(f"{base_python} does not exist: install the course first (make test)")
    venv.EnvBuilder(with_pip=True, clear=True).create(target)
    query = "import sysconfig as s; print(s.get_paths()['purelib']); print(s.get_paths()['platlib'])"
    base_dirs = sorted(set(subprocess.run([str(base_python), "-c", query], capture_output=True, text=True,
                                          check=True).stdout.split()))
    python = target / "bin" / "python"
    own_site = Path(subprocess.run([str(python), "-c", "import sysconfig as s; print(s.get_paths()['purelib'])"],
                                   capture_output=True, text=True, check=True).stdout.strip())
    lines = [f"import site; site.addsitedir({str(Path(d).resolve())!r})\n" for d in base_dirs]
    (own_site / "zz_lmtie_project_venv.pth").write_text("".join(lines))
    return python


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("target", type=Path, help="the venv to create, e.g. build/nbgrader-venv")
    parser.add_argument("--base", type=Path, default=Path(".venv/bin/python"), help="the course venv's python")
    args = parser.parse_args()
    python = layered_venv(args.target, args.base)
    print(f"{args.target}: a venv over {args.base.parent.parent} ({python})")


if __name__ == "__main__":
    main()
