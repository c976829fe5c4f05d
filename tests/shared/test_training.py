"""TinyLM, the training loop and the window maker."""

import pytest
import torch

from lmtie_edu.shared.models import TinyLM, count_parameters
from lmtie_edu.shared.training import make_windows, train


def test_tied_model_has_one_matrix_fewer():
    tied, untied = TinyLM(50, 8, tie=True), TinyLM(50, 8, tie=False)
    assert tied.tied and not untied.tied
    assert count_parameters(untied) - count_parameters(tied) == 50 * 8


def test_forward_shapes_and_bad_context():
    model = TinyLM(20, 4, context=3)
    assert model(torch.tensor([[1, 2, 3], [4, 5, 6]])).shape == (2, 20)
    with pytest.raises(ValueError, match=r"shape \(batch, 3\); got \(1, 2\)"):
        model(torch.tensor([[1, 2]]))
    with pytest.raises(ValueError, match=r"\[0, 19\].*got 20"):
        model(torch.tensor([[1, 2, 20]]))
    with pytest.raises(TypeError, match="integers"):
        model(torch.tensor([[1.0, 2.0, 3.0]]))


def test_bad_sizes():
    with pytest.raises(ValueError, match="d_model must be an integer >= 1; got 0"):
        TinyLM(10, 0)
    with pytest.raises(TypeError, match="vocab_size"):
        TinyLM(10.5, 4)


def test_make_windows():
    inputs, targets = make_windows(torch.arange(6), 2)
    assert inputs.tolist() == [[0, 1], [1, 2], [2, 3], [3, 4]]
    assert targets.tolist() == [2, 3, 4, 5]
    with pytest.raises(ValueError, match="more than context=5"):
        make_windows(torch.arange(5), 5)
    with pytest.raises(ValueError, match="1-D"):
        make_windows(torch.zeros(2, 3, dtype=torch.long), 1)


def test_training_reduces_loss_and_is_reproducible():
    stream = torch.tensor([0, 1, 2, 3] * 50)
    inputs, targets = make_windows(stream, 2)

    def run():
        torch.manual_seed(0)
        model = TinyLM(4, 8, context=2)
        return model, train(model, inputs, targets, steps=60, lr=1e-2)

    model, losses = run()
    assert len(losses) == 60 and losses[-1] < 0.2 < losses[0]
    assert run()[1] == losses


# -- bad input: every public helper of training.py names the problem ---------------------------------

_IDS = torch.tensor([[0, 1], [1, 2], [2, 3]])
_TARGETS = torch.tensor([2, 3, 0])


@pytest.mark.parametrize("stream, context, error, match", [
    ("the cat sat", 2, TypeError, "not text"),
    (b"\x00\x01\x02", 1, TypeError, "not text"),
    ([0.5, 1.0, 2.0], 1, TypeError, "integers"),
    (torch.tensor([True, False, True]), 1, TypeError, "integers"),
    (torch.tensor([0.0, float("nan"), 2.0]), 1, TypeError, "integers"),
    (torch.arange(6, device="meta"), 2, ValueError, "meta tensor"),
    ([], 1, ValueError, "more than context=1"),
    (torch.tensor([0, 1], dtype=torch.long), 2, ValueError, "more than context=2"),
    ([0, 1, -3, 2], 1, ValueError, ">= 0; got -3"),
    ([[0, 1], [2, 3]], 1, ValueError, "1-D"),
    ([[0, 1], [2]], 1, TypeError, "integers"),
    (torch.arange(6), 0, ValueError, ">= 1"),
    (torch.arange(6), 2.0, TypeError, "use 2 instead"),
    (torch.arange(6), True, TypeError, "integer"),
])
def test_make_windows_bad_input(stream, context, error, match):
    with pytest.raises(error, match=match):
        make_windows(stream, context)


def test_make_windows_accepts_lists_and_arrays():
    import numpy as np

    for stream in ([0, 1, 2, 3], np.array([0, 1, 2, 3])):
        inputs, targets = make_windows(stream, 2)
        assert inputs.dtype == torch.long and targets.tolist() == [2, 3]


@pytest.mark.parametrize("model, inputs, targets, kwargs, error, match", [
    ("not a model", _IDS, _TARGETS, {}, TypeError, "nn.Module"),
    (None, _IDS, _TARGETS, {}, TypeError, "nn.Module"),
    ("tiny", _IDS.float(), _TARGETS, {}, TypeError, "integers"),
    ("tiny", _IDS, "abc", {}, TypeError, "not text"),
    ("tiny", _IDS[:0], _TARGETS[:0], {}, ValueError, "empty"),
    ("tiny", _IDS, _TARGETS[:2], {}, ValueError, "one row per example"),
    ("tiny", _IDS, torch.tensor([2, 3, 9]), {}, ValueError, r"\[0, 5\]"),
    ("tiny", _IDS.flatten(), _TARGETS, {}, ValueError, "rank 2"),
    ("tiny", _IDS.to("meta"), _TARGETS, {}, ValueError, "meta tensor"),
    ("meta", _IDS, _TARGETS, {}, ValueError, "meta device"),
    ("tiny", _IDS, _TARGETS, {"steps": 0}, ValueError, "steps"),
    ("tiny", _IDS, _TARGETS, {"steps": 2.5}, TypeError, "steps"),
    ("tiny", _IDS, _TARGETS, {"batch_size": -1}, ValueError, "batch_size"),
    ("tiny", _IDS, _TARGETS, {"batch_size": 10**12}, ValueError, "at most"),
    ("tiny", _IDS, _TARGETS, {"lr": float("nan")}, ValueError, "learning rate"),
    ("tiny", _IDS, _TARGETS, {"lr": -0.1}, ValueError, "learning rate"),
    ("tiny", _IDS, _TARGETS, {"lr": "fast"}, ValueError, "learning rate"),
    ("tiny", _IDS, _TARGETS, {"seed": "zero"}, TypeError, "seed"),
    ("tiny", _IDS, _TARGETS, {"seed": -1}, ValueError, "seed"),
    ("tiny", _IDS, _TARGETS, {"show_progress": "yes"}, TypeError, "True or False"),
])
def test_train_bad_input(model, inputs, targets, kwargs, error, match):
    if model == "tiny":
        model = TinyLM(6, 4)
    elif model == "meta":
        with torch.device("meta"):
            model = TinyLM(6, 4)
    with pytest.raises(error, match=match):
        train(model, inputs, targets, **({"steps": 2} | kwargs))
