"""Make lesson 08's stored runs: every variant of lmtie_edu.lesson08.variants, with the lesson's seeds.

Usage:
    python -m tools.lesson08_runs                 # all variants, 2 processes; writes lmtie_edu/lesson08/stored_runs.json
    python -m tools.lesson08_runs --jobs 1 --check "tied, mean row removed from the lookup" --seed 0
                                                  # re-run one stored run and compare it (exit 1 if it differs)

Each run is the lesson's training loop in float64 on one thread, so the stored numbers are the same on any CPU
to far more digits than the lesson prints. All of it takes about 3 minutes on 2 cores (two processes).
"""

from __future__ import annotations

import argparse
import json
import sys
from concurrent.futures import ProcessPoolExecutor

import torch

from lmtie_edu.lesson08 import variants
from lmtie_edu.lesson08.data import lesson_data

STORED = variants.STORED
DIGITS = 6          # stored precision; the lesson prints at most 2 decimals


def _rounded(run: dict) -> dict:
    def r(value):
        return round(value, DIGITS) if isinstance(value, float) else value
    return {key: [r(v) for v in value] if isinstance(value, list) else r(value) for key, value in run.items()}


def one_run(name: str, seed: int) -> dict:
    """One stored run, in float64 on one thread; the caller's default dtype and thread count are restored
    (the tests call this in their own process)."""
    dtype, threads = torch.get_default_dtype(), torch.get_num_threads()
    torch.set_num_threads(1)
    torch.set_default_dtype(torch.float64)
    try:
        data = lesson_data(variants.SETTINGS["vocab_size"], variants.SETTINGS["context"])
        return _rounded(variants.train_run(variants.variant(name), seed, data))
    finally:
        torch.set_default_dtype(dtype)
        torch.set_num_threads(threads)


def make_all(jobs: int) -> dict:
    plan = [(v.name, seed) for v in variants.VARIANTS for seed in variants.SEEDS]
    plan.sort(key=lambda item: -variants.variant(item[0]).steps * variants.variant(item[0]).layers)  # long first
    with ProcessPoolExecutor(jobs) as pool:
        runs = list(pool.map(one_run, *zip(*plan, strict=True)))
    order = {v.name: i for i, v in enumerate(variants.VARIANTS)}
    runs.sort(key=lambda run: (order[run["variant"]], run["seed"]))
    return {"made_by": "python -m tools.lesson08_runs", "torch": torch.__version__, **variants.description(),
            "runs": runs}


def check(name: str, seed: int, tolerance: float = 1e-3) -> list[str]:
    """Re-run one stored run; the differences beyond ``tolerance`` (relative), one line each."""
    stored = json.loads(STORED.read_text(encoding="utf-8"))
    found = [run for run in stored["runs"] if run["variant"] == name and run["seed"] == seed]
    if not found:
        raise SystemExit(f"no stored run of variant {name!r} with seed {seed}; the variants are "
                         f"{[v.name for v in variants.VARIANTS]}, the seeds {list(variants.SEEDS)}")
    [old] = found
    new = one_run(name, seed)
    problems = []
    for key, value in old.items():
        a, b = (value, new[key]) if isinstance(value, list) else ([value], [new[key]])
        if len(a) != len(b) or any(
                abs(x - y) > tolerance * max(1.0, abs(x)) if isinstance(x, float) else x != y
                for x, y in zip(a, b, strict=False)):
            problems.append(f"{key}: stored {value}, re-run {new[key]}")
    return problems


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--check", metavar="VARIANT", help="re-run one stored run and compare it")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.check:
        problems = check(args.check, args.seed)
        print("\n".join(problems) or f"{args.check!r}, seed {args.seed}: the re-run matches the stored run")
        return 1 if problems else 0
    stored = make_all(args.jobs)
    STORED.write_text(json.dumps(stored, ensure_ascii=False, indent=0) + "\n", encoding="utf-8")
    print(f"wrote {STORED} ({len(stored['runs'])} runs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
