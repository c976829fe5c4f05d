"""Build instructor notebooks: every cell tagged ``exercise`` gets its reference solution.

For each ``notebooks/NN_*.ipynb``, each stub cell tagged ``exercise`` (``def name(...): raise
NotImplementedError``) is replaced by the source of ``lmtie_edu.solutions.lessonNN.name``; the
result is executed and written to ``build/solutions/NN_*_solutions.ipynb``. The build fails if an
exercise has no solution or a check does not print ✅ — so the solutions cannot rot.
"""

from __future__ import annotations

import importlib
import inspect
import re
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parent.parent
STUB_NAME = re.compile(r"^def (\w+)\(", re.MULTILINE)


def solution_source(lesson: str, name: str) -> str:
    module = importlib.import_module(f"lmtie_edu.solutions.lesson{lesson}")
    if not hasattr(module, name):
        raise SystemExit(f"notebook lesson {lesson} has an exercise {name!r} with no solution in {module.__name__}")
    return inspect.getsource(getattr(module, name))


def fill_in(nb, lesson: str) -> int:
    filled = 0
    for cell in nb.cells:
        if cell.cell_type == "code" and "exercise" in cell.metadata.get("tags", []):
            match = STUB_NAME.search(cell.source)
            if not match:
                raise SystemExit(f"lesson {lesson}: an exercise cell defines no function:\n{cell.source}")
            # keep what precedes the stub (e.g. an import), replace the stub itself
            cell.source = (cell.source[:match.start()] + "# Reference solution (lmtie_edu.solutions)\n"
                           + solution_source(lesson, match.group(1)))
            filled += 1
    return filled


def main() -> int:
    out_dir = ROOT / "build" / "solutions"
    out_dir.mkdir(parents=True, exist_ok=True)
    failures = 0
    for path in sorted((ROOT / "notebooks").glob("[0-9]*.ipynb")):
        lesson = path.name[:2]
        nb = nbformat.read(path, as_version=4)
        filled = fill_in(nb, lesson)
        NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}).execute()
        verdicts = [text for cell in nb.cells if cell.cell_type == "code" for out in cell.get("outputs", [])
                    if out.get("output_type") == "stream" for text in out["text"].splitlines()
                    if text[:1] in {"✅", "❌", "⏳"}]
        bad = [v for v in verdicts if not v.startswith("✅")]
        failures += len(bad)
        target = out_dir / path.name.replace(".ipynb", "_solutions.ipynb")
        nbformat.write(nb, target)
        print(f"{target.relative_to(ROOT)}: {filled} exercises filled, {len(verdicts) - len(bad)}/{len(verdicts)} checks pass")
        for verdict in bad:
            print("   " + verdict)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
