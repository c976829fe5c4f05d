"""How much of each lesson's own code a learner can see in its cells.

    share = cell code / (cell code + code of the lesson modules the notebook imports)

Lines are counted without blank lines, comments and docstrings. Left out on both sides, because a learner
skips them: exercise cells (tagged ``exercise``), the package's plumbing modules (set-up, figures helpers,
widgets, progress bars, validation, seeding, data loading, exercise checks) and, inside a lesson module,
functions that only build figures or panels (named ``*_figure``, ``*_panel``, ``draw_*``, ``plot_*``, or in
a module whose name ends in ``_figures``). Imports are followed one level: a module the notebook imports
directly counts whole (less the above).

Usage: python tools/visible_code.py [--min 60] [notebooks/NN_*.ipynb ...]   (exit 1 if a lesson is below --min)
"""

from __future__ import annotations

import argparse
import ast
import io
import json
import sys
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "lmtie_edu"
# What a learner skips: set-up, plotting, widgets, progress, checks, data loading, timing.
PLUMBING = {"notebook", "plotting", "widgets", "progress", "validation", "seeding", "bench", "exercises",
            "solutions", "toy_corpus", "corpus"}


def _is_figure_only(name: str) -> bool:
    bare = name.lstrip("_")
    return bare.endswith(("_figure", "_panel", "_figures")) or bare.startswith(("draw_", "plot_"))


def _docstring_lines(tree: ast.AST) -> set[int]:
    lines = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
                lines.update(range(first.lineno, first.end_lineno + 1))
    return lines


def _excluded_lines(tree: ast.Module) -> set[int]:
    """Lines of top-level functions (and methods) that only build figures or panels."""
    lines = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and _is_figure_only(node.name):
            start = min([node.lineno] + [d.lineno for d in node.decorator_list])
            lines.update(range(start, node.end_lineno + 1))
    return lines


def code_lines(source: str, *, skip_figure_functions: bool = False) -> int:
    """Non-blank, non-comment lines that are not docstrings (nor figure-only functions, if asked)."""
    source = "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines())
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return sum(1 for line in source.splitlines() if line.strip() and not line.strip().startswith("#"))
    skip = _docstring_lines(tree) | (_excluded_lines(tree) if skip_figure_functions else set())
    counted = set()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
                          tokenize.ENDMARKER):
            continue
        for line in range(token.start[0], token.end[0] + 1):
            if line not in skip:
                counted.add(line)
    return len(counted)


def imported_modules(sources: list[str]) -> set[str]:
    """Top-level lmtie_edu modules a notebook imports (``from lmtie_edu import x``, ``from lmtie_edu.x import y``)."""
    names = set()
    for source in sources:
        source = "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines())
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module:
                parts = node.module.split(".")
                if parts[0] != "lmtie_edu":
                    continue
                if len(parts) == 1:
                    names.update(alias.name for alias in node.names)
                else:
                    names.add(parts[1])
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    parts = alias.name.split(".")
                    if parts[0] == "lmtie_edu" and len(parts) > 1:
                        names.add(parts[1])
    return {name for name in names if (PACKAGE / f"{name}.py").exists()}


def lesson_share(path: Path) -> dict:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    code_cells = ["".join(c["source"]) for c in cells
                  if c["cell_type"] == "code" and "exercise" not in c.get("metadata", {}).get("tags", [])]
    in_cells = sum(code_lines(source) for source in code_cells)
    modules = sorted(m for m in imported_modules(code_cells) if m not in PLUMBING and not m.endswith("_figures"))
    hidden = {m: code_lines((PACKAGE / f"{m}.py").read_text(encoding="utf-8"), skip_figure_functions=True)
              for m in modules}
    total = in_cells + sum(hidden.values())
    return {"lesson": path.stem, "cell_lines": in_cells, "module_lines": hidden,
            "share": round(100 * in_cells / total, 1) if total else 100.0}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*")
    parser.add_argument("--min", type=float, default=None, help="fail if a lesson's share is below this percent")
    args = parser.parse_args(argv)
    paths = [Path(p) for p in args.notebooks] or sorted((ROOT / "notebooks").glob("[0-9]*.ipynb"))
    print(f"{'lesson':34} {'in cells':>8} {'in modules':>10} {'visible':>8}  modules")
    low = []
    for path in paths:
        row = lesson_share(path)
        hidden = sum(row["module_lines"].values())
        detail = ", ".join(f"{m} {n}" for m, n in row["module_lines"].items()) or "-"
        print(f"{row['lesson']:34} {row['cell_lines']:8} {hidden:10} {row['share']:7.1f}%  {detail}")
        if args.min is not None and row["share"] < args.min:
            low.append(row["lesson"])
    if low:
        print(f"below {args.min:.0f} %: {', '.join(low)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
