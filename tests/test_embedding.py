"""Lesson 01 helpers: lookup, gradient rows, the panel and its bad inputs."""

import pytest
import torch
import torch.nn.functional as F

from lmtie_edu import embedding


def test_one_hot_lookup_equals_indexing():
    W = torch.randn(7, 3)
    ids = torch.tensor([[6, 0], [2, 2]])
    assert torch.equal(embedding.one_hot(ids, 7) @ W, W[ids])
    assert torch.equal(embedding.lookup(W, ids), F.embedding(ids, W))


def test_lookup_rejects_bad_ids_and_matrices():
    W = torch.randn(7, 3)
    with pytest.raises(TypeError, match="integers"):
        embedding.lookup(W, torch.tensor([1.0]))
    with pytest.raises(ValueError, match=r"\[0, 6\].*got 7"):
        embedding.lookup(W, [7])
    with pytest.raises(ValueError, match="2-D"):
        embedding.lookup(torch.randn(7), [1])


@pytest.mark.parametrize("text, error, message", [
    ("2, 5.5", ValueError, r"whole numbers in \[0, 11\]; got '5.5' \(a decimal number\)"),
    ("2, x", ValueError, r"got 'x' \(not a number\)"),
    ("2, 12", ValueError, r"\[0, 11\].*got 12"),
    ("2, -1", ValueError, "got -1"),
    ("  ", ValueError, "at least one token id"),
])
def test_parse_ids_errors(text, error, message):
    with pytest.raises(error, match=message):
        embedding.parse_ids(text, 12)


def test_parse_ids_accepts_commas_and_spaces():
    assert embedding.parse_ids("2, 5 5,9", 12).tolist() == [2, 5, 5, 9]


def test_untied_gradient_touches_only_input_rows():
    out = embedding.next_token_gradient([2, 5, 5, 9], tie=False)
    assert out["rows_touched"] == [2, 5]  # 9 is only a target: its input row gets nothing
    assert out["inputs"] == [2, 5, 5] and out["targets"] == [5, 5, 9]


def test_tied_gradient_touches_every_row():
    out = embedding.next_token_gradient([2, 5, 5, 9], tie=True)
    assert out["rows_touched"] == list(range(12))


def test_tied_gradient_is_input_part_plus_output_part():
    ids = torch.tensor([2, 5, 5, 9])
    tied = embedding.next_token_gradient(ids, tie=True)["grad"]
    W, _ = embedding.demo_matrices()
    w_in, w_out = W.clone().requires_grad_(), W.clone().requires_grad_()
    F.cross_entropy(F.embedding(ids[:-1], w_in) @ w_out.T, ids[1:], reduction="sum").backward()
    assert torch.allclose(tied, w_in.grad + w_out.grad, atol=1e-6)


def test_gradient_needs_two_ids():
    with pytest.raises(ValueError, match="at least 2 token ids"):
        embedding.next_token_gradient([3], tie=False)


def test_panel_toggle_changes_state_and_figure():
    panel = embedding.lookup_panel()
    png = panel.image.value
    assert panel.result.numbers["rows with non-zero gradient"] == 2
    panel.tie.value = True
    assert panel.result.numbers["rows with non-zero gradient"] == 12
    assert panel.image.value != png


def test_panel_bad_ids_are_explained_not_raised():
    panel = embedding.lookup_panel()
    panel.controls["ids"].value = "1, 99"
    assert "got 99" in panel.status.value
    with pytest.raises(ValueError, match="got 99"):
        panel.set(ids="1, 99")
    with pytest.raises(TypeError, match="must be text"):
        panel.set(ids=[1, 2])


def test_demo_sizes_are_validated():
    with pytest.raises(ValueError, match="vocab_size must be an integer >= 1; got 0"):
        embedding.demo_matrices(vocab_size=0)
