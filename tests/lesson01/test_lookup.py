"""Lesson 01 helpers: lookup, gradient rows, the one-step gradient, the panel and their bad inputs."""

import pytest
import torch
import torch.nn.functional as F

from lmtie_edu.lesson01 import lookup as embedding
from tests.course.notebook_code import assert_cell_matches

W7 = torch.randn(7, 3, generator=torch.Generator().manual_seed(0))


def test_one_hot_product_equals_indexing():
    ids = torch.tensor([[6, 0], [2, 2]])
    assert torch.equal(F.one_hot(ids, 7).float() @ W7, W7[ids])
    assert torch.equal(F.embedding(ids, W7), W7[ids])


# The lesson used to show these beside torch's own messages; the comparison lives here: the checked ids
# of every lesson 01 helper (check_token_ids) name the expected range and the received value.
@pytest.mark.parametrize("ids, torch_error, error, message", [
    (torch.tensor([1.0, 2.0]), RuntimeError, TypeError, r"must be integers \(torch.long\).*ids.long\(\)"),
    (torch.tensor([1, -1]), IndexError, ValueError, r"\[0, 6\] for a vocabulary of 7; got -1 at position \(1,\)"),
    (torch.tensor([1, 7]), IndexError, ValueError, r"\[0, 6\] for a vocabulary of 7; got 7 at position \(1,\)"),
])
def test_checked_ids_explain_what_torch_does_not(ids, torch_error, error, message):
    with pytest.raises(torch_error):
        F.embedding(ids, W7)
    with pytest.raises(error, match=message):
        embedding.next_token_gradient(ids, tie=False, vocab_size=7)


ROW_PROBES = [
    ("grad is text", lambda: embedding.nonzero_rows("x"), TypeError, "grad must be a torch.Tensor"),
    ("NaN grad", lambda: embedding.nonzero_rows(torch.full((2, 2), float("nan"))), ValueError, "finite numbers; it contains NaN"),
    ("inf grad", lambda: embedding.nonzero_rows(torch.full((2, 2), float("inf"))), ValueError, "contains inf"),
    ("empty grad", lambda: embedding.nonzero_rows(torch.zeros(0, 2)), ValueError, "at least one row"),
    ("meta grad", lambda: embedding.nonzero_rows(torch.empty(2, 2, device="meta")), ValueError, "meta tensor"),
    ("1-D grad", lambda: embedding.nonzero_rows(torch.zeros(3)), ValueError, "2-D matrix"),
    ("integer grad", lambda: embedding.nonzero_rows(torch.ones(2, 2, dtype=torch.long)), TypeError, "floating"),
]


@pytest.mark.parametrize("label, call, error, message", ROW_PROBES, ids=[p[0] for p in ROW_PROBES])
def test_nonzero_rows_bad_inputs(label, call, error, message):
    with pytest.raises(error, match=message):
        call()


@pytest.mark.parametrize("text, error, message", [
    ("2, 5.5", ValueError, r"whole numbers in \[0, 11\]; got '5.5' \(a decimal number\)"),
    ("2, x", ValueError, r"got 'x' \(not a number\)"),
    ("nan", ValueError, r"got 'nan' \(not a number\)"),
    ("2, 12", ValueError, r"\[0, 11\].*got 12"),
    ("2, -1", ValueError, "got -1"),
    ("  ", ValueError, "at least one token id"),
    ("99999999999999999999999", ValueError, r"lie in \[0, 11\].*got 99999999999999999999999"),
    (5, TypeError, "must be typed as text"),
])
def test_parse_ids_errors(text, error, message):
    with pytest.raises(error, match=message):
        embedding.parse_ids(text, 12)


@pytest.mark.parametrize("vocab_size, error, message", [
    (12.0, TypeError, r"vocab_size must be an integer >= 1; got 12.0"), (0, ValueError, "got 0"),
    (True, TypeError, "got True"),
])
def test_parse_ids_vocab_size(vocab_size, error, message):
    with pytest.raises(error, match=message):
        embedding.parse_ids("1", vocab_size)


def test_parse_ids_accepts_commas_and_spaces():
    assert embedding.parse_ids("2, 5 5,9", 12).tolist() == [2, 5, 5, 9]


def test_lesson_cell_is_the_package_code():
    assert_cell_matches("01_embedding_lookup.ipynb", embedding.next_token_gradient)


def test_untied_gradient_touches_only_input_rows():
    out = embedding.next_token_gradient([2, 5, 5, 9], tie=False)
    assert out["rows_touched"] == [2, 5]  # 9 is only a target: its input row gets nothing
    assert out["inputs"] == [2, 5, 5] and out["targets"] == [5, 5, 9]


def test_tied_gradient_touches_every_row():
    out = embedding.next_token_gradient([2, 5, 5, 9], tie=True)
    assert out["rows_touched"] == list(range(12))


def test_tied_gradient_is_input_part_plus_output_part():
    ids = torch.tensor([2, 5, 5, 9])
    tied = embedding.next_token_gradient(ids, tie=True)
    W = tied["weight"]
    w_in, w_out = W.clone().requires_grad_(), W.clone().requires_grad_()
    F.cross_entropy(F.embedding(ids[:-1], w_in) @ w_out.T, ids[1:], reduction="sum").backward()
    assert torch.allclose(tied["grad"], w_in.grad + w_out.grad, atol=1e-6)


def test_gradient_leaves_the_global_generator_alone():
    state = torch.random.get_rng_state()
    embedding.next_token_gradient([1, 2], tie=False)
    assert torch.equal(state, torch.random.get_rng_state())


STEP_PROBES = [
    ("one id", dict(ids=[3]), ValueError, r"at least 2 token ids.*got \[3\]"),
    ("no ids", dict(ids=[]), ValueError, r"at least 2 token ids.*got \[\]"),
    ("ids as text", dict(ids="1 2"), TypeError, "must be integers"),
    ("NaN ids", dict(ids=[float("nan"), 1]), TypeError, "must be integers"),
    ("2-D ids", dict(ids=[[1, 2]]), ValueError, "rank 1"),
    ("bool ids", dict(ids=torch.tensor([True, False])), TypeError, "got dtype torch.bool"),
    ("meta ids", dict(ids=torch.empty(2, dtype=torch.long, device="meta")), ValueError, "meta tensor"),
    ("id = V", dict(ids=[1, 12]), ValueError, r"\[0, 11\].*got 12"),
    ("tie is 1", dict(tie=1), TypeError, "tie must be True or False; got 1"),
    ("V is True", dict(vocab_size=True), TypeError, "vocab_size must be an integer >= 1; got True"),
    ("V is 12.0", dict(vocab_size=12.0), TypeError, "use 12 instead of 12.0"),
    ("V huge", dict(vocab_size=10**9), ValueError, r"at most 10,000,000 for this demo"),
    ("d is 0", dict(d_model=0), ValueError, "d_model must be an integer >= 1; got 0"),
    ("d negative", dict(d_model=-6), ValueError, "got -6"),
    ("seed negative", dict(seed=-1), ValueError, "seed must be an integer >= 0; got -1"),
    ("seed float", dict(seed=1.5), TypeError, "seed must be an integer >= 0; got 1.5"),
]


@pytest.mark.parametrize("label, change, error, message", STEP_PROBES, ids=[p[0] for p in STEP_PROBES])
def test_next_token_gradient_bad_inputs(label, change, error, message):
    kwargs = dict(ids=[1, 2], tie=False) | change
    with pytest.raises(error, match=message):
        embedding.next_token_gradient(kwargs.pop("ids"), **kwargs)


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
    panel.controls["ids"].value = "3"
    assert "at least 2 token ids" in panel.status.value
    with pytest.raises(ValueError, match="got 99"):
        panel.set(ids="1, 99")
    with pytest.raises(TypeError, match="must be text"):
        panel.set(ids=[1, 2])


# -- predict, then run: each question's answer is what the lesson's next cell shows ------------------------------
def test_prediction_lookup_exact_matches_the_evidence():
    from lmtie_edu.lesson01 import questions as predict

    W, ids = torch.randn(10, 4, generator=torch.Generator().manual_seed(3)), torch.tensor([[3, 1, 4], [1, 5, 9]])
    difference = (F.one_hot(ids, num_classes=10).float() @ W - W[ids]).abs().max().item()
    shown = "exactly 0" if difference == 0 else "tiny but not 0 (floating-point rounding, around 1e-7)"
    assert predict.lookup_exact.right == shown


def test_prediction_repeated_row_matches_the_evidence():
    from lmtie_edu.lesson01 import questions as predict

    table = torch.nn.Parameter(torch.randn(10, 4))
    ids, upstream = torch.tensor([2, 5, 5, 9]), torch.randn(4, 4)
    (F.embedding(ids, table) * upstream).sum().backward()
    candidates = {"g_1 + g_2": upstream[1] + upstream[2], "(g_1 + g_2) / 2": (upstream[1] + upstream[2]) / 2,
                  "g_2 only: the later position overwrites": upstream[2],
                  "zero: a repeated id cancels out": torch.zeros(4)}
    assert set(candidates) == set(predict.repeated_row.options)
    shown = [option for option, value in candidates.items() if torch.allclose(table.grad[5], value)]
    assert shown == [predict.repeated_row.right]


def test_prediction_requires_grad_table_matches_the_evidence():
    from lmtie_edu.lesson01 import questions as predict

    model = torch.nn.Module()
    model.table = torch.randn(10, 4).requires_grad_()
    F.embedding(torch.tensor([1, 2]), model.table).sum().backward()
    listed = any(p is model.table for p in model.parameters())
    shown = f"gradient: {'yes' if model.table.grad is not None else 'no'}; listed: {'yes' if listed else 'no'}"
    assert shown in predict.requires_grad_table.options and shown == predict.requires_grad_table.right


def test_prediction_untied_rows_matches_the_evidence():
    from lmtie_edu.lesson01 import questions as predict

    rows = embedding.next_token_gradient([2, 5, 5, 9], tie=False)["rows_touched"]
    assert predict.untied_rows.right == str(len(rows))
