"""A cell that needs an earlier cell says so: the NameError a learner gets when running a section first.

:func:`install` (called by ``setup_lesson``) registers an IPython handler for ``NameError``. When the missing
name is one an earlier cell of the lesson defines, the learner reads which section and which cell make it,
and how to run everything above; other NameErrors are shown as usual. The lesson is read from the notebook
file the kernel runs (``JPY_SESSION_NAME``, set by Jupyter servers); where that is unknown (e.g. Colab), the
message still says to run the cells above first.
"""

from __future__ import annotations

import ast
import json
import os
import re
import sys
from pathlib import Path

from .language import N_, tr

RUN_ABOVE = N_("run the cells above it first (Run → Run All Above Selected Cell), then this one")


def _names_defined(source: str) -> list[str]:
    source = "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines())
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    names = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.append(node.name)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names += [(a.asname or a.name).split(".")[0] for a in node.names]
        elif isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign | ast.For | ast.With):
            targets = node.targets if isinstance(node, ast.Assign) else \
                [i.optional_vars for i in node.items if i.optional_vars] if isinstance(node, ast.With) else [node.target]
            for target in targets:
                names += [n.id for n in ast.walk(target) if isinstance(n, ast.Name)]
    return names


def definitions(notebook: Path) -> dict[str, tuple[str, str]]:
    """name -> (section heading, first line of the code cell) of the first cell that defines it."""
    cells = json.loads(Path(notebook).read_text(encoding="utf-8"))["cells"]
    found, section = {}, tr("the start of the lesson")
    for cell in cells:
        source = "".join(cell["source"])
        if cell["cell_type"] == "markdown":
            heading = re.search(r"^#{1,3} (.+)$", source, re.MULTILINE)
            section = heading.group(1).strip() if heading else section
        elif cell["cell_type"] == "code":
            first = next((line for line in source.splitlines() if line.strip() and not line.startswith("#")), "")
            for name in _names_defined(source):
                found.setdefault(name, (section, first[:60]))
    return found


def message(name: str, known: dict[str, tuple[str, str]]) -> str:
    if name in known:
        section, first = known[name]
        return tr("name {name} is not defined yet: an earlier cell of this lesson makes it — in “{section}”, "
                  "the cell that begins `{first}`. This cell needs it: {run_above}.",
                  name=repr(name), section=section, first=first, run_above=tr(RUN_ABOVE))
    return tr("name {name} is not defined. If it comes from an earlier cell of this lesson, {run_above}.",
              name=repr(name), run_above=tr(RUN_ABOVE))


def install(shell=None) -> bool:
    """Register the NameError handler in the running IPython kernel; False outside IPython."""
    if shell is None:
        try:
            from IPython import get_ipython
        except ImportError:
            return False
        shell = get_ipython()
    if shell is None:
        return False
    path = os.environ.get("JPY_SESSION_NAME", "")
    try:
        known = definitions(Path(path)) if path.endswith(".ipynb") and Path(path).is_file() else {}
    except (OSError, ValueError, KeyError):
        known = {}

    def explain(shell, etype, value, tb, tb_offset=None):
        missing = re.match(r"name '(\w+)' is not defined", str(value))
        if missing:
            print(f"NameError: {message(missing.group(1), known)}", file=sys.stderr)
            return None
        return shell.showtraceback((etype, value, tb), tb_offset=tb_offset)

    shell.set_custom_exc((NameError,), explain)
    return True
