"""How much of each lesson's own code a learner can see in its cells.

    share = cell code / (cell code + code of the lesson modules the notebook imports)

Lines are counted without blank lines, comments and docstrings. Left out on both sides, because a learner
skips them: exercise cells (tagged ``exercise``), the Colab set-up cell, the package's plumbing modules (set-up, figures helpers,
widgets, progress bars, validation, seeding, data loading, exercise checks) and, inside a lesson module,
functions that only build figures or panels (named ``*_figure``, ``*_panel``, ``draw_*``, ``plot_*``, or in
a module named ``figures``). A module imported whole (``from lmtie_edu.lesson03 import gradients``)
counts whole; ``from lmtie_edu.shared.training import evaluate`` counts ``evaluate`` and the module's top-level
definitions it uses, transitively — the code the lesson actually runs out of sight.

Usage: python -m tools.visible_code [--min 60] [notebooks/NN_*.ipynb ...]   (exit 1 if a lesson is below --min)
"""

from __future__ import annotations

import argparse
import ast
import io
import json
import sys
import tokenize
from pathlib import Path

from tools.course import notebooks

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "lmtie_edu"
# What a learner skips: set-up, plotting, widgets, progress, checks, data loading, timing.
COLAB_SETUP = "# Google Colab only:"  # the install cell delivery/colab.py stamps: not the lesson's code
PLUMBING = {"shared.notebook", "shared.progress", "shared.validation", "shared.seeding", "shared.toy_corpus",
            "shared.news_corpus", "lesson06.corpus"}


def _is_plumbing(module: str) -> bool:
    """The teaching kit, a lesson's exercise checks, argument checks (``checks``), questions, solutions and
    figures, and the modules named above."""
    leaf = module.rsplit(".", 1)[-1]
    return (module in PLUMBING or module.startswith("kit.") or leaf in ("exercises", "questions", "solutions", "checks")
            or leaf.endswith("figures"))


def _module_file(module: str) -> Path:
    return PACKAGE / (module.replace(".", "/") + ".py")


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


def imported_names(sources: list[str]) -> dict[str, set[str] | None]:
    """lmtie_edu modules a notebook imports → the names it takes from each (None: the whole module)."""
    wanted: dict[str, set[str] | None] = {}

    def add(module: str, name: str | None) -> None:
        if not _module_file(module).exists():
            return
        if name is None or wanted.get(module, set()) is None:
            wanted[module] = None
        else:
            wanted.setdefault(module, set()).add(name)

    for source in sources:
        source = "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines())
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "lmtie_edu":
                inner = node.module.split(".", 1)[1] if "." in node.module else ""
                for alias in node.names:
                    whole = f"{inner}.{alias.name}" if inner else alias.name
                    if _module_file(whole).exists():
                        add(whole, None)                # from lmtie_edu.lesson01 import lookup
                    elif inner:
                        add(inner, alias.name)          # from lmtie_edu.lesson01.lookup import name
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    parts = alias.name.split(".")
                    if parts[0] == "lmtie_edu" and len(parts) > 1:
                        add(".".join(parts[1:]), None)
    return wanted


def used_source(module: str, names: set[str] | None) -> str:
    """The module's source, or only the top-level definitions ``names`` reach (transitively)."""
    source = _module_file(module).read_text(encoding="utf-8")
    if names is None:
        return source
    tree = ast.parse(source)
    top = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            top[node.name] = node
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            for target in (node.targets if isinstance(node, ast.Assign) else [node.target]):
                if isinstance(target, ast.Name):
                    top[target.id] = node
    todo, seen = [n for n in names if n in top], set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        todo += [n.id for n in ast.walk(top[name]) if isinstance(n, ast.Name) and n.id in top and n.id not in seen]
    lines = source.splitlines()
    parts = []
    for node in {id(top[n]): top[n] for n in seen}.values():
        start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
        parts.append("\n".join(lines[start - 1:node.end_lineno]))
    return "\n\n".join(parts)


def lesson_share(path: Path) -> dict:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    code_cells = ["".join(c["source"]) for c in cells
                  if c["cell_type"] == "code" and "exercise" not in c.get("metadata", {}).get("tags", [])
                  and not "".join(c["source"]).startswith(COLAB_SETUP)]
    in_cells = sum(code_lines(source) for source in code_cells)
    wanted = imported_names(code_cells)
    hidden = {m: code_lines(used_source(m, wanted[m]), skip_figure_functions=True)
              for m in sorted(wanted) if not _is_plumbing(m)}
    total = in_cells + sum(hidden.values())
    return {"lesson": path.stem, "cell_lines": in_cells, "module_lines": hidden,
            "share": round(100 * in_cells / total, 1) if total else 100.0}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*")
    parser.add_argument("--min", type=float, default=None, help="fail if a lesson's share is below this percent")
    args = parser.parse_args(argv)
    paths = [Path(p) for p in args.notebooks] or notebooks()
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
