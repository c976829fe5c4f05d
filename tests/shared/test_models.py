"""TinyLM as lesson 02 writes it: the cell and the package are one code, and bad input gets a clear error."""

import pytest
import torch

from lmtie_edu.shared.models import (
    MAX_WEIGHTS,
    TinyLM,
    check_context_ids,
    check_tinylm_sizes,
    count_parameters,
)
from tests.course.notebook_code import assert_cell_matches


def test_lesson_cell_is_the_package_code():
    assert_cell_matches("02_logits_as_inner_products.ipynb", TinyLM)


def _fingerprint(model: TinyLM) -> list[float]:
    """The sum of each tensor of the state dict, then where the global generator stands after construction.

    Sums, compared to 1e-5, not the exact bits: torch draws normal values with vectorised code whose last bits
    depend on the CPU's instruction set; a changed order or number of draws moves these sums far more."""
    sums = [float(value.double().sum()) for value in model.state_dict().values()]
    return sums + torch.rand(3).tolist()


@pytest.mark.parametrize("args, kwargs, expected", [
    ((120, 16), {"tie": True}, [13.25845, 1.967331, -0.405204, -1.716937, -0.41082, 13.25845, 0.195241, 0.712684, 0.381078]),
    ((120, 16), {"tie": False}, [13.25845, 1.967331, -0.405204, -1.716937, -0.41082, 9.122762, 0.195241, 0.712684, 0.381078]),
    ((50, 8), {"context": 3, "hidden": 5, "tie": False},
     [-7.137973, -0.778182, -0.474389, 0.1299, -0.993011, -8.741984, 0.217162, 0.551962, 0.190512]),
])
def test_random_draws_at_construction_are_unchanged(args, kwargs, expected):
    """Lessons 03, 04, 06 and 07 print numbers of TinyLMs built after torch.manual_seed: the draws must not move."""
    torch.manual_seed(3)
    assert _fingerprint(TinyLM(*args, **kwargs)) == pytest.approx(expected, abs=1e-5)


def test_tie_is_one_parameter_and_saves_v_times_d():
    torch.manual_seed(0)
    tied, untied = TinyLM(30, 6, tie=True), TinyLM(30, 6, tie=False)
    assert tied.tied and tied.head.weight is tied.embedding.weight
    assert not untied.tied
    assert count_parameters(untied) - count_parameters(tied) == 30 * 6
    ids = torch.tensor([[1, 2], [3, 4]])
    assert torch.allclose(tied(ids), tied.hidden_state(ids) @ tied.embedding.weight.T, atol=1e-6)


def test_empty_batch_gives_empty_logits():
    assert TinyLM(10, 4)(torch.zeros(0, 2, dtype=torch.long)).shape == (0, 10)


def test_numpy_integer_sizes_are_plain_ints():
    np = pytest.importorskip("numpy")
    model = TinyLM(np.int64(10), np.int32(4))
    assert type(model.vocab_size) is int and type(model.d_model) is int


@pytest.mark.parametrize("args, kwargs, error, message", [
    ((10, 4), {"tie": "no"}, TypeError, "tie must be True or False; got 'no'"),
    ((10, 4), {"tie": None}, TypeError, "tie must be True or False; got None"),
    ((10, 4), {"tie": 1}, TypeError, "tie must be True or False; got 1"),
    ((10**9, 64), {}, ValueError, r"64,000,024,768 weights .*limited to 1,000,000,000"),
    ((10**6, 4096), {"tie": False}, ValueError, "weights"),
    ((10, 4), {"context": 10**6, "hidden": 10**5}, ValueError, "weights"),
    ((10, 0), {}, ValueError, "d_model must be an integer >= 1; got 0"),
    ((-3, 4), {}, ValueError, "vocab_size must be an integer >= 1; got -3"),
    ((10.5, 4), {}, TypeError, "vocab_size must be an integer"),
    ((10.0, 4), {}, TypeError, r"use 10 instead of 10.0"),
    (("10", 4), {}, TypeError, "vocab_size must be an integer"),
    ((True, 4), {}, TypeError, "vocab_size must be an integer"),
    ((10, 4), {"context": 0}, ValueError, "context must be an integer >= 1"),
    ((10, 4), {"hidden": 2.5}, TypeError, "hidden must be an integer"),
    ((10, 4), {"hidden": -1}, ValueError, "hidden must be an integer >= 1"),
])
def test_constructor_bad_input(args, kwargs, error, message):
    with pytest.raises(error, match=message):
        TinyLM(*args, **kwargs)


def test_size_limit_is_checked_before_any_allocation():
    assert check_tinylm_sizes(10, 4, 2, None, True) == (10, 4, 2, 8)
    with pytest.raises(ValueError, match=f"{MAX_WEIGHTS:,}"):
        check_tinylm_sizes(MAX_WEIGHTS, 2, 1, 1, True)


@pytest.mark.parametrize("ids, error, message", [
    (torch.tensor([[1, 2, 3]]), ValueError, r"shape \(batch, 2\); got \(1, 3\)"),
    (torch.tensor([1, 2]), ValueError, "rank 2"),
    (torch.tensor([[1, 10]]), ValueError, r"\[0, 9\].*got 10"),
    (torch.tensor([[-1, 2]]), ValueError, r"\[0, 9\].*got -1"),
    (torch.tensor([[1.0, 2.0]]), TypeError, "integers"),
    (torch.tensor([[True, False]]), TypeError, "integers"),
    (torch.tensor([[float("nan"), 1.0]]), TypeError, "integers"),
    ("the cat", TypeError, "integers"),
    (torch.empty(1, 2, dtype=torch.long, device="meta"), ValueError, "meta tensor"),
])
def test_forward_bad_input(ids, error, message):
    with pytest.raises(error, match=message):
        TinyLM(10, 4)(ids)


def test_check_context_ids_accepts_lists():
    assert check_context_ids([[1, 2]], 10, 2).dtype == torch.long


@pytest.mark.parametrize("model", ["TinyLM", None, torch.zeros(3)])
def test_count_parameters_bad_input(model):
    with pytest.raises(TypeError, match="torch.nn.Module"):
        count_parameters(model)
