"""Lesson 08: bad inputs to the helpers and the panel the notebook calls (issue 24)."""

import torch

from lmtie_edu.lesson08 import figures
from lmtie_edu.lesson08.data import lesson_data, windows
from tests.probes import assert_all_refused


def test_bad_input():
    runs = figures.example_runs()
    cases = [
        (lambda: lesson_data(vocab_size=2), ValueError, r"vocab_size must be an integer >= 3"),
        (lambda: lesson_data(vocab_size="1000"), TypeError, r"vocab_size must be an integer"),
        (lambda: lesson_data(vocab_size=10**6), ValueError, r"vocab_size must be at most \d+"),
        (lambda: lesson_data(context=0), ValueError, r"context must be an integer >= 1"),
        (lambda: lesson_data(context=10**4), ValueError, r"context must be at most 256"),
        (lambda: windows([1, 2, 3], 2), TypeError, r"ids must be a 1-D tensor"),
        (lambda: windows(torch.arange(3.0), 2), TypeError, r"ids must be a 1-D tensor"),
        (lambda: windows(torch.arange(3), 5), ValueError, r"needs more than context=5 ids; got 3"),
        (lambda: figures.experiment_panel([]), ValueError, r"runs must be a non-empty list"),
        (lambda: figures.experiment_panel([{"tie": True}]), ValueError, r"every run must be a dict with the keys"),
        (lambda: figures.experiment_panel([r for r in runs if r["tie"]]), ValueError, r"tied and untied"),
        (lambda: figures.experiment_panel(runs, budget="more"), ValueError, r"budget must be one of"),
        (lambda: figures.experiment_panel(runs, tie="yes"), TypeError, r"tie must be True or False"),
        (lambda: figures.experiment_panel(runs).set(budget="deeper"), ValueError, r"budget must be one of"),
        (lambda: figures.experiment_panel(runs).set(width=3), ValueError, r"this panel has no control 'width'"),
        (lambda: figures.experiment_figure(runs, tie=1), TypeError, r"tie must be True or False"),
        (lambda: figures.initial_loss_figure([], 6.9), ValueError, r"rows must be \(label, initial loss, share\)"),
        (lambda: figures.initial_loss_figure([("a", 1.0, 0.5)], -1), ValueError, r"log_v must be ln V"),
        (lambda: figures.initial_loss_figure([("a", 1.0, 0.5)], float("nan")), ValueError, r"log_v must be ln V"),
    ]
    assert_all_refused(cases)
