"""`make bench`: how long a learner waits.

Measures, on this machine:
- each notebook's headless execution time (a fresh kernel per notebook, like nbval) and the
  kernel's peak memory — budget 20 s, or ``metadata.lmtie_edu.budget_seconds`` of the notebook;
- the *floor*: the cheapest redraw a panel can have here — a two-panel matplotlib figure (12 bars, a
  12-point line, a title each) built, drawn and encoded to PNG by a ``TiePanel``;
- every interactive operation in ``registry()`` below (median of ≥ 5 runs, 21 for a redraw), e.g. a
  redraw-only *tie weights* toggle — budget 1.5 × the floor measured in the same run (and never above
  150 ms); a retraining toggle — 1 s. Each redraw is broken down into compute + figure building, drawing and
  PNG encoding.

Prints a table and writes ``build/bench.json``. Exits 1 if a budget is missed.
Run: ``python -m tools.bench [--only NAME_SUBSTRING] [--no-notebooks]``.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from tools.bench_kinds import (
    FLOOR,
    FLOOR_FACTOR,
    REDRAW_BUDGET_SECONDS,
    Benchmark,
    floor_panel,
    toggle_benchmark,
)
from tools.course import LESSONS, notebooks

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK_BUDGET_SECONDS = 20.0




def _factory(target: str) -> Callable:
    """``"module:function"`` → a callable that imports the module only when called."""
    module_name, function_name = target.split(":")

    def make(*args, **kwargs):
        return getattr(importlib.import_module(module_name), function_name)(*args, **kwargs)

    return make


def synthetic_runs(knob=(75, 300), seeds=(0, 1), points: int = 10) -> list[dict]:
    """Made-up runs with the shape of real ones (lesson 06's panel timed without training; also its tests)."""
    import torch

    generator = torch.Generator().manual_seed(0)
    runs = []
    for articles in knob:
        for tie in (True, False):
            for seed in seeds:
                noise = torch.rand(points, generator=generator).mul(0.05).tolist()
                train = [6.0 - 0.2 * i for i in range(points)]
                select = [5.5 - 0.1 * i + n for i, n in enumerate(noise)]
                runs.append({"tie": tie, "articles": articles, "seed": seed, "parameters": 1000 if tie else 2000,
                             "eval_steps": [50 * (i + 1) for i in range(points)], "train_curve": train,
                             "select_curve": select, "train": {"all": train[-1]}, "final": {"all": select[-1]},
                             "early": {"all": min(select)}})
    return runs


def lesson06_panel():
    """Lesson 06's panel on stored runs shaped like the lesson's (2 amounts × tied/untied × 3 seeds, 10 curve
    points): the redraw never trains, so made-up curves time it exactly."""
    from lmtie_edu.lesson06 import figures as lm_figures

    return lm_figures.tying_panel(synthetic_runs(knob=(75, 300), seeds=(0, 1, 2)))


def lesson08_panel():
    """Lesson 08's panel on made-up runs shaped like the lesson's (3 models × 3 seeds, 12 curve points): the
    redraw never trains."""
    from lmtie_edu.lesson08 import figures as gpt_figures

    return gpt_figures.experiment_panel(gpt_figures.example_runs())


def meta_build_benchmark() -> Benchmark:
    """Build Llama-2-70B on the meta device (budget 1 s) and report the extra memory (budget 100 MiB)."""
    from lmtie_edu.lesson04 import architectures
    from tools.meta_memory import build_memory

    name, bench = "Llama-2-70B", Benchmark("04 build Llama-2-70B on meta (d=8192, L=80)", lambda: None, 1.0, 5)

    def setup() -> None:  # imports, one untimed build and the memory probe in its own process
        total = sum(p.numel() for p in architectures.build_uncached(name).parameters())
        memory = build_memory(name)
        bench.extra.update(extra_mib=memory["extra_mib"], python_peak_mib=memory["python_peak_mib"],
                           mib_budget=100, mib_ok=memory["extra_mib"] <= 100,
                           real_fp32_gib=round(4 * total / architectures.GIB, 1))

    def run() -> None:
        architectures.build_uncached(name)  # uncached: every repeat really builds

    bench.run, bench.setup = run, setup
    return bench


# Every interactive operation a learner waits for: each lesson's panel as course.toml names it ("module:factory",
# imported only when its benchmark is selected: the lessons' modules know nothing of timing), any further
# benchmark a lesson names (lesson 04: a 70B model built on the meta device), and the floor first.
def registry() -> list[Benchmark]:
    benches = [toggle_benchmark(FLOOR, floor_panel, redraw_only=False)]
    for lesson in LESSONS:
        if lesson.panel_budget is None:
            benches.append(toggle_benchmark(f"{lesson.number} {lesson.panel_name}", _factory(lesson.panel)))
        else:  # a toggle that recomputes (lesson 05 retrains 3 seeds from scratch: there is no cache to hit)
            benches.append(toggle_benchmark(f"{lesson.number} {lesson.panel_name}", _factory(lesson.panel),
                                            budget_seconds=lesson.panel_budget, repeats=5, redraw_only=False))
        if lesson.extra_benchmark:
            benches.append(_factory(lesson.extra_benchmark)())
    return benches


def measure(bench: Benchmark) -> dict:
    """Set up once, then time ``bench.repeats`` runs; report the median against the budget."""
    if bench.setup is not None:
        bench.setup()
    times, extra = [], dict(bench.extra)
    for _ in range(bench.repeats):
        started = time.perf_counter()
        metrics = bench.run()
        times.append(time.perf_counter() - started)
        extra.update(metrics or {})
    median = statistics.median(times)
    return {"kind": "operation", "name": bench.name, "median_seconds": round(median, 4),
            "max_seconds": round(max(times), 4), "repeats": bench.repeats,
            "budget_seconds": bench.budget_seconds, **extra,
            # a benchmark may report further budgets as extras named *_ok (e.g. memory): all must hold
            "ok": median <= bench.budget_seconds and all(v for k, v in extra.items() if k.endswith("_ok"))}


def run_operation_benchmarks(only: str | None) -> list[dict]:
    """Every selected benchmark; the floor first (always), and each redraw-only toggle's budget set from it."""
    benches = registry()
    floor = measure(next(b for b in benches if b.name == FLOOR))
    floor.update(budget_seconds=None, ok=True)  # the reference the budgets are made of, not judged itself
    rows = [floor]
    for bench in benches:
        if bench.name == FLOOR or (only and only not in bench.name):
            continue
        if bench.redraw_only:
            bench.budget_seconds = round(min(REDRAW_BUDGET_SECONDS, FLOOR_FACTOR * floor["median_seconds"]), 4)
        row = measure(bench)
        if bench.redraw_only:
            row["floors"] = round(row["median_seconds"] / floor["median_seconds"], 2)
        rows.append(row)
    return rows


def execute_notebook(path: Path) -> dict:
    """Execute one notebook in a fresh kernel (run in a child process so its memory is measurable)."""
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    budget = float(nb.metadata.get("lmtie_edu", {}).get("budget_seconds", NOTEBOOK_BUDGET_SECONDS))
    client = NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}})
    started = time.perf_counter()
    client.execute()
    seconds = time.perf_counter() - started
    # The kernel was our child and has exited: RUSAGE_CHILDREN holds its peak resident memory (KiB).
    peak_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    name = f"zh_CN/{path.name}" if path.parent.name == "zh_CN" else path.name
    return {"kind": "notebook", "name": name, "seconds": round(seconds, 2), "budget_seconds": budget,
            "kernel_peak_mib": round(peak_mib, 1), "ok": seconds <= budget}


def run_notebook_benchmarks(only: str | None) -> list[dict]:
    rows = []
    lessons = ROOT / "notebooks"
    for path in notebooks() + notebooks(chinese=True):  # both editions
        if only and only not in str(path.relative_to(lessons)):
            continue
        env = dict(os.environ, PYDEVD_DISABLE_FILE_VALIDATION="1")
        done = subprocess.run([sys.executable, "-m", "tools.bench", "--execute-one", str(path)],
                              capture_output=True, text=True, env=env, cwd=ROOT)
        if done.returncode != 0:
            rows.append({"kind": "notebook", "name": str(path.relative_to(lessons)), "ok": False,
                         "error": done.stderr[-2000:]})
            continue
        rows.append(json.loads(done.stdout.strip().splitlines()[-1]))
    return rows


def print_table(rows: list[dict]) -> None:
    print(f"{'benchmark':58} {'measured':>12} {'budget':>9}  ok  extra")
    for row in rows:
        if row["kind"] == "notebook":
            measured = f"{row['seconds']:.2f} s" if "seconds" in row else "FAILED"
            extra = f"kernel peak {row['kernel_peak_mib']:.0f} MiB" if "kernel_peak_mib" in row else row.get("error", "")
        else:
            measured = f"{row['median_seconds'] * 1000:.1f} ms"
            extra = ", ".join(f"{k}={v}" for k, v in row.items()
                              if k not in {"kind", "name", "median_seconds", "budget_seconds", "ok", "repeats"})
        budget = row.get("budget_seconds")
        budget_text = "" if budget is None else (f"{budget:.0f} s" if row["kind"] == "notebook" else f"{budget * 1000:.0f} ms")
        print(f"{row['name'][:58]:58} {measured:>12} {budget_text:>9}  {'✓' if row['ok'] else '✗'}   {extra}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="run only benchmarks whose name contains this text")
    parser.add_argument("--no-notebooks", action="store_true", help="skip notebook execution timings")
    parser.add_argument("--execute-one", help=argparse.SUPPRESS)
    parser.add_argument("--output", default=str(ROOT / "build" / "bench.json"))
    args = parser.parse_args(argv)
    if args.execute_one:
        print(json.dumps(execute_notebook(Path(args.execute_one))))
        return 0

    import torch

    torch.set_num_threads(1)  # the notebooks run single-threaded; measure the widgets the same way
    rows = run_operation_benchmarks(args.only)
    rows.append({"kind": "operation", "name": "bench process peak memory", "median_seconds": 0.0,
                 "budget_seconds": None, "ok": True,
                 "peak_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)})
    if not args.no_notebooks:
        rows += run_notebook_benchmarks(args.only)
    print_table(rows)
    output = Path(args.output)
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps({"machine": {"cpus": os.cpu_count()}, "results": rows}, indent=2))
    print(f"\nwritten: {output.relative_to(ROOT) if output.is_relative_to(ROOT) else output}")
    return 0 if all(row["ok"] for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())

