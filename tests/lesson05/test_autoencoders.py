"""Lesson 05 helpers: data split, tied/untied autoencoder, training, PCA floor, panel, bad input."""

import json
import math

import ipywidgets as widgets
import pytest
import torch

from lmtie_edu.kit.panels import PanelResult
from lmtie_edu.lesson05 import exercises as ex
from lmtie_edu.lesson05 import experiment as ae
from lmtie_edu.lesson05 import figures as af
from lmtie_edu.lesson05 import model as am
from lmtie_edu.shared.models import count_parameters
from lmtie_edu.shared.tying import shares_storage
from tests.course.notebook_code import NOTEBOOKS, assert_cell_matches
from tests.lesson05.wrong_answers import ALSO_DIAGNOSED

NOTEBOOK = "05_tied_autoencoders.ipynb"

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
    ae._split.cache_clear()
    again = ae.load_digits_split()
    assert torch.equal(again.train, data.train) and torch.equal(again.test_labels, data.test_labels)


# (import lightness — no sklearn before the data are loaded — is tests/shared/test_imports.py's, for every module)


@pytest.mark.parametrize("bad", [0, 1, 1.5, -0.1, True, "0.2", float("nan")])
def test_split_rejects_bad_fraction(bad):
    with pytest.raises(ValueError, match="test_fraction"):
        ae.load_digits_split(bad)


@pytest.mark.parametrize(("seed", "error"), [(-1, ValueError), (0.5, TypeError), ("0", TypeError)])
def test_split_rejects_bad_seed(seed, error):
    with pytest.raises(error, match="seed"):
        ae.load_digits_split(0.25, seed)


# -- the lesson's cells and the package's copies ---------------------------------------------------
@pytest.mark.parametrize("obj", [am.glorot_std, am.Autoencoder, am.mse, am.train_seeds], ids=lambda o: o.__name__)
def test_lesson_cell_is_the_package_code(obj):
    assert_cell_matches(NOTEBOOK, obj)


def test_lesson_cell_has_the_package_budget():
    cells = json.loads((NOTEBOOKS / NOTEBOOK).read_text(encoding="utf-8"))["cells"]
    source = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
    assert f"STEPS, BATCH_SIZE, LR, EVAL_EVERY = {am.STEPS}, {am.BATCH_SIZE}, {am.LR!r}, {am.EVAL_EVERY}" \
        .replace("0.01", "1e-2") in source
    assert f"DEFAULT_SEEDS = {am.DEFAULT_SEEDS}" in source and f"N_PIXELS = {ae.N_PIXELS}" in source
    assert "train=train_seeds)" in source and "autoencoder_panel(" in source  # the panel retrains with the cell's loop


# -- the model ------------------------------------------------------------------------------------
def test_tied_decoder_is_a_view_of_the_encoder():
    model = am.Autoencoder(64, 16, tie=True)
    decoder = model.decoder_matrix()
    assert model.decoder_weight is None and tuple(decoder.shape) == (64, 16)
    assert shares_storage(decoder, model.W) and decoder._base is model.W
    assert torch.equal(decoder, model.W.T)
    with torch.no_grad():
        model.W[0, 0] = 123.0  # one write changes the decoder too
    assert model.decoder_matrix()[0, 0].item() == 123.0
    assert [name for name, _ in model.named_parameters()] == ["decoder_bias", "encoder.weight", "encoder.bias"]


def test_untied_decoder_is_separate():
    model = am.Autoencoder(64, 16, tie=False)
    assert model.decoder_weight is not None and not shares_storage(model.decoder_matrix(), model.W)


def test_forward_matches_the_formula():
    model = am.Autoencoder(64, 8, tie=True, activation="tanh", output="sigmoid", seed=3)
    x = torch.rand(5, 64, generator=torch.Generator().manual_seed(0))
    W, b, c = model.W, model.encoder.bias, model.decoder_bias
    expected = torch.sigmoid(torch.tanh(x @ W.T + b) @ W + c)
    assert torch.allclose(model(x), expected, atol=1e-6)


def test_forward_converts_float64_images():
    model = am.Autoencoder(64, 8, seed=0)
    x = torch.rand(4, 64, generator=torch.Generator().manual_seed(1))
    out = model(x.double())
    assert out.dtype == torch.float32 and torch.equal(out, model(x))


def test_tied_gradient_is_the_sum_of_both_paths():
    model = am.Autoencoder(64, 8, tie=True, activation="relu", seed=1)
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
    assert count_parameters(am.Autoencoder(64, h, tie=True)) == 64 * h + h + 64
    assert count_parameters(am.Autoencoder(64, h, tie=False)) == 2 * 64 * h + h + 64


def test_glorot_std_and_init_scale():
    assert am.glorot_std(64, 16) == pytest.approx(math.sqrt(2 / 80))
    model = am.Autoencoder(64, 16, seed=0)
    assert model.W.std().item() == pytest.approx(am.glorot_std(64, 16), rel=0.1)
    big = am.Autoencoder(64, 16, init_std=1.0, seed=0)
    assert big.W.std().item() == pytest.approx(1.0, rel=0.1)


def test_weights_depend_on_the_seed_argument_only():
    torch.manual_seed(1)
    a = am.Autoencoder(64, 8, tie=False, seed=0)
    torch.manual_seed(2)  # another global state: the model draws from its own generator
    b = am.Autoencoder(64, 8, tie=False, seed=0)
    assert torch.equal(a.W, b.W) and torch.equal(a.decoder_weight, b.decoder_weight)


def test_same_seed_same_weights_different_seed_different_weights():
    a, b, c = (am.Autoencoder(64, 16, tie=False, seed=s) for s in (0, 0, 1))
    assert torch.equal(a.W, b.W) and torch.equal(a.decoder_weight, b.decoder_weight)
    assert not torch.equal(a.W, c.W)


@pytest.mark.parametrize(("kwargs", "error", "match"), [
    ({"n_hidden": 0}, ValueError, "n_hidden must be an integer >= 1; got 0"),
    ({"n_hidden": -4}, ValueError, "n_hidden must be an integer >= 1; got -4"),
    ({"n_hidden": 16.0}, TypeError, "use 16 instead"),
    ({"n_hidden": True}, TypeError, "n_hidden must be an integer"),
    ({"n_hidden": "16"}, TypeError, "n_hidden must be an integer"),
    ({"n_hidden": 10**7}, ValueError, "at most 50,000,000 weights"),
    ({"n_inputs": -3}, ValueError, "n_inputs"),
    ({"n_inputs": 0}, ValueError, "n_inputs"),
    ({"activation": "softmax"}, ValueError, r"activation must be one of \['linear', 'sigmoid', 'tanh', 'relu'\]"),
    ({"output": "relu"}, ValueError, "output must be one of"),
    ({"tie": "yes"}, TypeError, "tie must be True or False"),
    ({"tie": 1}, TypeError, "tie must be True or False"),
    ({"init_std": -1.0}, ValueError, "init_std must be a positive number"),
    ({"init_std": 0.0}, ValueError, "init_std must be a positive number"),
    ({"init_std": float("nan")}, ValueError, "init_std"),
    ({"init_std": float("inf")}, ValueError, "init_std"),
    ({"init_std": "big"}, ValueError, "init_std"),
    ({"seed": -1}, ValueError, "seed must be an integer >= 0"),
    ({"seed": 1.5}, TypeError, "seed must be an integer"),
])
def test_model_rejects_bad_arguments(kwargs, error, match):
    with pytest.raises(error, match=match):
        am.Autoencoder(**({"n_inputs": 64, "n_hidden": 16} | kwargs))


BAD_IMAGES = [
    (torch.rand(5, 63), ValueError, r"x must have shape \(\*, 64\); got \(5, 63\)"),
    (torch.rand(64), ValueError, "2-D matrix"),
    (torch.rand(2, 8, 8), ValueError, "2-D matrix"),
    (torch.ones(5, 64, dtype=torch.long), TypeError, "floating-point"),
    (torch.ones(5, 64, dtype=torch.bool), TypeError, "floating-point"),
    ([[0.0] * 64], TypeError, "torch.Tensor"),
    ("digits", TypeError, "torch.Tensor"),
    (torch.rand(0, 64), ValueError, "at least one row"),
    (torch.full((3, 64), float("nan")), ValueError, "finite numbers; it contains NaN"),
    (torch.tensor([[float("inf")] + [0.0] * 63]), ValueError, "finite numbers; it contains inf"),
    (torch.empty(3, 64, device="meta"), ValueError, "meta tensor"),
]


@pytest.mark.parametrize(("x", "error", "match"), BAD_IMAGES)
def test_forward_rejects_bad_images(x, error, match):
    with pytest.raises(error, match=match):
        am.Autoencoder(64, 16)(x)


# -- training -------------------------------------------------------------------------------------
def test_training_is_bit_reproducible_and_learns(data):
    a = am.train_seeds(8, tie=True, activation="relu", seeds=[4], data=data, **QUICK)[0]
    b = am.train_seeds(8, tie=True, activation="relu", seeds=[4], data=data, **QUICK)[0]
    c = am.train_seeds(8, tie=True, activation="relu", seeds=[5], data=data, **QUICK)[0]
    assert a.test_mse == b.test_mse and torch.equal(a.model.W, b.model.W)
    assert a.test_mse != c.test_mse
    assert a.steps == [0, 10, 20, 30]
    assert a.final_test_mse < a.test_mse[0] / 3


def test_one_run_does_not_depend_on_the_other_seeds(data):
    alone = am.train_seeds(4, seeds=[1], data=data, **QUICK)[0]
    together = am.train_seeds(4, seeds=[0, 1], data=data, **QUICK)[1]
    assert alone.test_mse == together.test_mse


def test_training_keeps_the_tie(data):
    run = am.train_seeds(8, tie=True, seeds=[0], data=data, **QUICK)[0]
    assert shares_storage(run.model.decoder_matrix(), run.model.W)
    assert count_parameters(run.model) == 64 * 8 + 8 + 64


@pytest.mark.parametrize(("kwargs", "error", "match"), [
    ({"steps": 0}, ValueError, "steps"),
    ({"steps": -5}, ValueError, "steps"),
    ({"steps": 10.0}, TypeError, "steps"),
    ({"batch_size": 5000}, ValueError, "batch_size must be at most the 1347 training images; got 5000"),
    ({"batch_size": 0}, ValueError, "batch_size"),
    ({"batch_size": True}, TypeError, "batch_size"),
    ({"eval_every": 2.0}, TypeError, "eval_every"),
    ({"lr": -0.1}, ValueError, "lr must be a positive learning rate"),
    ({"lr": float("nan")}, ValueError, "lr must be a positive learning rate"),
    ({"lr": "0.01"}, ValueError, "lr must be a positive learning rate"),
    ({"activation": "gelu"}, ValueError, "activation"),
    ({"seeds": []}, ValueError, "at least one seed"),
    ({"seeds": "012"}, TypeError, "seeds must be a list of integers"),
    ({"seeds": 3}, TypeError, "seeds must be a list of integers"),
    ({"seeds": [0, 1.5]}, TypeError, "seed must be an integer"),
    ({"seeds": [-1]}, ValueError, "seed must be an integer >= 0"),
    ({"data": {"train": 1}}, TypeError, "data must be a DigitsSplit"),
    ({"n_hidden": 0}, ValueError, "n_hidden"),
])
def test_training_rejects_bad_arguments(data, kwargs, error, match):
    kwargs = {"n_hidden": 8, "data": data} | kwargs
    with pytest.raises(error, match=match):
        am.train_seeds(kwargs.pop("n_hidden"), **kwargs)


@pytest.mark.parametrize(("train", "match"), [
    (torch.full((10, 64), float("nan")), "data.train must hold finite numbers"),
    (torch.rand(10, 63), r"data.train must have shape \(\*, 64\)"),
    (torch.rand(0, 64), "data.train must have at least one row"),
])
def test_training_rejects_bad_data(data, train, match):
    bad = ae.DigitsSplit(train, data.test, data.train_labels, data.test_labels)
    with pytest.raises(ValueError, match=match):
        am.train_seeds(4, seeds=[0], data=bad, **QUICK)


def test_training_accepts_float64_data(data):
    as64 = ae.DigitsSplit(data.train.double(), data.test.double(), data.train_labels, data.test_labels)
    run64 = am.train_seeds(4, seeds=[0], data=as64, **QUICK)[0]
    run32 = am.train_seeds(4, seeds=[0], data=data, **QUICK)[0]
    assert run64.final_test_mse == pytest.approx(run32.final_test_mse, rel=1e-5)


def test_summarise(data):
    runs = am.train_seeds(4, seeds=[0, 1], data=data, **QUICK)
    mean, std = ae.summarise(runs)
    values = [r.final_test_mse for r in runs]
    assert mean == pytest.approx(sum(values) / 2) and std == pytest.approx(abs(values[0] - values[1]) / math.sqrt(2))
    assert ae.summarise(runs[:1]) == (values[0], 0.0)
    assert ae.summarise(runs, "train")[0] == pytest.approx(sum(r.final_train_mse for r in runs) / 2)


def _run(seed, final):
    run = ae.Run(am.Autoencoder(64, 2), seed)
    run.record(0, 0.5, 0.5)
    run.record(10, final, final)
    return run


@pytest.mark.parametrize("bad", [float("nan"), float("inf")])
def test_summarise_names_a_diverged_run(bad):
    with pytest.raises(ValueError, match=r"the runs with seeds \[1\] diverged \(final test MSE is NaN or inf\)"):
        ae.summarise([_run(0, 0.1), _run(1, bad)])


@pytest.mark.parametrize(("runs", "which", "error", "match"), [
    ([], "test", TypeError, "non-empty list of Run"),
    ("runs", "test", TypeError, "non-empty list of Run"),
    ([0.1, 0.2], "test", TypeError, "non-empty list of Run"),
    (None, "validation", ValueError, "which must be one of"),
])
def test_summarise_rejects_bad_input(runs, which, error, match):
    with pytest.raises(error, match=match):
        ae.summarise(runs, which)


def test_summarise_rejects_a_single_run_not_in_a_list():
    with pytest.raises(TypeError, match="non-empty list of Run"):
        ae.summarise(_run(0, 0.1))


# -- the PCA floor --------------------------------------------------------------------------------
def test_pca_error_falls_with_k_and_vanishes_at_full_rank(data):
    errors = [ae.pca_mse(data.train, data.test, k) for k in (1, 4, 16, 32, 64)]
    assert all(a > b for a, b in zip(errors, errors[1:], strict=False))
    assert errors[-1] < 1e-12


def test_pca_curve_is_pca_mse_for_every_k(data):
    ks = [1, 4, 16, 63, 64]
    assert ae.pca_mse_curve(data.train, data.test, ks) == [ae.pca_mse(data.train, data.test, k) for k in ks]
    assert ae.pca_mse_curve(data.train, data.test, range(1, 3)) == [ae.pca_mse(data.train, data.test, k) for k in (1, 2)]


def test_pca_reconstruction_is_float64_and_accepts_float64_input(data):
    rec = ae.pca_reconstruct(data.train, data.test, 8)
    assert rec.dtype == torch.float64
    assert ae.pca_mse(data.train.double(), data.test.double(), 8) == pytest.approx(
        ae.pca_mse(data.train, data.test, 8), rel=1e-12)


def test_pca_matches_the_reference_solution(data):
    from lmtie_edu.lesson05.solutions import pca_reconstruction_mse

    assert ae.pca_mse(data.train, data.test, 16) == pytest.approx(
        pca_reconstruction_mse(data.train.double(), data.test.double(), 16), rel=1e-9)


def test_pca_is_the_floor_of_a_trained_linear_autoencoder_on_the_training_set(data):
    run = am.train_seeds(8, tie=True, activation="linear", seeds=[0], data=data, steps=150, eval_every=150)[0]
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


def test_metrics_accept_a_parameter_that_requires_grad(data):
    model = am.Autoencoder(64, 4)
    assert 0 <= ae.subspace_overlap(model.W, data.train) <= 1 and ae.orthonormality_gap(model.W) >= 0


NAN_ROWS = torch.full((3, 64), float("nan"))


@pytest.mark.parametrize(("call", "error", "match"), [
    (lambda d: ae.pca_mse(d.train, d.test, 0), ValueError, "k"),
    (lambda d: ae.pca_mse(d.train, d.test, 65), ValueError, "at most 64"),
    (lambda d: ae.pca_mse(d.train, d.test, 2.0), TypeError, "k"),
    (lambda d: ae.pca_mse(d.train, d.test, True), TypeError, "k"),
    (lambda d: ae.pca_mse(d.train, d.test[:, :10], 2), ValueError, r"\(\*, 64\)"),
    (lambda d: ae.pca_mse(d.train[:1], d.test, 1), ValueError, "at least 2 images"),
    (lambda d: ae.pca_mse(d.train[:0], d.test, 1), ValueError, "at least one row"),
    (lambda d: ae.pca_mse(NAN_ROWS, d.test, 1), ValueError, "train must hold finite numbers"),
    (lambda d: ae.pca_mse(d.train, NAN_ROWS, 1), ValueError, "x must hold finite numbers"),
    (lambda d: ae.pca_mse(d.train.tolist(), d.test, 1), TypeError, "torch.Tensor"),
    (lambda d: ae.pca_mse(torch.empty(5, 64, device="meta"), d.test, 1), ValueError, "meta tensor"),
    (lambda d: ae.pca_reconstruct(d.train, d.test.long(), 1), TypeError, "floating-point"),
    (lambda d: ae.subspace_overlap(torch.rand(3, 10), d.train), ValueError, r"\(\*, 64\)"),
    (lambda d: ae.subspace_overlap(torch.rand(70, 64), d.train), ValueError, "at most 64 rows"),
    (lambda d: ae.subspace_overlap(NAN_ROWS, d.train), ValueError, "weight must hold finite numbers"),
    (lambda d: ae.subspace_overlap("W", d.train), TypeError, "torch.Tensor"),
    (lambda d: ae.orthonormality_gap(torch.rand(64)), ValueError, "2-D"),
    (lambda d: ae.orthonormality_gap(torch.rand(0, 64)), ValueError, "at least one row"),
    (lambda d: ae.orthonormality_gap(NAN_ROWS), ValueError, "finite"),
    (lambda d: ae.pca_mse_curve(d.train, d.test, []), TypeError, "non-empty list of component counts"),
    (lambda d: ae.pca_mse_curve(d.train, d.test, 16), TypeError, "non-empty list of component counts"),
    (lambda d: ae.pca_mse_curve(d.train, d.test, "16"), TypeError, "non-empty list of component counts"),
    (lambda d: ae.pca_mse_curve(d.train, d.test, [4, 0]), ValueError, "k"),
    (lambda d: ae.pca_mse_curve(d.train, d.test, [65]), ValueError, "at most 64"),
    (lambda d: ae.pca_mse_curve(d.train, d.test[:, :10], [2]), ValueError, r"\(\*, 64\)"),
    (lambda d: am.glorot_std(0, 16), ValueError, "n_in"),
    (lambda d: am.glorot_std(64, 16.5), TypeError, "n_out"),
])
def test_pca_helpers_reject_bad_input(data, call, error, match):
    with pytest.raises(error, match=match):
        call(data)


# -- figures and the panel ------------------------------------------------------------------------
def test_digit_montage_shape_and_gaps():
    montage = af.digit_montage([torch.zeros(3, 64), torch.ones(3, 64)])
    assert montage.shape == (17, 26)
    assert montage[:8, :8].max() == 0 and montage[9:, :8].min() == 1
    assert all(math.isnan(v) for v in montage[8])


def test_normalised_rows():
    rows = af.normalised_rows(torch.tensor([[2.0, -4.0], [0.5, 0.25]]))
    assert torch.equal(rows, torch.tensor([[0.5, -1.0], [1.0, 0.5]]))


@pytest.mark.parametrize(("call", "error", "match"), [
    (lambda: af.digit_montage([]), TypeError, "non-empty list"),
    (lambda: af.digit_montage(torch.zeros(3, 64)), TypeError, "non-empty list"),
    (lambda: af.digit_montage([torch.zeros(3, 63)]), ValueError, r"rows\[0\] must have shape \(\*, 64\)"),
    (lambda: af.digit_montage([torch.zeros(3, 64)], gap=-1), ValueError, "gap"),
    (lambda: af.normalised_rows(NAN_ROWS), ValueError, "finite"),
    (lambda: af.normalised_rows(torch.zeros(0, 4)), ValueError, "at least one row"),
])
def test_figure_helpers_reject_bad_input(call, error, match):
    with pytest.raises(error, match=match):
        call()


REAL_TRAIN_SEEDS = am.train_seeds


def quick_train(calls=None):
    """The panel's training with 30 steps instead of the lesson's budget (the logic under test is the same)."""

    def train(*args, **kwargs):
        if calls is not None:
            calls.append(kwargs["tie"])
        return REAL_TRAIN_SEEDS(*args, **(kwargs | QUICK))

    return train


def test_panel_retrains_on_every_toggle_with_the_given_function():
    calls = []
    panel = af.autoencoder_panel(tie=True, hidden=4, activation="linear", train=quick_train(calls))
    assert isinstance(panel.result, PanelResult)
    first = dict(panel.result.numbers)
    panel.tie.value = False
    panel.tie.value = True  # back: trained again, not served from a cache
    assert calls == [True, False, True]
    assert panel.result.numbers == first  # same seeds → bit-identical retrain
    assert first["parameters"] == 64 * 4 + 4 + 64 and first["seeds"] == "[0, 1, 2]"
    assert float(first["PCA floor (held-out)"]) == pytest.approx(ae.pca_mse(*_train_test(), 4), rel=1e-2)
    assert all(len(first[k].replace("0.", "").lstrip("0").replace(".", "")) <= 3
               for k in ("held-out MSE mean", "PCA floor (held-out)", "mean / PCA"))  # 3 significant digits
    panel.set(tie=False, hidden=6, output="sigmoid")
    assert panel.result.numbers["parameters"] == 2 * 64 * 6 + 6 + 64


def test_panel_default_training_is_the_package_copy(monkeypatch):
    calls = []
    monkeypatch.setattr(am, "train_seeds", quick_train(calls))
    af.autoencoder_panel(hidden=4, activation="linear")
    assert calls == [True]


def _train_test():
    split = ae.load_digits_split()
    return split.train, split.test


@pytest.mark.parametrize(("values", "error", "match"), [
    ({"hidden": 100}, ValueError, r"hidden must be a value in \[2, 64\]; got 100"),
    ({"hidden": 1}, ValueError, "hidden"),
    ({"hidden": 8.5}, TypeError, "hidden must be an integer"),
    ({"hidden": True}, TypeError, "hidden must be an integer"),
    ({"activation": "gelu"}, ValueError, "activation must be one of"),
    ({"output": "softmax"}, ValueError, "output must be one of"),
    ({"tie": "no"}, TypeError, "tie must be True or False"),
    ({"depth": 3}, ValueError, "no control 'depth'"),
])
def test_panel_rejects_impossible_values(values, error, match):
    panel = af.autoencoder_panel(hidden=4, activation="linear", train=quick_train())
    before = panel.redraws
    with pytest.raises(error, match=match):
        panel.set(**values)
    assert panel.redraws == before


def test_panel_rejects_a_training_function_that_is_not_callable():
    with pytest.raises(TypeError, match="train must be a training function"):
        af.autoencoder_panel(train="train_seeds")


@pytest.mark.parametrize(("kwargs", "error", "match"), [
    ({"hidden": 65}, ValueError, "hidden must be at most 64"),
    ({"hidden": 0}, ValueError, "hidden"),
    ({"hidden": "8"}, TypeError, "hidden"),
    ({"output": "tanh"}, ValueError, "output must be one of"),
    ({"activation": "gelu"}, ValueError, "activation must be one of"),
    ({"tie": "yes"}, TypeError, "tie must be True or False"),
    ({"seeds": []}, ValueError, "at least one seed"),
])
def test_figure_function_rejects_bad_values(kwargs, error, match):
    with pytest.raises(error, match=match):
        af.autoencoder_figure(**kwargs, train=quick_train())


def test_panel_slider_retrains_only_on_release():
    panel = af.autoencoder_panel(hidden=4, activation="linear", train=quick_train())
    slider = panel.controls["hidden"]
    assert isinstance(slider, widgets.IntSlider) and slider.continuous_update is False  # no retrain per drag step
    assert set(panel.controls) == {"tie", "hidden", "activation", "output"}


# -- exercise checkers ----------------------------------------------------------------------------
@pytest.mark.parametrize(("how", "status"), ex.TIE_CASES)
def test_tie_status_models_behave_as_labelled(how, status, data):
    """The models the tie_status check hands out: a copy drifts after one step, a detached or new-Parameter
    decoder gives W no decoder-path gradient, the real tie keeps one matrix that learns from both paths."""
    model = ex.model_that_ties_by(how, 64, 8, 0)
    decoder_before = model.decoder_matrix().detach().clone()
    x = data.train[:32]
    torch.nn.functional.mse_loss(model(x), x).backward()
    W_enc = model.W.detach().clone().requires_grad_(True)  # W's gradient through the encoder path alone
    code = x @ W_enc.T + model.encoder.bias.detach()
    torch.nn.functional.mse_loss(code @ decoder_before.T + model.decoder_bias.detach(), x).backward()
    gets_both_paths = not torch.allclose(model.W.grad, W_enc.grad)
    assert gets_both_paths == (how == "view")
    torch.optim.SGD(model.parameters(), lr=0.5).step()
    stays_equal = torch.equal(model.decoder_matrix().detach(), model.W.detach().t())
    assert stays_equal == (status in ("tied", "detached"))
    moved = not torch.equal(decoder_before, model.decoder_matrix().detach())
    assert moved != how.startswith("frozen")  # every decoder trains in some way, except a frozen one of its own
    assert (status in ("tied", "detached")) == shares_storage(model.decoder_matrix(), model.W)


def test_tie_status_check_diagnoses_a_new_parameter_instead_of_crashing(capsys):
    """nn.Parameter(W.t()) leaves W.grad empty: the check must name the mistake, not crash on None."""
    def answer_that_reads_W_grad(model):
        model.decoder_matrix().sum().backward()
        return "tied" if model.W.grad is not None else "detached"

    assert ex.tie_status(answer_that_reads_W_grad).passed is False
    out = capsys.readouterr().out
    assert out.startswith("❌ tie_status:") and "⚠️" not in out  # the learner's result, never the checker's crash

    def says_tied_for_shared_memory_with_grad(model):
        decoder = model.decoder_matrix()
        if shares_storage(decoder, model.W):
            return "tied" if decoder.requires_grad else "detached"
        return "copy" if torch.equal(decoder.detach(), model.W.detach().t()) else "untied"

    assert ex.tie_status(says_tied_for_shared_memory_with_grad).passed is False
    out = capsys.readouterr().out
    assert "'new Parameter'" in out and "a new nn.Parameter made from Wᵀ is detached, not tied" in out


def test_new_parameter_over_W_is_what_its_diagnosis_says():
    """The diagnosis says nn.Parameter(W.t()) wraps W's memory (no copy) and stops the decoder-path gradient."""
    model = ex.model_that_ties_by("new Parameter", 6, 3, 0)
    decoder = model.decoder_matrix()
    assert shares_storage(decoder, model.W) and decoder.is_leaf
    assert torch.autograd.grad(decoder.sum(), model.W, allow_unused=True)[0] is None
    with torch.no_grad():
        decoder[0, 0] += 1.0  # one memory: a change through the decoder is a change of W
    assert model.W[0, 0] == decoder[0, 0]
    assert "detached" in ex.tie_status.mistakes["new_parameter_called_tied"]
    assert "copy" not in ex.tie_status.mistakes["new_parameter_called_tied"].split(":")[0]


@pytest.mark.parametrize(("name", "key", "answer"), [
    (name, key, answer) for name, keys in ALSO_DIAGNOSED.items() for key, answers in keys.items() for answer in answers])
def test_further_wrong_answers_get_the_named_diagnosis(name, key, answer, capsys):
    check = getattr(ex, name)
    assert check(answer).passed is False
    out = capsys.readouterr().out
    assert out.startswith(f"❌ {name}:") and f"diagnosis: {check.mistakes[key]}" in out, out


@pytest.mark.parametrize(("key", "factor"), [("missing_two", "1/2"), ("mean_over_images", "5")])  # first case: d = 5
def test_tied_gradient_names_the_factor_and_its_cause(key, factor, capsys):
    """Off by 2 or by d: the where line gives the factor, the diagnosis its cause."""
    from tests.lesson05.wrong_answers import WRONG

    assert ex.tied_gradient(WRONG["tied_gradient"][key]).passed is False
    out = capsys.readouterr().out
    assert f"the expected one times {factor};" in out
    assert f"diagnosis: {ex.tied_gradient.mistakes[key]}" in out


def test_tied_gradient_reference_is_autograd_on_the_lesson_model(data):
    from lmtie_edu.lesson05.solutions import tied_gradient

    model = am.Autoencoder(64, 8, tie=True, activation="linear", seed=3)
    with torch.no_grad():
        model.encoder.bias.normal_(generator=torch.Generator().manual_seed(1))
        model.decoder_bias.normal_(generator=torch.Generator().manual_seed(2))
    x = data.train[:20]
    torch.nn.functional.mse_loss(model(x), x).backward()
    by_hand = tied_gradient(model.W.detach(), model.encoder.bias.detach(), model.decoder_bias.detach(), x)
    assert torch.allclose(by_hand, model.W.grad, atol=1e-6)


# -- predict, then run: each question's answer is what the lesson's next cell shows -----------------
def test_prediction_listed_parameters():
    from lmtie_edu.lesson05 import questions as predict

    names = [name for name, _ in am.Autoencoder(64, 16, tie=True, activation="relu", seed=0).named_parameters()]
    assert sorted(names) == ["decoder_bias", "encoder.bias", "encoder.weight"]
    assert predict.listed_parameters.right == "W once, plus the two biases"


def test_prediction_gradient_norm(data):
    """The cell of section 2: seed-0 ReLU model, the first five test digits."""
    from lmtie_edu.lesson05 import questions as predict

    model = am.Autoencoder(64, 16, tie=True, activation="relu", seed=0)
    x = data.test[:5]
    torch.nn.functional.mse_loss(model(x), x).backward()
    W = model.W.detach()
    W_enc, W_dec = W.clone().requires_grad_(True), W.clone().requires_grad_(True)
    b, c = model.encoder.bias.detach(), model.decoder_bias.detach()
    torch.nn.functional.mse_loss(torch.relu(x @ W_enc.T + b) @ W_dec + c, x).backward()
    tied, parts = model.W.grad.norm(), (W_enc.grad.norm(), W_dec.grad.norm())
    assert tied < max(parts) and tied < sum(parts)
    assert predict.gradient_norm.right == "it can be smaller than the larger part's norm"


def test_prediction_tied_share():
    from lmtie_edu.lesson05 import questions as predict

    tied, untied = (count_parameters(am.Autoencoder(64, 16, tie=tie)) for tie in (True, False))
    assert 0.5 < tied / untied < 0.55
    assert predict.tied_share.right == "a little above 0.5"


def test_prediction_linear_floor(data):
    """Section 4's table, training column: neither linear model ends below PCA (k = 16) on any seed."""
    from lmtie_edu.lesson05 import questions as predict

    pca_train = ae.pca_mse(data.train, data.train, 16)
    for tie in (True, False):
        group = am.train_seeds(16, tie=tie, activation="linear", data=data)
        assert len(group) == 5 and all(run.final_train_mse >= pca_train for run in group)
        assert ae.summarise(group, "train")[0] >= pca_train  # the mean the table prints, too
    assert predict.linear_floor.right == "neither below PCA: on the training set no such model can beat it"
    assert set(predict.linear_floor.options) - {predict.linear_floor.right} == {
        "the untied one below PCA: its second matrix gives it more freedom",
        "both below PCA: 300 Adam steps fit better than one SVD"}


def test_prediction_linear_floor_is_answered_by_the_next_cell():
    """The stored output of the cell just after the question shows it: both linear rows' training error (mean
    over the seeds) at or above PCA's training error."""
    cells = json.loads((NOTEBOOKS / NOTEBOOK).read_text())["cells"]
    ask = next(i for i, cell in enumerate(cells) if "".join(cell["source"]) == "predict.linear_floor.ask()")
    assert "*training* errors" in "".join(cells[ask - 1]["source"])
    lines = "".join("".join(out.get("text", "")) for out in cells[ask + 1]["outputs"]).splitlines()
    pca_train = float(next(line for line in lines if line.strip().startswith("PCA, k = 16")).split()[4])
    for name in ("tied linear", "untied linear"):
        row = next(line for line in lines if line.strip().startswith(name))
        assert float(row.split()[3]) >= pca_train, row
