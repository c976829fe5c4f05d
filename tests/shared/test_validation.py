"""Every bad-input case of the shared checks gets a clear error naming expected and received values."""

import numpy as np
import pytest
import torch
from torch import nn

from lmtie_edu.shared.tying import shares_parameter, shares_storage, tie, untie
from lmtie_edu.shared.validation import (
    check_bool,
    check_choice,
    check_matrix,
    check_number,
    check_positive_int,
    check_tie_shapes,
    check_token_ids,
)


def test_token_ids_accept_lists_arrays_tensors():
    for ids in ([1, 2], np.array([1, 2]), torch.tensor([1, 2], dtype=torch.int32)):
        out = check_token_ids(ids, 5)
        assert out.dtype == torch.long and out.tolist() == [1, 2]


def test_float_token_ids_are_rejected():
    with pytest.raises(TypeError, match=r"must be integers.*got dtype torch.float32 with values \[1.0, 2.5\]"):
        check_token_ids(torch.tensor([1.0, 2.5]), 5)


def test_bool_token_ids_are_rejected():
    with pytest.raises(TypeError, match="torch.bool"):
        check_token_ids(torch.tensor([True, False]), 5)


def test_negative_token_id_names_range_and_position():
    with pytest.raises(ValueError, match=r"must lie in \[0, 4\] for a vocabulary of 5; got -3 at position \(0, 1\)"):
        check_token_ids([[0, -3]], 5)


def test_out_of_range_token_id():
    with pytest.raises(ValueError, match=r"\[0, 4\].*got 5"):
        check_token_ids([1, 5], 5)


def test_wrong_rank():
    with pytest.raises(ValueError, match=r"rank 1 or 2.*got rank 3 with shape \(1, 1, 2\)"):
        check_token_ids([[[1, 2]]], 5)


def test_non_numeric_ids():
    with pytest.raises(TypeError, match="must be integers"):
        check_token_ids(["a", "b"], 5)


@pytest.mark.parametrize("value, error, text", [
    (0, ValueError, "got 0"), (-2, ValueError, "got -2"), (2.5, TypeError, "got 2.5"),
    (3.0, TypeError, r"use 3 instead of 3.0"), (True, TypeError, "got True"), ("8", TypeError, "got '8'"),
])
def test_positive_int(value, error, text):
    with pytest.raises(error, match=text):
        check_positive_int(value, "d_model")


def test_positive_int_accepts_numpy_integers():
    assert check_positive_int(np.int64(7), "d") == 7


def test_matrix_checks():
    with pytest.raises(ValueError, match=r"2-D matrix.*got shape \(3,\)"):
        check_matrix(torch.zeros(3), "W")
    with pytest.raises(TypeError, match="floating-point"):
        check_matrix(torch.zeros(2, 2, dtype=torch.long), "W")
    with pytest.raises(ValueError, match=r"shape \(4, \*\); got \(3, 2\)"):
        check_matrix(torch.zeros(3, 2), "W", shape=(4, None))
    with pytest.raises(TypeError, match="torch.Tensor"):
        check_matrix([[1.0]], "W")


def test_tie_shape_mismatch_is_explained():
    with pytest.raises(ValueError, match=r"cannot tie.*\(10, 4\).*\(10, 3\)"):
        check_tie_shapes(torch.zeros(10, 4), torch.zeros(10, 3))


def test_transposed_head_is_diagnosed():
    with pytest.raises(ValueError, match=r"did you build nn.Linear\(V, d\)"):
        tie(nn.Linear(10, 4, bias=False), nn.Embedding(10, 4))


def test_tie_rejects_wrong_module_types():
    with pytest.raises(TypeError, match="nn.Linear"):
        tie(nn.Embedding(10, 4), nn.Embedding(10, 4))
    with pytest.raises(TypeError, match="nn.Embedding"):
        tie(nn.Linear(4, 10), nn.Linear(4, 10))


def test_tie_and_untie():
    emb, head = nn.Embedding(10, 4), nn.Linear(4, 10, bias=False)
    tie(head, emb)
    assert shares_parameter(head.weight, emb.weight) and shares_storage(head.weight, emb.weight)
    untie(head)
    assert not shares_parameter(head.weight, emb.weight) and not shares_storage(head.weight, emb.weight)
    assert torch.equal(head.weight, emb.weight)  # same values, separate storage


def test_data_alias_shares_storage_but_is_not_a_tie():
    emb, head = nn.Embedding(10, 4), nn.Linear(4, 10, bias=False)
    head.weight.data = emb.weight.data
    assert shares_storage(head.weight, emb.weight)
    assert not shares_parameter(head.weight, emb.weight)


def test_check_choice():
    with pytest.raises(ValueError, match=r"one of \['relu', 'tanh'\]; got 'gelu'"):
        check_choice("gelu", "activation", ["relu", "tanh"])


def test_check_bool():
    assert check_bool(False, "tie") is False
    for value in (1, 0, "yes", None):
        with pytest.raises(TypeError, match=rf"tie must be True or False; got {value!r}"):
            check_bool(value, "tie")


@pytest.mark.parametrize("value, bounds, text", [
    (-0.1, {"minimum": 0}, r"alpha must be a number >= 0; got -0.1"),
    (0, {"minimum": 0, "strict": True}, r"alpha must be a number > 0; got 0"),
    (5.5, {"minimum": 0, "maximum": 5}, r"alpha must be a number in \[0, 5\]; got 5.5"),
    (1, {"minimum": 0, "maximum": 1, "strict": True}, "strictly between 0 and 1; got 1"),
    (True, {"minimum": 0}, "got True"),
    ("2", {}, "must be a finite number; got '2'"),
    (float("nan"), {}, "got nan"),
    (-1, {"minimum": 0, "strict": True, "expected": "a positive number (a rate)"}, r"a positive number \(a rate\)"),
])
def test_check_number_rejects(value, bounds, text):
    with pytest.raises(ValueError, match=text):
        check_number(value, "alpha", **bounds)


def test_check_number_accepts_ints_floats_and_numpy():
    assert check_number(3, "x", minimum=0) == 3.0
    assert check_number(np.float32(0.5), "x", minimum=0, maximum=1, strict=True) == 0.5
