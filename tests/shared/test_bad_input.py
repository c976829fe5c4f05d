"""Bad input to the shared helpers (validation, tying, seeding, plotting, progress, report formatting):
each case a clear error that names the problem and what was expected — or a correct result."""

import math

import pytest
import torch
from torch import nn

from lmtie_edu.kit.panels import format_number
from lmtie_edu.kit.plotting import heatmap, new_figure
from lmtie_edu.shared.progress import Progress
from lmtie_edu.shared.seeding import seeded
from lmtie_edu.shared.tying import shares_parameter, shares_storage, tie, untie
from lmtie_edu.shared.validation import (
    check_matrix,
    check_number,
    check_positive_int,
    check_tie_shapes,
    check_token_ids,
)

NAN, INF = float("nan"), float("inf")


@pytest.mark.parametrize("matrix, error, text", [
    ([[1.0, 2.0]], TypeError, "must be a torch.Tensor; got list"),
    (torch.ones(3), ValueError, "2-D matrix"),
    (torch.ones(2, 2, dtype=torch.long), TypeError, "floating-point"),
    (torch.ones(0, 4), ValueError, "at least one row and one column; got shape (0, 4)"),
    (torch.tensor([[1.0, NAN]]), ValueError, "finite numbers; it contains NaN"),
    (torch.tensor([[1.0, INF]]), ValueError, "finite numbers; it contains inf"),
    (torch.ones(3, 4, device="meta"), ValueError, "meta tensor"),
])
def test_check_matrix_rejects(matrix, error, text):
    with pytest.raises(error, match=text.replace("(", r"\(").replace(")", r"\)")):
        check_matrix(matrix, "W")


@pytest.mark.parametrize("value, error", [(-3, ValueError), (0, ValueError), (2.5, TypeError), (True, TypeError),
                                          ("4", TypeError), (None, TypeError)])
def test_check_positive_int_rejects(value, error):
    with pytest.raises(error, match="must be an integer >= 1"):
        check_positive_int(value, "size")


@pytest.mark.parametrize("value", [NAN, INF, -INF, "0.5", None, True])
def test_check_number_rejects_non_finite_and_non_numbers(value):
    with pytest.raises(ValueError, match="must be a number in"):
        check_number(value, "lr", minimum=0, maximum=1)


@pytest.mark.parametrize("ids, error, text", [
    ("cat", TypeError, "must be integers"),
    ([1.5, 2.0], TypeError, "must be integers"),
    ([True, False], TypeError, "must be integers"),
    ([3, -1], ValueError, r"must lie in \[0, 4\]"),
    ([[[1]]], ValueError, "rank"),
    (torch.ones(2, 3, dtype=torch.long, device="meta"), ValueError, "meta tensor"),
])
def test_check_token_ids_rejects(ids, error, text):
    with pytest.raises(error, match=text):
        check_token_ids(ids, 5)


def test_check_token_ids_accepts_an_empty_batch():
    assert check_token_ids([], 5).shape == (0,)


@pytest.mark.parametrize("emb, head, error, text", [
    ("W", torch.ones(2, 2), TypeError, "embedding weight must be a tensor"),
    (torch.ones(5, 3), [[1.0]], TypeError, "head weight must be a tensor"),
    (torch.ones(5, 3), torch.ones(3, 5), ValueError, "looks transposed"),
])
def test_check_tie_shapes_rejects(emb, head, error, text):
    with pytest.raises(error, match=text):
        check_tie_shapes(emb, head)


def test_tie_rejects_wrong_modules_and_shapes():
    with pytest.raises(TypeError, match="head must be an nn.Linear"):
        tie(nn.Embedding(5, 3), nn.Embedding(5, 3))
    with pytest.raises(TypeError, match="embedding must be an nn.Embedding"):
        tie(nn.Linear(3, 5), nn.Linear(3, 5))
    with pytest.raises(ValueError, match="cannot tie"):
        tie(nn.Linear(4, 5, bias=False), nn.Embedding(5, 3))
    with pytest.raises(TypeError, match="head must be an nn.Linear"):
        untie(torch.ones(5, 3))


def test_storage_sharing_of_tensors_without_memory():
    assert not shares_storage(torch.empty(0), torch.empty(0))  # both report address 0: not sharing
    empty = torch.empty(0, 3)
    assert not shares_storage(empty, empty)
    with pytest.raises(ValueError, match="meta tensor"):
        shares_storage(torch.ones(2, device="meta"), torch.ones(2, device="meta"))
    with pytest.raises(TypeError, match="must be a torch.Tensor"):
        shares_storage([1.0], torch.ones(1))
    with pytest.raises(TypeError, match="must be a torch.Tensor"):
        shares_parameter(nn.Linear(2, 2), nn.Linear(2, 2))
    w = torch.ones(4)
    assert shares_storage(w, w[1:]) and not shares_storage(w, w.clone())


def test_seeded_restores_the_learners_generator_and_rejects_bad_seeds():
    torch.manual_seed(123)
    expected = torch.rand(3)
    torch.manual_seed(123)
    with seeded(0):
        inside = torch.rand(3)
    assert torch.equal(torch.rand(3), expected)  # the learner's stream continues as if nothing happened
    with seeded(0):
        assert torch.equal(torch.rand(3), inside)  # and the block itself is reproducible
    for bad, error in ((-1, ValueError), (1.5, TypeError), ("0", TypeError)):
        with pytest.raises(error, match="seed must be an integer >= 0"), seeded(bad):
            pass


@pytest.mark.parametrize("kwargs, error, text", [
    ({"nrows": 0}, ValueError, "nrows must be an integer >= 1"),
    ({"ncols": -2}, ValueError, "ncols must be an integer >= 1"),
    ({"size": (8.0,)}, TypeError, r"size must be \(width, height\)"),
    ({"size": (NAN, 3.0)}, ValueError, "width/height in inches"),
    ({"size": (-8.0, 3.0)}, ValueError, "width/height in inches"),
])
def test_new_figure_rejects(kwargs, error, text):
    with pytest.raises(error, match=text):
        new_figure(**kwargs)


def test_heatmap_rejects_what_it_cannot_draw_and_draws_nan_blank():
    fig, ax = new_figure()
    with pytest.raises(ValueError, match="2-D with at least one row"):
        heatmap(ax, torch.ones(0, 3))
    with pytest.raises(ValueError, match="2-D with at least one row"):
        heatmap(ax, torch.ones(4))
    with pytest.raises(ValueError, match="meta tensor"):
        heatmap(ax, torch.ones(2, 2, device="meta"))
    with pytest.raises(TypeError, match="2-D tensor or array of numbers"):
        heatmap(ax, [["a", "b"]])
    with pytest.raises(ValueError, match=r"highlight_rows must lie in \[0, 1\]"):
        heatmap(ax, torch.ones(2, 2), highlight_rows=[2])
    image = heatmap(ax, torch.tensor([[1.0, NAN], [-2.0, 0.5]]))
    assert image.get_clim() == (-2.0, 2.0)  # the scale comes from the finite values


def test_progress_needs_a_length_or_a_total():
    with pytest.raises(TypeError, match="needs total="):
        Progress(iter(range(3)), "training")
    assert list(Progress(iter(range(3)), "training", total=3)) == [0, 1, 2]
    with pytest.raises(ValueError, match="whole number of steps"):
        Progress([1, 2], total=-1)


def test_format_number_keeps_non_finite_values_readable():
    assert format_number(NAN) == "nan" and format_number(-INF) == "-inf"
    assert format_number(math.pi, digits=3) == "3.14"
