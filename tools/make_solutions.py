"""Build instructor notebooks: every cell tagged ``exercise`` gets its reference solution.

For each ``notebooks/NN_*.ipynb``, each stub cell tagged ``exercise`` (``def name(...): raise
NotImplementedError``) is replaced by the source of ``lmtie_edu.lessonNN.solutions.name``.

- ``python -m tools.make_solutions`` executes the results (two at a time) and writes
  ``build/solutions/NN_*_solutions.ipynb`` for instructors. It fails if an exercise has no solution or a
  check does not print ✅ — so the solutions cannot rot.
- ``python -m tools.make_solutions --for-nbval DIR`` writes the same notebooks *unexecuted*, keeping the
  lesson's stored outputs as the reference for every cell but the checks, and appends one cell that
  prints how many checks passed. Strict nbval over DIR then re-executes each lesson with the solutions
  filled in and compares every output with the stored lesson: ``make test`` does this under another
  CPU's kernels, so one execution per lesson checks both the solutions and cross-CPU reproducibility.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import re
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from tools.course import LESSONS, notebooks
from tools.learner_path import LEARNER_CELL

ROOT = Path(__file__).resolve().parent.parent
STUB_NAME = re.compile(r"^def (\w+)\(", re.MULTILINE)
VERDICT = re.compile(r"^([✅❌⏳]) (\w+):", re.MULTILINE)
SUMMARY_CELL = """from lmtie_edu.kit.exercises import RESULTS

print(f"checks passed: {sum(RESULTS.values())} of {len(RESULTS)}")
print("failed:", sorted(name for name, passed in RESULTS.items() if not passed) or "none")"""


# What tools.learner_path.walk_panels prints for each lesson (course.toml's panel_settings): a lesson that
# gains or loses a panel control changes this line, on purpose.
PANEL_SETTINGS = {lesson.number: f"panels: 1, control settings made and redrawn: {lesson.panel_settings}\n"
                  for lesson in LESSONS}


def solution_source(lesson: str, name: str) -> str:
    module = importlib.import_module(f"lmtie_edu.lesson{lesson}.solutions")
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
            cell.source = (cell.source[:match.start()] + f"# Reference solution (lmtie_edu.lesson{lesson}.solutions)\n"
                           + solution_source(lesson, match.group(1)))
            filled += 1
    return filled


def stored_verdicts(cell) -> list[str]:
    """Names of the exercises whose verdict (✅/❌/⏳) this cell printed when the lesson was executed."""
    text = "".join(out.get("text", "") for out in cell.get("outputs", []) if out.get("output_type") == "stream")
    return [name for _, name in VERDICT.findall(text)]


def prepare_for_nbval(nb, lesson: str) -> int:
    """Fill in the solutions; checks are compared through one summary cell instead of their verdict text."""
    fill_in(nb, lesson)
    checked = []
    for cell in nb.cells:
        if cell.cell_type == "code" and stored_verdicts(cell):
            checked += stored_verdicts(cell)
            cell.metadata.setdefault("tags", []).append("nbval-ignore-output")  # ✅ here where the lesson shows ⏳
    if not checked:
        raise SystemExit(f"lesson {lesson}: no check cell printed a verdict; cannot verify its solutions")
    n = len(set(checked))
    count = max((c.execution_count or 0 for c in nb.cells if c.cell_type == "code"), default=0)
    summary = nbformat.v4.new_code_cell(SUMMARY_CELL, execution_count=count + 1)
    summary.outputs = [nbformat.v4.new_output("stream", name="stdout",
                                              text=f"checks passed: {n} of {n}\nfailed: none\n")]
    # the learner's path through the panels: every control set; its count is the stored output nbval compares
    walk = nbformat.v4.new_code_cell(LEARNER_CELL, execution_count=count + 2)
    walk.outputs = [nbformat.v4.new_output("stream", name="stdout", text=PANEL_SETTINGS[lesson])]
    nb.cells += [summary, walk]
    return n


def build_executed(path: Path, out_dir: Path) -> tuple[str, list[str]]:
    lesson = path.name[:2]
    nb = nbformat.read(path, as_version=4)
    filled = fill_in(nb, lesson)
    NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}).execute()
    verdicts = [text for cell in nb.cells if cell.cell_type == "code" for out in cell.get("outputs", [])
                if out.get("output_type") == "stream" for text in out["text"].splitlines()
                if text[:1] in {"✅", "❌", "⏳"}]
    bad = [v for v in verdicts if not v.startswith("✅")]
    target = out_dir / path.name.replace(".ipynb", "_solutions.ipynb")
    nbformat.write(nb, target)
    line = f"{target.relative_to(ROOT)}: {filled} exercises filled, {len(verdicts) - len(bad)}/{len(verdicts)} checks pass"
    return line, bad


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--for-nbval", metavar="DIR", help="write unexecuted notebooks for strict nbval into DIR")
    parser.add_argument("--jobs", type=int, default=2, help="notebooks executed at once (each kernel uses one core)")
    args = parser.parse_args(argv)
    lessons = notebooks()

    if args.for_nbval:
        out_dir = Path(args.for_nbval).resolve()
        out_dir.mkdir(parents=True, exist_ok=True)
        for old in out_dir.glob("*.ipynb"):
            old.unlink()
        for path in lessons:
            nb = nbformat.read(path, as_version=4)
            n = prepare_for_nbval(nb, path.name[:2])
            nbformat.write(nb, out_dir / path.name)
            print(f"{path.name}: {n} exercises filled in, ready for nbval")
        return 0

    out_dir = ROOT / "build" / "solutions"
    out_dir.mkdir(parents=True, exist_ok=True)
    failures = 0
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:  # each job waits on its own kernel process
        for line, bad in pool.map(lambda path: build_executed(path, out_dir), lessons):
            print(line)
            for verdict in bad:
                print("   " + verdict)
            failures += len(bad)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
