"""Lesson 05 helpers: data split, tied/untied autoencoder, training, PCA floor, panel, bad input."""

import math
import subprocess
import sys

import ipywidgets as widgets
import pytest
import torch

from lmtie_edu import autoencoders as ae
from lmtie_edu.exercises import lesson05 as ex
from lmtie_edu.tying import shares_storage
from lmtie_edu.widgets import PanelResult

torch.set_num_threads(1)
QUICK = {"steps": 30, "eval_every": 10}


@pytest.fixture(scope="module")
def data():
    return ae.load_digits_split()


# -- data -----------------------------------------------------------------------------------------
def test_split_shapes_range_and_stratification(data):
    assert tuple(data.train.shape) == (1347, 64) and tuple(data.test.shape) == (450, 64)
    assert data.train.dtype == torch.float32
    assert 0.0 == data.train.min().item() and data.train.max().item() == 1.0
    counts = torch.bincount(data.test_labels, minlength=10)
    assert counts.min() >= 43 and counts.max() <= 46  # stratified: about 45 of each digit


def test_split_is_fixed(data):
    ae.load_digits_split.cache_clear()
    again = ae.load_digits_split()
    assert torch.equal(again.train, data.train) and torch.equal(again.test_labels, data.test_labels)


def test_import_lmtie_edu_autoencoders_does_not_import_sklearn():
    code = "import sys, lmtie_edu.autoencoders; print('sklearn' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


@pytest.mark.parametrize("bad", [0, 1, 1.5, -0.1, True, "0.2"])
def test_split_rejects_bad_fraction(bad):
    with pytest.raises(ValueError, match="test_fraction"):
        ae.load_digits_split(bad)


# -- the model ------------------------------------------------------------------------------------
def test_tied_decoder_is_a_view_of_the_encoder():
    model = ae.Autoencoder(64, 16, tie=True)
    decoder = model.decoder_matrix()
    assert model.tied and tuple(decoder.shape) == (64, 16)
    assert shares_storage(decoder, model.W) and decoder._base is model.W
    assert torch.equal(decoder, model.W.T)
    with torch.no_grad():
        model.W[0, 0] = 123.0  # one write changes the decoder too
    assert model.decoder_matrix()[0, 0].item() == 123.0


def test_untied_decoder_is_separate():
    model = ae.Autoencoder(64, 16, tie=False)
    assert not model.tied and not shares_storage(model.decoder_matrix(), model.W)


def test_forward_matches_the_formula():
    model = ae.Autoencoder(64, 8, tie=True, activation="tanh", output="sigmoid", seed=3)
    x = torch.rand(5, 64, generator=torch.Generator().manual_seed(0))
    W, b, c = model.W, model.encoder.bias, model.decoder_bias
    expected = torch.sigmoid(torch.tanh(x @ W.T + b) @ W + c)
    assert torch.allclose(model(x), expected, atol=1e-6)


def test_tied_gradient_is_the_sum_of_both_paths():
    model = ae.Autoencoder(64, 8, tie=True, activation="relu", seed=1)
    with torch.no_grad():
        model.encoder.bias.fill_(0.1)  # keep some ReLUs on
    x = torch.rand(6, 64, generator=torch.Generator().manual_seed(2))
    torch.nn.functional.mse_loss(model(x), x).backward()
    enc = model.W.detach().clone().requires_grad_(True)
    dec = model.W.detach().clone().requires_grad_(True)
    out = torch.relu(x @ enc.T + model.encoder.bias.detach()) @ dec + model.decoder_bias.detach()
    torch.nn.functional.mse_loss(out, x).backward()
    assert dec.grad.abs().sum() > 0 and enc.grad.abs().sum() > 0
    assert torch.allclose(model.W.grad, enc.grad + dec.grad, atol=1e-7)


@pytest.mark.parametrize("h", [1, 16, 100])
def test_parameter_counts(h):
    table = ae.parameter_table(64, h)
    assert table["tied"] == 64 * h + h + 64
    assert table["untied"] == 2 * 64 * h + h + 64
    assert 0.5 < table["tied / untied"] < 1


def test_glorot_std_and_init_scale():
    assert ae.glorot_std(64, 16) == pytest.approx(math.sqrt(2 / 80))
    model = ae.Autoencoder(64, 16, seed=0)
    assert model.W.std().item() == pytest.approx(ae.glorot_std(64, 16), rel=0.1)
    big = ae.Autoencoder(64, 16, init_std=1.0, seed=0)
    assert big.W.std().item() == pytest.approx(1.0, rel=0.1)


def test_same_seed_same_weights_different_seed_different_weights():
    a, b, c = (ae.Autoencoder(64, 16, tie=False, seed=s) for s in (0, 0, 1))
    assert torch.equal(a.W, b.W) and torch.equal(a.decoder_weight, b.decoder_weight)
    assert not torch.equal(a.W, c.W)


@pytest.mark.parametrize(("kwargs", "error", "match"), [
    ({"n_hidden": 0}, ValueError, "n_hidden must be an integer >= 1; got 0"),
    ({"n_hidden": 16.0}, TypeError, "use 16 instead"),
    ({"n_inputs": -3}, ValueError, "n_inputs"),
    ({"activation": "softmax"}, ValueError, r"activation must be one of \['linear', 'sigmoid', 'tanh', 'relu'\]"),
    ({"output": "relu"}, ValueError, "output must be one of"),
    ({"tie": "yes"}, TypeError, "tie must be True or False"),
    ({"init_std": -1.0}, ValueError, "init_std must be a positive number"),
    ({"init_std": float("nan")}, ValueError, "init_std"),
    ({"seed": -1}, ValueError, "seed must be an integer >= 0"),
])
def test_model_rejects_bad_arguments(kwargs, error, match):
    with pytest.raises(error, match=match):
        ae.Autoencoder(**({"n_inputs": 64, "n_hidden": 16} | kwargs))


@pytest.mark.parametrize(("x", "error", "match"), [
    (torch.rand(5, 63), ValueError, r"x must have shape \(\*, 64\); got \(5, 63\)"),
    (torch.rand(64), ValueError, "2-D matrix"),
    (torch.ones(5, 64, dtype=torch.long), TypeError, "floating-point"),
    ([[0.0] * 64], TypeError, "torch.Tensor"),
    (torch.rand(0, 64), ValueError, "at least one image"),
])
def test_forward_rejects_bad_images(x, error, match):
    with pytest.raises(error, match=match):
        ae.Autoencoder(64, 16)(x)


def test_decode_rejects_wrong_code_size():
    with pytest.raises(ValueError, match=r"z must have shape \(\*, 16\)"):
        ae.Autoencoder(64, 16).decode(torch.rand(3, 8))


# -- training -------------------------------------------------------------------------------------
def test_training_is_bit_reproducible_and_learns(data):
    a = ae.train_autoencoder(8, tie=True, activation="relu", seed=4, data=data, **QUICK)
    b = ae.train_autoencoder(8, tie=True, activation="relu", seed=4, data=data, **QUICK)
    c = ae.train_autoencoder(8, tie=True, activation="relu", seed=5, data=data, **QUICK)
    assert a.test_mse == b.test_mse and torch.equal(a.model.W, b.model.W)
    assert a.test_mse != c.test_mse
    assert a.steps == [0, 10, 20, 30]
    assert a.final_test_mse < a.test_mse[0] / 3


def test_training_keeps_the_tie(data):
    run = ae.train_autoencoder(8, tie=True, seed=0, data=data, **QUICK)
    assert shares_storage(run.model.decoder_matrix(), run.model.W)
    assert ae.count_parameters(run.model) == 64 * 8 + 8 + 64


@pytest.mark.parametrize(("kwargs", "error", "match"), [
    ({"steps": 0}, ValueError, "steps"),
    ({"batch_size": 5000}, ValueError, "batch_size must be at most the 1347 training images; got 5000"),
    ({"batch_size": 0}, ValueError, "batch_size"),
    ({"eval_every": 2.0}, TypeError, "eval_every"),
    ({"activation": "gelu"}, ValueError, "activation"),
])
def test_training_rejects_bad_arguments(data, kwargs, error, match):
    with pytest.raises(error, match=match):
        ae.train_autoencoder(8, data=data, **kwargs)


def test_train_seeds_and_summarise(data):
    runs = ae.train_seeds(4, seeds=[0, 1], data=data, **QUICK)
    assert [r.seed for r in runs] == [0, 1]
    mean, std = ae.summarise(runs)
    values = [r.final_test_mse for r in runs]
    assert mean == pytest.approx(sum(values) / 2) and std == pytest.approx(abs(values[0] - values[1]) / math.sqrt(2))
    assert ae.summarise(runs[:1]) == (values[0], 0.0)
    with pytest.raises(ValueError, match="at least one seed"):
        ae.train_seeds(4, seeds=[], data=data)
    with pytest.raises(ValueError, match="which must be one of"):
        ae.summarise(runs, "validation")


# -- the PCA floor --------------------------------------------------------------------------------
def test_pca_error_falls_with_k_and_vanishes_at_full_rank(data):
    errors = [ae.pca_mse(data.train, data.test, k) for k in (1, 4, 16, 32, 64)]
    assert all(a > b for a, b in zip(errors, errors[1:], strict=False))
    assert errors[-1] < 1e-12


def test_pca_matches_the_reference_solution(data):
    from lmtie_edu.solutions.lesson05 import pca_reconstruction_mse

    assert ae.pca_mse(data.train, data.test, 16) == pytest.approx(
        pca_reconstruction_mse(data.train.double(), data.test.double(), 16), rel=1e-9)


def test_pca_is_the_floor_of_a_trained_linear_autoencoder_on_the_training_set(data):
    run = ae.train_autoencoder(8, tie=True, activation="linear", seed=0, data=data, steps=150, eval_every=150)
    floor = ae.pca_mse(data.train, data.train, 8)
    assert floor <= run.final_train_mse < 1.3 * floor


def test_principal_directions_have_full_overlap_and_are_orthonormal(data):
    _, vh = ae.principal_axes(data.train)
    top = vh[:10].float()
    assert ae.subspace_overlap(top, data.train) == pytest.approx(1.0, abs=1e-5)
    assert ae.orthonormality_gap(top) < 1e-5
    rotated = torch.linalg.qr(torch.randn(10, 10, generator=torch.Generator().manual_seed(0)))[0] @ top
    assert ae.subspace_overlap(2.0 * rotated, data.train) == pytest.approx(1.0, abs=1e-5)  # any basis of the span
    assert ae.subspace_overlap(vh[10:20].float(), data.train) < 1e-6
    assert ae.orthonormality_gap(2.0 * top) == pytest.approx(3.0, rel=1e-5)


@pytest.mark.parametrize(("call", "error", "match"), [
    (lambda d: ae.pca_mse(d.train, d.test, 0), ValueError, "k"),
    (lambda d: ae.pca_mse(d.train, d.test, 65), ValueError, "at most 64"),
    (lambda d: ae.pca_mse(d.train, d.test, 2.0), TypeError, "k"),
    (lambda d: ae.pca_mse(d.train, d.test[:, :10], 2), ValueError, r"\(\*, 64\)"),
    (lambda d: ae.pca_mse(d.train[:1], d.test, 1), ValueError, "at least 2 images"),
    (lambda d: ae.subspace_overlap(torch.rand(3, 10), d.train), ValueError, r"\(\*, 64\)"),
    (lambda d: ae.orthonormality_gap(torch.rand(64)), ValueError, "2-D"),
])
def test_pca_helpers_reject_bad_input(data, call, error, match):
    with pytest.raises(error, match=match):
        call(data)


# -- figures and the panel ------------------------------------------------------------------------
def test_digit_montage_shape_and_gaps():
    montage = ae.digit_montage([torch.zeros(3, 64), torch.ones(3, 64)])
    assert montage.shape == (17, 26)
    assert montage[:8, :8].max() == 0 and montage[9:, :8].min() == 1
    assert all(math.isnan(v) for v in montage[8])


def test_normalised_rows():
    rows = ae.normalised_rows(torch.tensor([[2.0, -4.0], [0.5, 0.25]]))
    assert torch.equal(rows, torch.tensor([[0.5, -1.0], [1.0, 0.5]]))


REAL_TRAIN_SEEDS = ae.train_seeds


def quick_training(monkeypatch, calls=None):
    """Make the panel train 30 steps instead of the lesson's budget (the logic under test is the same)."""

    def quick(*args, **kwargs):
        if calls is not None:
            calls.append(kwargs["tie"])
        return REAL_TRAIN_SEEDS(*args, **(kwargs | QUICK))

    monkeypatch.setattr(ae, "train_seeds", quick)


def test_panel_retrains_on_every_toggle(monkeypatch):
    calls = []
    quick_training(monkeypatch, calls)
    panel = ae.autoencoder_panel(tie=True, hidden=4, activation="linear")
    assert isinstance(panel.result, PanelResult)
    first = dict(panel.result.numbers)
    panel.tie.value = False
    panel.tie.value = True  # back: trained again, not served from a cache
    assert calls == [True, False, True]
    assert panel.result.numbers == first  # same seeds → bit-identical retrain
    assert first["parameters"] == 64 * 4 + 4 + 64 and first["seeds"] == "[0, 1, 2]"
    assert first["PCA floor (held-out)"] == pytest.approx(ae.pca_mse(*_train_test(), 4))
    panel.set(tie=False, hidden=6, output="sigmoid")
    assert panel.result.numbers["parameters"] == 2 * 64 * 6 + 6 + 64


def _train_test():
    split = ae.load_digits_split()
    return split.train, split.test


@pytest.mark.parametrize(("values", "error", "match"), [
    ({"hidden": 100}, ValueError, r"hidden must be a value in \[2, 64\]; got 100"),
    ({"hidden": 1}, ValueError, "hidden"),
    ({"hidden": 8.5}, TypeError, "hidden must be an integer"),
    ({"activation": "gelu"}, ValueError, "activation must be one of"),
    ({"output": "softmax"}, ValueError, "output must be one of"),
    ({"tie": "no"}, TypeError, "tie must be True or False"),
    ({"depth": 3}, ValueError, "no control 'depth'"),
])
def test_panel_rejects_impossible_values(monkeypatch, values, error, match):
    quick_training(monkeypatch)
    panel = ae.autoencoder_panel(hidden=4, activation="linear")
    before = panel.redraws
    with pytest.raises(error, match=match):
        panel.set(**values)
    assert panel.redraws == before


def test_figure_function_rejects_bad_values():
    with pytest.raises(ValueError, match="hidden must be at most 64"):
        ae.autoencoder_figure(hidden=65)
    with pytest.raises(ValueError, match="output must be one of"):
        ae.autoencoder_figure(output="tanh")


def test_benchmark_is_declared_with_the_retrain_budget():
    (bench,) = ae.benchmarks()
    assert bench.budget_seconds == 1.5 and "retrain" in bench.name and bench.repeats >= 5


def test_panel_slider_retrains_only_on_release(monkeypatch):
    quick_training(monkeypatch)
    panel = ae.autoencoder_panel(hidden=4, activation="linear")
    slider = panel.controls["hidden"]
    assert isinstance(slider, widgets.IntSlider) and slider.continuous_update is False  # no retrain per drag step
    assert set(panel.controls) == {"tie", "hidden", "activation", "output"}


# -- exercise checkers reject wrong answers -------------------------------------------------------
def test_tied_decoder_checker_rejects_a_copy_and_a_detached_view(capsys):
    assert ex.tied_decoder_weight(lambda W: W.T.clone()).passed is False
    assert "does not share storage" in capsys.readouterr().out
    assert ex.tied_decoder_weight(lambda W: W.detach().T).passed is False
    assert "no gradient can reach W" in capsys.readouterr().out
    assert ex.tied_decoder_weight(lambda W: W).passed is False  # not transposed
    assert "❌" in capsys.readouterr().out


def test_parameter_count_checker_rejects_forgotten_biases(capsys):
    assert ex.autoencoder_parameter_count(lambda d, h, tie: d * h * (1 if tie else 2)).passed is False
    assert "expected: 1104" in capsys.readouterr().out
    assert ex.autoencoder_parameter_count(lambda d, h, tie: 2 * d * h + h + d).passed is False  # tie ignored
    assert "❌" in capsys.readouterr().out


def test_pca_checker_rejects_an_uncentred_projection(capsys):
    def uncentred(train, test, k):
        _, _, vh = torch.linalg.svd(train, full_matrices=False)
        basis = vh[:k]
        return (test @ basis.T @ basis - test).square().mean().item()

    assert ex.pca_reconstruction_mse(uncentred).passed is False
    assert "wrong values" in capsys.readouterr().out
    assert ex.pca_reconstruction_mse(lambda tr, te, k: torch.zeros(3)).passed is False
    assert "must return one number" in capsys.readouterr().out
