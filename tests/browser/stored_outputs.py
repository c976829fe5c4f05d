"""Compare a lesson as JupyterLab just ran it with the outputs stored in the notebook, by nbval's rules.

The browser test runs every lesson once, in JupyterLab, under another CPU's kernels (see the Makefile);
this module makes that one run also the strict output check, so no lesson has to run a second time.
The rules are nbval's own (nbval 0.11, the pinned version), using its functions where it has them:

- every code cell is compared unless tagged ``nbval-ignore-output`` or ``nbval-skip``
  (or marked by an NBVAL_ comment); a cell whose stored copy never ran is not compared;
- streams are merged per name, as nbval does on both sides;
- output types, metadata, tracebacks, execution counts, widget model ids and PNG/JPEG bytes are
  not compared (nbval's ``skip_compare`` without ``--nbdime``); everything else is, text exactly,
  after the sanitizing patterns of tests/nbval_sanitize.cfg.
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

import nbformat
from nbval.plugin import (
    _trim_base64,
    coalesce_streams,
    find_comment_markers,
    find_metadata_tags,
    get_sanitize_patterns,
    transform_streams_for_comparison,
)

SANITIZE_FILE = Path(__file__).resolve().parents[1] / "nbval_sanitize.cfg"
SKIP_COMPARE = ("metadata", "traceback", "prompt_number", "output_type", "name", "execution_count",
                "application/vnd.jupyter.widget-view+json", "image/png", "image/jpeg")


def sanitize_patterns(path: Path = SANITIZE_FILE) -> list[tuple[str, str]]:
    return get_sanitize_patterns(path.read_text())


def _sanitize(value, patterns):
    if not isinstance(value, str):
        return value
    for regex, replacement in patterns:
        value = re.sub(regex, replacement, value)
    return value


def _as_node(output: dict) -> nbformat.NotebookNode:
    """One output as nbformat holds it (JupyterLab may hand over multi-line text as a list of lines)."""
    output = nbformat.from_dict(output)
    if isinstance(output.get("text"), list):
        output.text = "".join(output.text)
    for key, value in output.get("data", {}).items():
        if isinstance(value, list):
            output.data[key] = "".join(value)
    return output


def _by_key(outputs: list, patterns) -> dict[str, list]:
    """nbval's comparison form: every compared key (MIME types flattened) → its values, in order."""
    flat = defaultdict(list)
    for output in transform_streams_for_comparison(coalesce_streams([_as_node(o) for o in outputs])):
        for key, value in output.items():
            if key in SKIP_COMPARE:
                continue
            if key == "data":
                for mime, data in value.items():
                    if mime not in SKIP_COMPARE:
                        flat[mime].append(_sanitize(data, patterns))
            else:
                flat[key].append(_sanitize(value, patterns))
    return flat


def _compared(cell) -> bool:
    options = {"check": True, **dict(find_metadata_tags(cell.metadata) or ()), **dict(find_comment_markers(cell.source))}
    return options["check"] and not options.get("skip") and cell.execution_count is not None


def _show(values: list) -> str:
    return "\n".join(_trim_base64(str(v)) for v in values) or "(nothing)"


def differences(stored: nbformat.NotebookNode, executed: dict, patterns=None) -> list[str]:
    """Every compared code cell whose outputs differ, with the stored and the new outputs."""
    patterns = sanitize_patterns() if patterns is None else patterns
    stored_cells = [c for c in stored.cells if c.cell_type == "code"]
    executed_cells = [c for c in executed["cells"] if c["cell_type"] == "code"]
    if len(stored_cells) != len(executed_cells):
        return [f"the notebook has {len(stored_cells)} code cells, the run in JupyterLab {len(executed_cells)}"]
    problems = []
    for number, (ref, run) in enumerate(zip(stored_cells, executed_cells, strict=True)):
        if not _compared(ref):
            continue
        want, got = _by_key(ref.outputs, patterns), _by_key(run.get("outputs", []), patterns)
        for key in sorted(set(want) | set(got)):
            if want.get(key) != got.get(key):
                problems.append(f"Cell {number} ({key}), first line {(ref.source.splitlines() or [''])[0][:60]!r}:\n"
                                f"<<< stored\n{_show(want.get(key, []))}\n>>> this run\n{_show(got.get(key, []))}")
                break
    return problems
