"""The package's layout holds: one folder per lesson, shared layers that import no lesson, no import cycle.

Read from the source (every ``import``/``from … import`` of every module, relative ones resolved), so a
lazy import inside a function counts as much as one at the top.
"""

import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "lmtie_edu"


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph() -> dict[str, set[str]]:
    """module -> the lmtie_edu modules (or packages) it imports."""
    modules = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        found = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found.update(a.name for a in node.names if a.name.startswith("lmtie_edu"))
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - node.level + 1]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                if not target.startswith("lmtie_edu"):
                    continue
                for alias in node.names:  # `from lmtie_edu.lesson01 import lookup` imports the module lookup
                    found.add(f"{target}.{alias.name}" if f"{target}.{alias.name}" in modules else target)
        graph[name] = found - {name}
    return graph


def _layer(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "lmtie_edu"


def test_shared_layers_import_no_lesson():
    bad = [(m, t) for m, targets in import_graph().items() if _layer(m) in ("shared", "kit")
           for t in targets if _layer(t).startswith("lesson")]
    assert not bad, f"a shared layer imports a lesson: {bad}"


def test_shared_does_not_depend_on_the_teaching_kit():
    bad = [(m, t) for m, targets in import_graph().items() if _layer(m) == "shared"
           for t in targets if _layer(t) == "kit"]
    assert not bad, f"lmtie_edu.shared imports the teaching kit: {bad}"


def test_no_lesson_imports_another_lesson():
    bad = [(m, t) for m, targets in import_graph().items() if _layer(m).startswith("lesson")
           for t in targets if _layer(t).startswith("lesson") and _layer(t) != _layer(m)]
    assert not bad, f"a lesson imports another lesson: {bad}"


def test_nothing_outside_the_layers_and_lessons():
    layers = {_layer(m) for m in import_graph()} - {"lmtie_edu", "shared", "kit"}
    assert all(re.fullmatch(r"lesson\d\d", layer) for layer in layers), sorted(layers)
    assert {"lesson01", "lesson07"} <= layers


def test_no_import_cycle():
    graph = import_graph()
    state: dict[str, str] = {}

    def visit(module: str, path: list[str]) -> None:
        state[module] = "open"
        for target in sorted(graph.get(module, ())):
            if state.get(target) == "open":
                raise AssertionError("import cycle: " + " -> ".join(path[path.index(target):] + [target]))
            if target not in state:
                visit(target, path + [target])
        state[module] = "done"

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])


def test_the_checker_sees_the_imports():  # the test above cannot pass by reading nothing
    graph = import_graph()
    assert "lmtie_edu.shared.validation" in graph["lmtie_edu.shared.models"]
    assert "lmtie_edu.lesson03.gradients" in graph["lmtie_edu.lesson03.figures"]
    assert "lmtie_edu.kit.panels" in graph["lmtie_edu.lesson01.lookup"]
