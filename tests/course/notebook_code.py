"""Keep code that a lesson writes out in a cell identical to the package's copy of it.

A lesson shows the idea in its cells (a model class, a training step); the package needs the same code
for its panels, benchmarks and later lessons. One of them must not drift from the other: a test calls
:func:`assert_cell_matches` and fails, with both versions, as soon as they differ in anything but
comments and docstrings.

    from notebook_code import assert_cell_matches
    assert_cell_matches("02_logits_as_inner_products.ipynb", TinyLM)
"""

from __future__ import annotations

import ast
import inspect
import json
import textwrap
from pathlib import Path

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
Definition = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef


def _strip_docstrings(tree: ast.AST) -> ast.AST:
    for node in ast.walk(tree):
        if isinstance(node, Definition | ast.Module) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) \
                    and isinstance(first.value.value, str):
                node.body = node.body[1:] or [ast.Pass()]
    return tree


def _normalised(node: ast.AST) -> str:
    return ast.dump(_strip_docstrings(node), annotate_fields=False, include_attributes=False)


def cell_definition(notebook: str, name: str) -> ast.AST:
    """The top-level ``def name``/``class name`` of the lesson's code cells (the last one, as Python would)."""
    cells = json.loads((NOTEBOOKS / notebook).read_text(encoding="utf-8"))["cells"]
    found = None
    for cell in cells:
        if cell["cell_type"] != "code":
            continue
        source = "".join(cell["source"])
        # IPython magics and shell lines are not Python: leave them out before parsing
        source = "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines())
        for node in ast.parse(source).body:
            if isinstance(node, Definition) and node.name == name:
                found = node
    if found is None:
        raise AssertionError(f"{notebook} defines no top-level {name!r} in a code cell")
    return found


def assert_cell_matches(notebook: str, obj) -> None:
    """The lesson's cell defines ``obj`` with the very same code as the package (comments/docstrings aside)."""
    package = ast.parse(textwrap.dedent(inspect.getsource(obj))).body[0]
    cell = cell_definition(notebook, obj.__name__)
    if _normalised(package) != _normalised(cell):
        raise AssertionError(
            f"{obj.__module__}.{obj.__name__} and the cell of {notebook} that defines it differ; "
            f"change both (the lesson shows the code, the package runs it):\n"
            f"--- package\n{ast.unparse(_strip_docstrings(package))}\n--- notebook\n{ast.unparse(_strip_docstrings(cell))}")


def question_text(notebook: str, key: str) -> str:
    """The words of predict-first question ``key``: the markdown cell just above ``predict.<key>.ask()``."""
    cells = json.loads((NOTEBOOKS / notebook).read_text(encoding="utf-8"))["cells"]
    for above, cell in zip(cells, cells[1:], strict=False):
        if cell["cell_type"] == "code" and f"predict.{key}.ask()" in "".join(cell["source"]):
            return "".join(above["source"])
    raise AssertionError(f"{notebook} never asks predict.{key}.ask()")
