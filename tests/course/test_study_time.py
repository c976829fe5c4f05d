"""The study times the course states are the estimator's (tools/study_time.py), and its rates are calibrated.

The rates must reproduce two students' clocks on the lessons as they were timed (each clock's commit) within
20 %; the counts of those lessons are recounted from git when the history is there (a shallow clone skips
that part), so the calibration tables cannot drift from what was timed.
"""

from __future__ import annotations

import json
import subprocess

import pytest

from tools import study_time

REPO = study_time.REPO


def test_rates_reproduce_both_clocks_within_20_percent():
    errors = study_time.calibration_errors()
    assert set(errors) == {(name, lesson) for name, clock in study_time.CLOCKS.items() for lesson in clock.minutes}
    worst = max(errors, key=lambda key: abs(errors[key]))
    assert abs(errors[worst]) <= study_time.TOLERANCE, f"clock {worst[0]}, lesson {worst[1]}: off by {errors[worst]:+.1%}"


def _timed_notebook(commit: str, lesson: str) -> dict | None:
    listing = subprocess.run(["git", "ls-tree", "--name-only", commit, "notebooks/"], cwd=REPO,
                             capture_output=True, text=True)
    if listing.returncode != 0:
        return None
    name = next(line for line in listing.stdout.splitlines() if line.startswith(f"notebooks/{lesson}_"))
    shown = subprocess.run(["git", "show", f"{commit}:{name}"], cwd=REPO, capture_output=True,
                           text=True, check=True)
    return json.loads(shown.stdout)


@pytest.mark.parametrize(("name", "lesson"), [(name, lesson) for name, clock in sorted(study_time.CLOCKS.items())
                                              for lesson in sorted(clock.minutes)])
def test_calibration_counts_are_the_timed_lessons(name, lesson):
    clock = study_time.CLOCKS[name]
    notebook = _timed_notebook(clock.commit, lesson)
    if notebook is None:
        pytest.skip(f"commit {clock.commit} is not in this clone's history")
    core, optional = study_time.count(notebook)
    assert (core + optional if clock.part == "whole" else core) == clock.counts[lesson]


def test_counting_splits_core_from_optional_sections():
    def markdown(text):
        return {"cell_type": "markdown", "source": text, "metadata": {}}

    def code(text, tags=()):
        return {"cell_type": "code", "source": text, "metadata": {"tags": list(tags)}, "outputs": []}

    notebook = {"cells": [markdown("# Lesson 99 — x\n\none two three"), code("a = 1\n\nb = 2"),
                          markdown("## 2. Optional: more\nfour five"), code("c = 3"),
                          markdown("## Summary\nsix"), code("def f():\n    raise NotImplementedError", ["exercise"]),
                          code("predict.q.ask()")]}
    core, optional = study_time.count(notebook)
    assert (core.words, core.code_lines, core.exercises, core.questions) == (11, 5, 1, 1)  # words split on white space, headings included
    assert (optional.words, optional.code_lines) == (6, 1)


def test_stated_study_times_are_the_estimates():
    found = study_time.mismatches()
    assert not found, "run `python -m tools.study_time` and state its figures:\n" + "\n".join(found)
