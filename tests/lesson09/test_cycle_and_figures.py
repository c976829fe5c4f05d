"""Lesson 09: the cycle experiment, the figures and the panel the notebook calls; their bad inputs."""

import numpy as np
import torch

from lmtie_edu.lesson08.model import TinyGPT
from lmtie_edu.lesson09 import figures
from lmtie_edu.lesson09.cycle import N_TOKENS, scores, train_cycle
from tests.pictures import assert_live_toggle_matches_full_drawing
from tests.probes import assert_all_refused


def test_tied_scores_are_symmetric_and_an_untied_or_bilinear_score_learns_the_cycle():
    tied = train_cycle(tie=True)
    assert torch.equal(tied["S"], tied["S"].T) and tied["O"] is None and tied["M"] is None
    assert abs(tied["next"] - tied["previous"]) < 1e-9 and tied["same"] > tied["next"]
    assert torch.equal(scores(tied["E"], None, None), tied["S"])
    for tie, between in ((False, False), (True, True), (False, True)):
        run = train_cycle(tie=tie, between=between)
        assert run["next"] > 0.99 and run["previous"] < 0.01, (tie, between)
    bilinear = train_cycle(tie=True, between=True)
    assert not torch.allclose(bilinear["S"], bilinear["S"].T)
    assert torch.allclose(bilinear["S"], bilinear["E"] @ bilinear["M"] @ bilinear["E"].T)


def test_the_cycle_leaves_the_callers_random_state_and_gives_the_same_run_twice():
    torch.manual_seed(123)
    before = torch.get_rng_state()
    first, second = train_cycle(), train_cycle()
    assert torch.equal(torch.get_rng_state(), before)
    assert torch.equal(first["S"], second["S"])
    assert first["P"].shape == (N_TOKENS, N_TOKENS)


def test_panel_toggles_show_the_full_drawing_of_each_state():
    panel = figures.cycle_panel()
    assert_live_toggle_matches_full_drawing(panel, True, figures.cycle_panel(tie=True).result, tolerance=0.5)
    panel.set(tie=False, between=True)
    assert panel.result.numbers == figures.cycle_panel(tie=False, between=True).result.numbers
    assert panel.values() == {"tie": False, "between": True}


def test_panel_accepts_numpy_bools():
    panel = figures.cycle_panel(tie=np.bool_(False), between=np.bool_(True))
    assert panel.values() == {"tie": False, "between": True}


def test_geometry_figure_draws_three_matrices():
    torch.manual_seed(0)
    untied, tied = TinyGPT(12, 4, 1, 1, 4, tie=False), TinyGPT(12, 4, 1, 1, 4, tie=True)
    counts = torch.tensor([5, 0, 3, 1, 2, 9, 1, 1, 4, 2])
    fig = figures.geometry_figure(untied, tied, counts)
    assert len(fig.axes) == 3
    never = [ax.collections[1].get_offsets() for ax in fig.axes]
    assert all(len(points) == 2 and np.allclose(points[:, 0], 0.5) for points in never)  # rows 10 and 11
    expected = tied.head.weight.detach()[10:].norm(dim=1).numpy()
    assert np.allclose(np.sort(never[2][:, 1]), np.sort(expected))


def test_bad_input():
    torch.manual_seed(0)
    untied, tied = TinyGPT(12, 4, 1, 1, 4, tie=False), TinyGPT(12, 4, 1, 1, 4, tie=True)
    counts = torch.ones(10, dtype=torch.long)
    cases = [
        (lambda: train_cycle(tie="yes"), TypeError, r"tie must be True or False"),
        (lambda: train_cycle(between=1), TypeError, r"between must be True or False"),
        (lambda: train_cycle(seed=-1), ValueError, r"seed must be an integer >= 0"),
        (lambda: train_cycle(seed=2**40), ValueError, r"seed must be an integer >= 0 and <="),
        (lambda: figures.cycle_panel(tie=1), TypeError, r"tie must be True or False"),
        (lambda: figures.cycle_panel(between="no"), TypeError, r"between must be True or False"),
        (lambda: figures.cycle_panel().set(between=2), TypeError, r"between must be True or False"),
        (lambda: figures.cycle_panel().set(width=3), ValueError, r"this panel has no control 'width'"),
        (lambda: figures.geometry_figure(tied, tied, counts), ValueError, r"the first model must be untied"),
        (lambda: figures.geometry_figure(untied, untied, counts), ValueError, r"the first model must be untied"),
        (lambda: figures.geometry_figure("model", tied, counts), TypeError, r"trained models with \.embedding"),
        (lambda: figures.geometry_figure(untied, TinyGPT(11, 4, 1, 1, 4, tie=True), counts), ValueError,
         r"vocabulary matrices of the same shape .*got \(12, 4\) untied and \(11, 4\) tied"),
        (lambda: figures.geometry_figure(untied, tied, [1, 2]), ValueError, r"counts must be the training counts"),
        (lambda: figures.geometry_figure(untied, tied, torch.ones(12)), ValueError,
         r"counts must be the training counts"),
    ]
    assert_all_refused(cases)
