"""`import lmtie_edu` (and every lesson module) stays light: heavy libraries load only when used."""

import subprocess
import sys

HEAVY = ("transformers", "sklearn", "scipy", "safetensors", "nbformat", "nbclient")


def loaded_after(statement: str) -> list[str]:
    code = f"import sys\n{statement}\nprint(' '.join(m for m in {HEAVY!r} if m in sys.modules))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return done.stdout.split()


def test_package_import_loads_nothing_heavy():
    assert loaded_after("import lmtie_edu") == []
    assert "torch" not in subprocess.run(
        [sys.executable, "-c", "import sys, lmtie_edu; print(' '.join(sys.modules))"],
        capture_output=True, text=True, check=True).stdout.split()


def test_every_lesson_module_imports_without_heavy_libraries():
    statement = ("import importlib, pkgutil, lmtie_edu\n"
                 "for m in pkgutil.walk_packages(lmtie_edu.__path__, 'lmtie_edu.'):\n"
                 "    importlib.import_module(m.name)")
    assert loaded_after(statement) == []
