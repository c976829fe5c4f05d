"""A quiet JupyterLab for learners: no "official Jupyter news?" prompt and no update check over the network.

Writes the two settings into the environment's JupyterLab settings overrides,
``<prefix>/share/jupyter/lab/settings/overrides.json`` (JupyterLab's ``app_settings_dir``; not the
user's home), merging with whatever the file already holds. The keys are those of the installed
schema ``@jupyterlab/apputils-extension/notification.json``: ``fetchNews`` ("true" | "false" |
"none" = ask) and ``checkForUpdates`` (boolean). They are defaults: a learner can still switch them
on in Settings. Idempotent: a second run leaves the file byte for byte as it was.

Usage: python delivery/quiet_lab.py [--prefix VENV]      (default: this interpreter's sys.prefix)
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

PLUGIN = "@jupyterlab/apputils-extension:notification"
QUIET = {"fetchNews": "false", "checkForUpdates": False}


def overrides_path(prefix: Path) -> Path:
    return prefix / "share" / "jupyter" / "lab" / "settings" / "overrides.json"


def check_schema(prefix: Path) -> None:
    """Refuse keys the installed JupyterLab does not know (a silently ignored setting helps nobody)."""
    schema = prefix / "share" / "jupyter" / "lab" / "schemas" / "@jupyterlab" / "apputils-extension" / "notification.json"
    if not schema.exists():
        print(f"note: {schema} not found (JupyterLab not installed in {prefix}?); writing the settings anyway")
        return
    properties = json.loads(schema.read_text(encoding="utf-8"))["properties"]
    missing = [key for key in QUIET if key not in properties]
    if missing:
        raise SystemExit(f"{schema} has no setting {missing}; JupyterLab renamed them: update delivery/quiet_lab.py")


def write(prefix: Path) -> bool:
    """Merge QUIET into overrides.json; return True if the file changed."""
    path = overrides_path(prefix)
    settings = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    settings.setdefault(PLUGIN, {}).update(QUIET)
    text = json.dumps(settings, indent=2, sort_keys=True) + "\n"
    if path.exists() and path.read_text(encoding="utf-8") == text:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--prefix", type=Path, default=Path(sys.prefix))
    args = parser.parse_args(argv)
    check_schema(args.prefix)
    changed = write(args.prefix)
    print(f"{'wrote' if changed else 'unchanged:'} {overrides_path(args.prefix)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
