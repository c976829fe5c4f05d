"""`make bench`'s harness (tools/bench.py) and its memory probe (tools/meta_memory.py)."""

import json

import pytest

from lmtie_edu.lesson01.lookup import lookup_panel
from tools import bench
from tools.course import LESSONS
from tools.meta_memory import build_memory


def test_toggle_benchmark_really_redraws():
    panel = lookup_panel()
    b = bench.toggle_benchmark("lookup", lambda: panel, repeats=3)
    assert b.name == "lookup" and b.budget_seconds == bench.REDRAW_BUDGET_SECONDS
    assert panel.redraws == 1  # nothing happens until the benchmark is selected and set up
    b.setup()
    before = bytes(panel.image.value)
    b.run()
    # the run flipped the checkbox: the observer recomputed and re-rendered the PNG
    assert bytes(panel.image.value) != before and panel.redraws == 5  # 1 initial, 2 warm-up, 1 after the breakdown, 1 run


def test_operation_benchmarks_report_median_and_budget():
    assert bench.toggle_benchmark("x", lookup_panel).repeats >= 20  # the default `make bench` uses
    row = bench.measure(bench.toggle_benchmark("01 lookup panel: tie toggle", lookup_panel, repeats=3))
    assert row["name"] == "01 lookup panel: tie toggle"
    assert row["repeats"] == 3 and row["median_seconds"] > 0 and row["ok"] == (row["median_seconds"] <= 0.150)
    json.dumps(row)  # serialisable for build/bench.json


def test_registry_names_one_operation_per_panel_and_every_lesson():
    benches = bench.registry()
    names = [b.name for b in benches]
    assert len(names) == len(set(names))
    assert {name[:2] for name in names if name != bench.FLOOR} == {lesson.number for lesson in LESSONS}
    assert names[0] == bench.FLOOR
    for b in benches:  # declaring is cheap: nothing is built before set-up
        assert b.setup is not None and b.budget_seconds > 0 and b.repeats >= 5
    retrain = next(b for b in benches if b.name.startswith("05"))
    assert retrain.budget_seconds == 1.0 and "retrain" in retrain.name and not retrain.redraw_only


def test_every_lesson_names_a_panel_factory_that_exists():
    """course.toml's panel targets resolve (building a panel is left to `make bench` and the lessons' tests)."""
    import importlib

    for lesson in LESSONS:
        module, _, factory = lesson.panel.partition(":")
        assert callable(getattr(importlib.import_module(module), factory)), lesson.panel


def test_lesson06_benchmark_sets_up_and_redraws():
    (b,) = [b for b in bench.registry() if b.name.startswith("06")]
    assert b.budget_seconds == bench.REDRAW_BUDGET_SECONDS
    b.setup()
    b.run()


def test_meta_build_benchmark_is_declared_with_both_budgets():
    (b,) = [b for b in bench.registry() if "70B" in b.name]
    assert b.budget_seconds == 1.0 and b.repeats >= 5
    # its set-up measures the build's memory in a fresh process (tested below); a timed run builds the model and returns no metrics (measure() would read them)
    assert b.run() is None
    row = bench.measure(bench.Benchmark(b.name, b.run, b.budget_seconds, repeats=1))
    assert row["repeats"] == 1 and row["median_seconds"] > 0


def test_70b_build_memory_is_small():
    memory = build_memory("Llama-2-70B")
    assert memory["parameters"] == 68_976_648_192
    assert 0 <= memory["extra_mib"] <= 100


def test_memory_of_an_unknown_architecture_is_refused():
    with pytest.raises(ValueError, match="name must be one of"):
        build_memory("Llama-4")


def test_redraw_budgets_are_set_from_the_floor_of_the_same_run(monkeypatch):
    declared = bench.registry()
    for b in declared:
        b.repeats = 3
    monkeypatch.setattr(bench, "registry", lambda: declared)
    floor, lookup = bench.run_operation_benchmarks("01 lookup")
    assert floor["name"] == bench.FLOOR and lookup["name"].startswith("01")
    expected = min(bench.REDRAW_BUDGET_SECONDS, bench.FLOOR_FACTOR * floor["median_seconds"])
    assert lookup["budget_seconds"] == pytest.approx(expected, abs=1e-4)
    assert lookup["floors"] == pytest.approx(lookup["median_seconds"] / floor["median_seconds"], abs=0.01)
    assert {"compute_and_build_ms", "draw_ms", "encode_ms"} <= set(lookup) or "live_compute_draw_encode_ms" in lookup
    assert lookup["ok"] == (lookup["median_seconds"] <= lookup["budget_seconds"])
