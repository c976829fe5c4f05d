"""Lesson 05: bad inputs to the helpers, figures and checks the notebook calls (issue 24), and the cache."""

import numpy as np
import pytest
import torch
from matplotlib import pyplot as plt

from lmtie_edu.lesson05 import exercises as ex
from lmtie_edu.lesson05 import experiment as ae
from lmtie_edu.lesson05 import figures as af
from lmtie_edu.lesson05 import solutions
from tests.probes import assert_all_refused

torch.set_num_threads(1)


@pytest.fixture(scope="module")
def data():
    return ae.load_digits_split()


def _run(values, seed=0):
    run = ae.Run(torch.nn.Linear(1, 1), seed)
    for step, value in enumerate(values):
        run.record(step, value, value)
    return run


def test_load_digits_split_returns_a_copy_the_learner_may_change():
    first = ae.load_digits_split()
    pixels = first.train.clone()
    first.train.mul_(16)
    first.test_labels.zero_()
    again = ae.load_digits_split()
    assert torch.equal(again.train, pixels) and again.test_labels.max() == 9
    assert ae.load_digits_split(np.float64(0.25), np.int64(0)).train.shape == pixels.shape


def test_bad_input(data):
    x, ax = data.test[:5], plt.figure().add_subplot()
    cases = [
        (lambda: ae.load_digits_split([0.25]), ValueError, r"test_fraction must be a number"),
        (lambda: ae.load_digits_split("0.25"), ValueError, r"test_fraction must be a number"),
        (lambda: ae.load_digits_split(0.999), ValueError, r"test_fraction must be a number in \[0.01, 0.99\]"),
        (lambda: ae.load_digits_split(0.25, -1), ValueError, r"seed must be an integer >= 0"),
        (lambda: ae.check_images([[0.0] * 64]), TypeError, r"images must be a torch.Tensor"),
        (lambda: ae.check_images(torch.ones(2, 64, dtype=torch.long)), TypeError, r"floating-point"),
        (lambda: ae.check_images(torch.ones(2, 8, 8)), ValueError, r"2-D matrix"),
        (lambda: ae.check_images(torch.ones(2, 64, device="meta")), ValueError, r"meta tensor"),
        (lambda: ae.check_model_args(64, 10**7, True, "relu", "linear", None, 0), ValueError, r"at most 50,000,000"),
        (lambda: ae.check_model_args(64, 16, 1, "relu", "linear", None, 0), TypeError, r"tie must be True or False"),
        (lambda: ae.check_training_args([0], 10**9, 128, 0.01, 20, None), ValueError, r"steps must be at most"),
        (lambda: ae.check_training_args(list(range(1000)), 300, 128, 0.01, 20, None), ValueError,
         r"seeds must list at most"),
        (lambda: ae.check_training_args([0], 300, 10**6, 0.01, 20, None), ValueError, r"batch_size must be at most"),
        (lambda: ae.check_training_args([0], 300, 128, float("inf"), 20, None), ValueError, r"lr must be a positive"),
        (lambda: ae.summarise([]), TypeError, r"runs must be a non-empty list of Run"),
        (lambda: ae.summarise([_run([])]), ValueError, r"run with seed 0 has no recorded"),
        (lambda: ae.summarise([_run([0.1])], which="val"), ValueError, r"which must be one of"),
        (lambda: ae.summarise([_run([float("nan")], seed=3)]), ValueError, r"seeds \[3\] diverged"),
        (lambda: ae.pca_mse(data.train, x, 0), ValueError, r"k \(components\) must be an integer >= 1"),
        (lambda: ae.pca_mse(data.train, x, True), TypeError, r"k \(components\) must be an integer"),
        (lambda: ae.pca_mse(data.train, x, 65), ValueError, r"at most 64"),
        (lambda: ae.pca_mse(data.train[:1], x, 1), ValueError, r"at least 2 images"),
        (lambda: ae.pca_mse(data.train, x[:, :10], 1), ValueError, r"x must have shape \(\*, 64\)"),
        (lambda: ae.pca_mse_curve(data.train, x, []), TypeError, r"ks must be a non-empty list"),
        (lambda: ae.pca_mse_curve(data.train, x, "123"), TypeError, r"ks must be a non-empty list"),
        (lambda: ae.subspace_overlap(torch.zeros(3, 64), data.train), ValueError, r"linearly independent"),
        (lambda: ae.subspace_overlap(torch.ones(3, 10), data.train), ValueError, r"weight must have shape"),
        (lambda: ae.orthonormality_gap(torch.ones(64)), ValueError, r"weight must be a 2-D matrix"),
        (lambda: af.digit_montage([x], gap=10**9), ValueError, r"gap must be an integer in \[0, 16\]"),
        (lambda: af.digit_montage(x), TypeError, r"rows must be a non-empty list"),
        (lambda: af.draw_digits("ax", [x]), TypeError, r"ax must be a matplotlib Axes"),
        (lambda: af.draw_curves(ax, [1, 2], label="a", color="k"), TypeError, r"runs must be a non-empty list of Run"),
        (lambda: af.draw_error_bars(ax, [("a", [_run([0.1])])]), TypeError,
         r"entries must be a list of \(label, runs, colour\)"),
        (lambda: af.autoencoder_figure(hidden=0), ValueError, r"hidden must be an integer >= 1"),
        (lambda: af.autoencoder_figure(hidden=65), ValueError, r"hidden must be at most 64"),
        (lambda: af.autoencoder_figure(activation="gelu"), ValueError, r"activation must be one of"),
        (lambda: af.autoencoder_figure(train=lambda *a, **k: None), TypeError,
         r"train\(\.\.\.\) must return a non-empty list of Run"),
        (lambda: af.autoencoder_panel(train=5), TypeError, r"train must be a training function"),
        (lambda: af.autoencoder_panel(hidden=1), ValueError, r"hidden"),
        (lambda: af.autoencoder_panel(tie=None), TypeError, r"tie"),
    ]
    try:
        assert_all_refused(cases)
    finally:
        plt.close("all")


def test_numbers_and_dtypes_that_are_fine(data):
    x = data.test[:5]
    assert ae.pca_mse(data.train, x, np.int64(3)) == ae.pca_mse(data.train, x, 3)
    assert ae.pca_mse_curve(data.train, x, np.array([1, 3])) == ae.pca_mse_curve(data.train, x, [1, 3])
    assert ae.check_images(x.to(torch.bfloat16)).dtype == torch.float32
    mean, std = ae.summarise([_run([1e300], 0), _run([-1e300], 1)])
    assert mean == 0.0 and std == pytest.approx(2 ** 0.5 * 1e300)
    assert ae.orthonormality_gap(torch.eye(3, 64, requires_grad=True)) == 0.0


def test_checks_survive_answers_that_mutate_their_inputs(capsys):
    def tie_status(model):
        status = solutions.tie_status(model)
        with torch.no_grad():
            for p in model.parameters():
                p.zero_()
        return status

    def tied_gradient(W, b, c, x):
        result = solutions.tied_gradient(W, b, c, x)
        for t in (W, b, c, x):
            t.zero_()
        return result

    def pca_reconstruction_mse(train, test, k):
        result = solutions.pca_reconstruction_mse(train, test, k)
        train.fill_(7.0)
        test.fill_(-1.0)
        return result

    assert ex.tie_status(tie_status)
    assert ex.tied_gradient(tied_gradient)
    assert ex.pca_reconstruction_mse(pca_reconstruction_mse)
    assert capsys.readouterr().out.count("✅") == 3
