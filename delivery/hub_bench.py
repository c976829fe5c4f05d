"""Class-scale benchmark: how many students can one machine's JupyterHub hold for this course?

For each class size N (default 1, 5, 10, 20) a fresh hub (delivery/hub/server.py: JupyterHub,
configurable-http-proxy, DummyAuthenticator, SimpleLocalProcessSpawner, all on 127.0.0.1) receives N
simulated students at once (delivery/hub/students.py: one Chromium context each). Each opens the
nbgitpuller link, logs in, waits for the server and the pull, runs lesson 01 and clicks its tie
toggle. Measured per class size:

* link → first figure (s): from opening the link to the lesson's first panel figure after Run All;
* click → new figure (ms), median and p95 over all clicks of all students;
* memory: resident memory (RSS) of each student's single-user server + kernel tree, sampled every
  second (peak) and once after the class (steady, every kernel alive); the total is their sum, and
  PSS (shared pages split between processes) for the total as the machine really pays it;
* CPU seconds of each student's server + kernel, of the hub + proxy, and of the browsers; the browsers
  (CPU and memory) are reported apart: in a real class they are on the students' laptops;
* failures: students whose link, run or toggle failed.

Writes build/hub-bench.json and build/hub-bench.png. Run: `make bench-hub` (or
`.venv/bin/python -m delivery.hub_bench --students 1,5`). A class size that would end past --budget
seconds is skipped and marked so.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import psutil

from delivery.hub.server import TARGET, CourseRepo, HubServer, pull_link, tree_rss
from delivery.hub.students import CHROMIUM_FLAGS, attend_class, summary
from delivery.hub.usage import MemorySampler, browser_usage, cpu_seconds, cpu_split, pss

REPO = Path(__file__).resolve().parents[1]

LESSON = "01_embedding_lookup.ipynb"
CLICKS = {1: 4, 5: 3, 10: 3, 20: 2}  # fewer clicks per student in bigger classes keeps the run ≤ 15 min
TIMEOUT_MS = 480_000  # a hang guard per student step, not a budget
MiB = 2**20


async def one_class(browser_path: str, hub: HubServer, link: str, n: int, clicks: int):
    from playwright.async_api import async_playwright

    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=browser_path, headless=True, args=CHROMIUM_FLAGS)
        try:
            names = [f"s{n:02d}x{i:02d}" for i in range(n)]
            at_first = {}

            def sample(name: str) -> None:  # the student's server + kernel CPU when the first figure shows
                proc = hub.student_servers().get(name)
                if proc is not None:
                    at_first[name] = cpu_split(proc)

            attended = await attend_class(browser, names, link, f"{TARGET}/notebooks/{LESSON}", clicks=clicks,
                                          timeout_ms=TIMEOUT_MS, keep_open=True, at_first_figure=sample)
            # Steady state: every student's kernel alive and idle, every lab still open.
            servers = hub.student_servers()
            hub_process = psutil.Process(hub.process.pid)
            measured = {
                "steady": {name: tree_rss(proc) for name, proc in servers.items()},
                "server_only": sorted(proc.memory_info().rss for proc in servers.values()),
                "steady_pss": sum(pss(proc) for proc in servers.values()),
                "cpu": sorted(cpu_seconds(proc) for proc in servers.values()),
                "browser_cpu": browser_usage()[1],  # before the contexts close (their processes end)
                "at_first_figure": list(at_first.values()),
            }
            measured["hub_and_proxy"] = tree_rss(hub_process) - sum(measured["steady"].values())
            measured["hub_and_proxy_cpu"] = cpu_seconds(hub_process) - sum(measured["cpu"])
            for _, context in attended:
                await context.close()
        finally:
            await browser.close()
    return [record for record, _ in attended], measured


def run_level(browser_path: str, n: int) -> dict:
    scratch = Path(tempfile.mkdtemp(prefix=f"hub-bench-{n}-"))
    load_at_start = round(os.getloadavg()[0], 1)  # other work on the machine when this class began
    started = time.monotonic()
    try:
        repo = CourseRepo(scratch)
        hub = HubServer(scratch)
        hub.start()
        sampler = MemorySampler(hub)
        sampler.start()
        try:
            link = pull_link(hub.url, repo.url, LESSON)
            records, measured = asyncio.run(one_class(browser_path, hub, link, n, CLICKS.get(n, 2)))
        finally:
            sampler.stop_event.set()
            sampler.join()
            survivors = hub.stop()
        row = summary(records)
        peaks = sorted(sampler.peak_per_student.values())
        steadies = sorted(measured["steady"].values())
        server_only, cpu = measured["server_only"], measured["cpu"]
        row.update({
            "clicks_per_student": CLICKS.get(n, 2),
            "memory_mib": {
                "per_student_steady_median": round(steadies[len(steadies) // 2] / MiB) if steadies else None,
                "per_student_server_only_median": round(server_only[len(server_only) // 2] / MiB) if server_only else None,
                "per_student_peak_max": round(peaks[-1] / MiB) if peaks else None,
                "per_student_peak_median": round(peaks[len(peaks) // 2] / MiB) if peaks else None,
                "total_steady_rss": round(sum(steadies) / MiB),
                "total_steady_pss": round(measured["steady_pss"] / MiB),
                "total_peak_rss": round(sampler.peak_total / MiB),
                "hub_and_proxy_rss": round(measured["hub_and_proxy"] / MiB),
                "browser_peak_rss": round(sampler.peak_browser / MiB),
            },
            "cpu_s_per_student_median": round(cpu[len(cpu) // 2], 1) if cpu else None,  # server + kernel
            # from the link to the first figure: the student's server and kernel (median over students)
            "cpu_s_to_first_figure": {part: round(statistics.median(s[part] for s in firsts), 1)
                                      for part in ("server", "kernel")} if (firsts := measured["at_first_figure"])
            else None,
            "cpu_s_hub_and_proxy": round(measured["hub_and_proxy_cpu"], 1),
            "cpu_s_browsers_total": round(measured["browser_cpu"], 1),  # on the students' laptops in a class
            "errors": [f"{r.name}: {r.error or ''} {r.cell_errors}".strip() for r in records if not r.ok],
            "processes_left": survivors,
            "load_average_1min_at_start": load_at_start,
            "seconds": round(time.monotonic() - started, 1),
        })
        return row
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def machine() -> dict:
    model = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                  if line.startswith("model name")), platform.processor())
    return {"cpu": model, "cores": os.cpu_count(), "memory_gib": round(psutil.virtual_memory().total / 2**30, 1),
            "os": platform.platform(), "python": platform.python_version()}


def versions() -> dict:
    import subprocess
    from importlib.metadata import version

    hub_python = REPO / "build" / "hub-venv" / "bin" / "python"
    hub = subprocess.run([str(hub_python), "-c", "import jupyterhub, nbgitpuller; print(jupyterhub.__version__,"
                          " nbgitpuller.__version__)"], capture_output=True, text=True).stdout.split()
    chp = json.loads((REPO / "build" / "hub-node" / "node_modules" / "configurable-http-proxy" /
                      "package.json").read_text())["version"]
    return {"jupyterhub": hub[0] if hub else None, "nbgitpuller": hub[1] if len(hub) > 1 else None,
            "configurable-http-proxy": chp, "jupyterlab": version("jupyterlab"), "ipywidgets": version("ipywidgets")}


def plot(result: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [row for row in result["classes"] if row.get("students")]
    ns = [row["students"] for row in rows]
    fig, axes = plt.subplots(1, 3, figsize=(14, 4.3), constrained_layout=True)
    ax = axes[0]
    ax.plot(ns, [row["link_to_figure_s"]["median"] for row in rows], "o-", label="median")
    ax.plot(ns, [row["link_to_figure_s"]["max"] for row in rows], "s--", label="slowest student")
    for row in rows:
        if row["failures"]:
            ax.annotate(f"{row['failures']} of {row['students']} failed", (row["students"], row["link_to_figure_s"]["max"]),
                        textcoords="offset points", xytext=(-10, -28), ha="right", fontsize=8, color="C3")
    ax.set(title="Link → first figure grows with the class", xlabel="students at once", ylabel="seconds")
    ax = axes[1]
    ax.plot(ns, [row["click_to_figure_ms"]["median"] for row in rows], "o-", label="median")
    ax.plot(ns, [row["click_to_figure_ms"]["p95"] for row in rows], "s--", label="p95")
    ax.set(title="Toggle click → new figure", xlabel="students at once", ylabel="milliseconds")
    ax = axes[2]
    ax.plot(ns, [row["memory_mib"]["total_steady_rss"] / 1024 for row in rows], "o-", label="total RSS (all alive)")
    ax.plot(ns, [row["memory_mib"]["total_steady_pss"] / 1024 for row in rows], "^-", label="total PSS")
    ax.plot(ns, [row["memory_mib"]["browser_peak_rss"] / 1024 for row in rows], "x:", label="browsers (not the hub's)")
    ax.set(title="Memory: servers + kernels", xlabel="students at once", ylabel="GiB")
    for ax in axes:
        ax.set_xticks(ns)
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    m = result["machine"]
    fig.suptitle(f"One JupyterHub, lesson 01, {m['cores']} cores / {m['memory_gib']} GiB ({m['cpu']})", fontsize=10)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def markdown_table(result: dict) -> str:
    """The table for docs/instructor/hub.md."""
    lines = ["| students at once | link → first figure, median / slowest (s) | click → new figure, median / p95 (ms) "
             "| memory per student, steady / peak (MiB) | total servers + kernels, RSS / PSS (GiB) | failures |",
             "|---|---|---|---|---|---|"]
    for row in result["classes"]:
        if "skipped" in row:
            lines.append(f"| {row['students_planned']} | skipped ({row['skipped']}) | | | | |")
            continue
        first, click, mem = row["link_to_figure_s"], row["click_to_figure_ms"], row["memory_mib"]
        lines.append(
            f"| {row['students']} | {first['median']:.0f} / {first['max']:.0f} | {click['median']:.0f} / {click['p95']:.0f} "
            f"| {mem['per_student_steady_median']} / {mem['per_student_peak_max']} "
            f"| {mem['total_steady_rss'] / 1024:.1f} / {mem['total_steady_pss'] / 1024:.1f} | {row['failures']} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", default="1,5,10,20", help="class sizes, comma-separated")
    parser.add_argument("--budget", type=float, default=900, help="seconds; later class sizes are skipped past it")
    parser.add_argument("--out", default=str(REPO / "build" / "hub-bench.json"))
    parser.add_argument("--table", action="store_true", help="print the table and redraw the plot of an existing --out file")
    args = parser.parse_args(argv)
    if args.table:  # the table (and the plot again) from an existing result
        result = json.loads(Path(args.out).read_text())
        plot(result, Path(args.out).with_suffix(".png"))
        print(markdown_table(result))
        return 0
    browser_path = os.environ.get("LMTIE_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    sizes = [int(n) for n in args.students.split(",")]
    result = {"lesson": LESSON, "machine": machine(), "versions": versions(), "classes": []}
    started = time.monotonic()
    # A class of N takes about 25 s + 12 s per student on a quiet 2-core machine; the rate measured on
    # the sizes already run replaces the 12 s when it is slower. Skip a size that would end past the budget.
    per_student = 12.0
    for n in sizes:
        elapsed = time.monotonic() - started
        if elapsed + 25 + per_student * n > args.budget:
            result["classes"].append({"students_planned": n, "skipped": f"budget: {elapsed:.0f} s of {args.budget:.0f} s used"})
            print(f"N={n}: skipped (budget)", flush=True)
            continue
        row = run_level(browser_path, n)
        per_student = max(per_student, (row["seconds"] - 25) / n)
        result["classes"].append(row)
        print(f"N={n}: {json.dumps(row)}", flush=True)
    result["seconds"] = round(time.monotonic() - started, 1)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2))
    plot(result, out.with_suffix(".png"))
    print(markdown_table(result))
    print(f"wrote {out} and {out.with_suffix('.png')} in {result['seconds']:.0f} s")
    failures = sum(row.get("failures", 0) for row in result["classes"])
    left = [p for row in result["classes"] for p in row.get("processes_left", [])]
    return 1 if failures or left else 0


if __name__ == "__main__":
    sys.exit(main())
