"""Every exercise: the reference solution passes its own check; a stub is reported as not attempted;
every exercise cell in a notebook has a registered checker and solution."""

import json
import re
from pathlib import Path

import pytest

from lmtie_edu.exercises import REGISTRY, Mismatch, expect_close, load_all

load_all()
NOTEBOOKS = sorted((Path(__file__).resolve().parent.parent / "notebooks").glob("[0-9]*.ipynb"))


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_solution_passes_its_check(name, capsys):
    check = REGISTRY[name]
    assert check(check.solution)
    assert capsys.readouterr().out.startswith(f"✅ {name}")


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_stub_is_not_attempted(name, capsys):
    def stub(*args, **kwargs):
        raise NotImplementedError

    assert not REGISTRY[name](stub)
    assert capsys.readouterr().out.startswith(f"⏳ {name}: not attempted yet")


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_crashing_answer_is_reported_not_raised(name, capsys):
    def crashes(*args, **kwargs):
        raise RuntimeError("boom")

    assert not REGISTRY[name](crashes)
    out = capsys.readouterr().out
    assert out.startswith(f"❌ {name}") and "hint:" in out


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_exercises_have_checks(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    stubs = ["".join(c["source"]) for c in nb["cells"] if "exercise" in c.get("metadata", {}).get("tags", [])]
    assert 2 <= len(stubs) <= 4, f"{path.name}: expected 2–4 exercises, found {len(stubs)}"
    for source in stubs:
        name = re.search(r"^def (\w+)\(", source, re.MULTILINE).group(1)
        assert name in REGISTRY, f"{path.name}: exercise {name!r} has no checker"
        assert REGISTRY[name].solution.__module__ == f"lmtie_edu.solutions.lesson{path.name[:2]}"
        assert "NotImplementedError" in source, f"{path.name}: the stub of {name!r} must raise NotImplementedError"


def test_expect_close_reports_shape_and_values():
    with pytest.raises(Mismatch, match="wrong shape"):
        expect_close([1.0, 2.0], [1.0, 2.0, 3.0], "x")
    with pytest.raises(Mismatch, match="wrong values"):
        expect_close([1.0, 2.0], [1.0, 2.5], "x")
    expect_close([1.0, 2.0], [1.0, 2.0], "x")
