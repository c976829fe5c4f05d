"""A leaner Jupyter server start for the learners' environments (a room of students pays it once each).

Measured on the course's 2-core runner, a JupyterLab server spends about 3.1 CPU-seconds starting; two of
the things it does are waste for this course:

1. **rfc3987-syntax.** ``jupyter_events`` asks for ``jsonschema[format-nongpl]``, whose ``rfc3987-syntax``
   builds ~35 Lark parsers for IRI syntax when jsonschema's format checkers are imported — 1.7 CPU-s here,
   for a format no Jupyter schema uses (python-jsonschema/jsonschema#1428, jupyter-server/jupyter_server#1559).
   Without the package jsonschema simply has no ``iri`` checker. It is uninstalled (``pip check`` stays clean).
2. **jupyter_lsp.** The language-server extension looks for language servers at start; none is installed.
   It is switched off in ``<prefix>/etc/jupyter/jupyter_server_config.d/lmtie-edu-lean.json`` (a learner or
   instructor who installs a language server can delete that file).

Usage: python -m delivery.lean_server [--prefix VENV]   (default: this interpreter's environment). Idempotent.
Run after every install of the requirements: `make lab` (Makefile), Binder's postBuild, the hub image.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

SLOW_PACKAGE = "rfc3987-syntax"
CONFIG_NAME = "lmtie-edu-lean.json"
CONFIG = {"ServerApp": {"jpserver_extensions": {"jupyter_lsp": False}}}


def config_path(prefix: Path) -> Path:
    return prefix / "etc" / "jupyter" / "jupyter_server_config.d" / CONFIG_NAME


def write_config(prefix: Path) -> bool:
    """Write the server config; True if the file changed."""
    path = config_path(prefix)
    text = json.dumps(CONFIG, indent=2) + "\n"
    if path.exists() and path.read_text(encoding="utf-8") == text:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return True


def remove_slow_package(python: str) -> bool:
    """Uninstall rfc3987-syntax from the environment of ``python``; True if it was there."""
    found = subprocess.run([python, "-c", "import importlib.util, sys; "
                            "sys.exit(0 if importlib.util.find_spec('rfc3987_syntax') else 1)"])
    if found.returncode != 0:
        return False
    subprocess.run([python, "-m", "pip", "uninstall", "--yes", "--quiet", SLOW_PACKAGE], check=True)
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prefix", type=Path, default=Path(sys.prefix), help="the environment (default: this one)")
    args = parser.parse_args(argv)
    prefix = args.prefix.resolve()
    python = str(prefix / "bin" / "python") if prefix != Path(sys.prefix).resolve() else sys.executable
    removed = remove_slow_package(python) if Path(python).exists() else False
    changed = write_config(prefix)
    print(f"{SLOW_PACKAGE}: {'uninstalled' if removed else 'not installed'}; "
          f"{config_path(prefix)}: {'written' if changed else 'up to date'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
