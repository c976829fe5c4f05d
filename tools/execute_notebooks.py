"""Re-execute notebooks in place, as `make notebooks` does: Restart & Run All, then save.

Each notebook runs top to bottom in a fresh kernel of this interpreter's environment, from the
notebook's own folder. Widget state is stored in the notebook metadata so that widgets render on
static viewers (GitHub, nbviewer). Execution timestamps are not recorded (no diff noise). A notebook that
differs from its committed copy (edits, or outputs a learner made) is first kept in build/backups/ (it says where).

Usage: python -m tools.execute_notebooks notebooks/01_embedding_lookup.ipynb [...]
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from tools.backup import keep_before_overwrite, say_kept


def execute(path: Path, *, keep_previous: bool = True) -> float:
    """Run ``path`` top to bottom and save it; ``keep_previous=False`` when the file was just written by a
    tool (nothing of a learner's to keep)."""
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
            cell.metadata.pop("execution", None)
    client = NotebookClient(
        nb, timeout=300, kernel_name="python3", record_timing=False, store_widget_state=True,
        resources={"metadata": {"path": str(path.parent)}},
    )
    started = time.perf_counter()
    client.execute()
    nb.metadata["kernelspec"] = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
    if keep_previous:
        say_kept(path, keep_before_overwrite(path))  # e.g. outputs a learner made in `make lab`
    nbformat.write(nb, path)
    return time.perf_counter() - started


def main(paths: list[str]) -> int:
    if not paths:
        print(__doc__)
        return 2
    for name in paths:
        seconds = execute(Path(name))
        print(f"executed {name} in {seconds:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
