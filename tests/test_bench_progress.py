"""The benchmark harness and the progress bar."""

import json

from lmtie_edu import bench
from lmtie_edu.embedding import lookup_panel
from lmtie_edu.progress import Progress


def test_toggle_benchmark_really_redraws():
    panel = lookup_panel()
    b = bench.toggle_benchmark("lookup", lambda: panel, repeats=3)
    assert b.name == "lookup" and b.budget_seconds == bench.REDRAW_BUDGET_SECONDS
    assert panel.redraws == 1  # nothing happens until the benchmark is selected and set up
    b.setup()
    before = bytes(panel.image.value)
    b.run()
    # the run flipped the checkbox: the observer recomputed and re-rendered the PNG
    assert bytes(panel.image.value) != before and panel.redraws == 4  # 1 initial + 2 warm-up + 1 run


def test_operation_benchmarks_report_median_and_budget():
    assert bench.toggle_benchmark("x", lookup_panel).repeats >= 20  # the default `make bench` uses
    row = bench.measure(bench.toggle_benchmark("01 lookup panel: tie toggle", lookup_panel, repeats=3))
    assert row["name"] == "01 lookup panel: tie toggle"
    assert row["repeats"] == 3 and row["median_seconds"] > 0 and row["ok"] == (row["median_seconds"] <= 0.150)
    json.dumps(row)  # serialisable for build/bench.json


def test_progress_outside_a_kernel_shows_nothing_and_yields_everything():
    progress = Progress(range(5), "training")
    assert list(progress) == [0, 1, 2, 3, 4]
    assert progress.bar is None
    progress.note("ignored")  # no error without a bar


def test_progress_bar_counts_steps_when_shown():
    progress = Progress(range(3), "training", show=True)
    assert list(progress) == [0, 1, 2]
    assert progress.bar.value == 3 and progress.bar.max == 3 and progress.bar.bar_style == "success"
