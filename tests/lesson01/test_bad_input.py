"""Lesson 01: what a learner can type into its helpers, panel and checks (issue 24) — a clear error or a right result."""

import numpy as np
import torch
from torch import nn

from lmtie_edu.kit.exercises import HINTS_SHOWN
from lmtie_edu.kit.plotting import new_figure
from lmtie_edu.lesson01 import exercises as ex
from lmtie_edu.lesson01 import lookup as embedding
from lmtie_edu.lesson01 import solutions
from lmtie_edu.lesson01.figures import draw_gradient_rows
from tests.probes import Probe, parametrize


def _sparse_grad(ids=(2, 5, 5, 9)):
    layer = nn.Embedding(10, 4, sparse=True)            # lesson 01 §4: a sparse .grad
    layer(torch.tensor(list(ids))).sum().backward()
    return layer.weight.grad


def _sparse_with_a_zero_row():
    values = torch.tensor([[1.0, 2.0], [0.0, 0.0], [0.0, 3.0]])
    return torch.sparse_coo_tensor(torch.tensor([[4, 1, 0]]), values, (6, 2))


def _panel_after(**values):
    panel = embedding.lookup_panel()
    before = (panel.values(), dict(panel.result.numbers), panel.image.value)
    try:
        panel.set(**values)
    except (TypeError, ValueError):
        return (panel.values(), dict(panel.result.numbers), panel.image.value) == before
    return False


def _ids_of(text):
    return embedding.parse_ids(text, 12).tolist()


NONZERO = [
    Probe("sparse grad of nn.Embedding(sparse=True)", lambda: embedding.nonzero_rows(_sparse_grad()),
          check=lambda rows: rows == [2, 5, 9]),
    Probe("uncoalesced sparse grad with a repeated row", lambda: embedding.nonzero_rows(_sparse_grad((7, 7, 7))),
          check=lambda rows: rows == [7]),
    Probe("sparse grad with a stored zero row", lambda: embedding.nonzero_rows(_sparse_with_a_zero_row()),
          check=lambda rows: rows == [0, 4]),
    Probe("fully sparse COO grad", lambda: embedding.nonzero_rows(torch.eye(4)[[0, 2]].T.contiguous().to_sparse()),
          check=lambda rows: rows == [0, 2]),
    Probe("sparse CSR grad", lambda: embedding.nonzero_rows(torch.eye(3)[[1, 1, 2]].T.contiguous().to_sparse_csr()),
          check=lambda rows: rows == [1, 2]),
    Probe("sparse grad with NaN", lambda: embedding.nonzero_rows(_sparse_grad() * float("nan")),
          ValueError, r"grad must hold finite numbers"),
    Probe("sparse 1-D grad", lambda: embedding.nonzero_rows(torch.ones(3).to_sparse()), ValueError, r"grad .*2-D"),
    Probe("grad is None (no backward yet)", lambda: embedding.nonzero_rows(None), TypeError,
          r"grad must be a torch.Tensor; got None.*backward"),
    Probe("grad is a list", lambda: embedding.nonzero_rows([[0.0, 1.0]]), TypeError, r"grad must be a torch.Tensor"),
    Probe("bfloat16 grad", lambda: embedding.nonzero_rows(torch.tensor([[0, 1.0], [0, 0]], dtype=torch.bfloat16)),
          check=lambda rows: rows == [0]),
    Probe("float64 grad", lambda: embedding.nonzero_rows(torch.tensor([[0, 0], [1e-300, 0]], dtype=torch.float64)),
          check=lambda rows: rows == [1]),
    Probe("rank-3 grad", lambda: embedding.nonzero_rows(torch.zeros(2, 2, 2)), ValueError, r"grad must be a 2-D"),
]

PARSE = [
    Probe("ids '1_0, 2' (underscore)", lambda: _ids_of("1_0, 2"), ValueError, r"whole numbers.*'1_0'"),
    Probe("ids '+3, 2'", lambda: _ids_of("+3, 2"), ValueError, r"'\+3'"),
    Probe("ids in full-width digits", lambda: _ids_of("１, 2"), ValueError, r"'１'"),
    Probe("ids '2.5, 1'", lambda: _ids_of("2.5, 1"), ValueError, r"'2.5' \(a decimal number\)"),
    Probe("ids '-1, 2'", lambda: _ids_of("-1, 2"), ValueError, r"\[0, 11\].*got -1 at position \(0,\)"),
    Probe("ids of a huge number", lambda: _ids_of("2, " + "9" * 30), ValueError, r"\[0, 11\].*9999"),
    Probe("ids '2;5'", lambda: _ids_of("2;5"), ValueError, r"'2;5' \(not a number\)"),
    Probe("ids '' (empty)", lambda: _ids_of("   "), ValueError, r"type at least one token id"),
    Probe("ids as a list", lambda: _ids_of([2, 5]), TypeError, r"token ids must be typed as text"),
    Probe("ids '2 ,5  5,9' (mixed separators)", lambda: _ids_of("2 ,5  5,9"), check=lambda v: v == [2, 5, 5, 9]),
    Probe("ids '02, 5'", lambda: _ids_of("02, 5"), check=lambda v: v == [2, 5]),
]

GRADIENT = [
    Probe("vocab_size numpy int", lambda: embedding.next_token_gradient([2, 5], tie=True, vocab_size=np.int64(7)),
          check=lambda out: out["rows_touched"] == list(range(7))),
    Probe("vocab_size bool", lambda: embedding.next_token_gradient([0, 1], tie=True, vocab_size=True),
          TypeError, r"vocab_size must be an integer >= 1; got True"),
    Probe("d_model -3", lambda: embedding.next_token_gradient([0, 1], tie=True, d_model=-3),
          ValueError, r"d_model must be an integer >= 1; got -3"),
    Probe("d_model '6'", lambda: embedding.next_token_gradient([0, 1], tie=True, d_model="6"),
          TypeError, r"d_model must be an integer"),
    Probe("seed -1", lambda: embedding.next_token_gradient([0, 1], tie=True, seed=-1), ValueError, r"seed .*>= 0"),
    Probe("seed 2**64", lambda: embedding.next_token_gradient([0, 1], tie=True, seed=2**64),
          ValueError, r"seed must be .*2\*\*64"),
    # the lesson's cell hands seed to torch.Generator().manual_seed, which refuses NumPy integers: told up front
    Probe("seed numpy int", lambda: embedding.next_token_gradient([2, 5], tie=False, seed=np.int64(0)),
          TypeError, r"seed must be a Python int .*int\(seed\)"),
    Probe("tie None", lambda: embedding.next_token_gradient([0, 1], tie=None), TypeError, r"tie must be True or False"),
    Probe("tie 1", lambda: embedding.next_token_gradient([0, 1], tie=1), TypeError, r"tie must be True or False"),
    Probe("vocab_size × d_model too big", lambda: embedding.next_token_gradient([0, 1], tie=True,
                                                                               vocab_size=10**6, d_model=10**3),
          ValueError, r"at most 10,000,000"),
    Probe("ids × vocab_size too big (the logits)", lambda: embedding.next_token_gradient(
        torch.zeros(2_000_001, dtype=torch.long), tie=True, vocab_size=10),
          ValueError, r"logits.*at most 10,000,000"),
    Probe("one id", lambda: embedding.next_token_gradient([3], tie=True), ValueError, r"at least 2 token ids"),
    Probe("float ids", lambda: embedding.next_token_gradient([1.0, 2.0], tie=True), TypeError, r"torch.long"),
    Probe("2-D ids", lambda: embedding.next_token_gradient([[1, 2]], tie=True), ValueError, r"token ids must have rank 1"),
    Probe("meta ids", lambda: embedding.next_token_gradient(torch.empty(3, dtype=torch.long, device="meta"), tie=True),
          ValueError, r"meta tensor"),
    Probe("check_gradient_inputs ok (numpy ids)", lambda: embedding.check_gradient_inputs(np.array([1, 2]), 12, 6, 0,
                                                                                           False).tolist(),
          check=lambda v: v == [1, 2]),
]

FIGURE = [
    Probe("lookup_figure vocab_size 5000", lambda: embedding.lookup_figure("2, 5", vocab_size=5000),
          ValueError, r"vocab_size .*at most 64"),
    Probe("lookup_figure vocab_size numpy int", lambda: embedding.lookup_figure("2, 5", vocab_size=np.int64(8)).numbers,
          check=lambda numbers: numbers["of V rows"] == 8),
    Probe("lookup_figure ids_text None", lambda: embedding.lookup_figure(None), TypeError, r"typed as text"),
    Probe("lookup_panel ids_text '1_0, 2'", lambda: embedding.lookup_panel("1_0, 2"), ValueError, r"'1_0'"),
    Probe("lookup_panel ids_text 5", lambda: embedding.lookup_panel(5), TypeError, r"ids must be text"),
    Probe("lookup_panel tie None", lambda: embedding.lookup_panel(tie=None), TypeError, r"tie must be True or False"),
    Probe("lookup_panel ids out of range", lambda: embedding.lookup_panel("2, 12"), ValueError, r"\[0, 11\]"),
    Probe("panel.set(ids='1_0, 2') refused, panel unchanged", lambda: _panel_after(ids="1_0, 2"), check=bool),
    Probe("panel.set(ids='7') refused, panel unchanged", lambda: _panel_after(ids="7"), check=bool),
    Probe("panel.set(ids='1, 99', tie=True) refused, panel unchanged", lambda: _panel_after(ids="1, 99", tie=True),
          check=bool),
]


def _draw(grad=None, highlight_rows=()):
    grad = torch.randn(6, 4, generator=torch.Generator().manual_seed(0)) if grad is None else grad
    return draw_gradient_rows(new_figure()[1], grad, title="t", highlight_rows=highlight_rows)


def _outlined(drawn):
    return [row for row, outline in enumerate(drawn.outlines) if outline.get_visible()]


# issue 36, item 4: a deep traceback (meta), a silent nothing (-1, 999, 1.5) or a hang (10**8 rows) before
DRAW = [
    Probe("draw_gradient_rows highlight_rows meta", lambda: _draw(highlight_rows=torch.empty(2, dtype=torch.long,
                                                                                            device="meta")),
          ValueError, r"highlight_rows is a meta tensor"),
    Probe("draw_gradient_rows highlight_rows -1", lambda: _draw(highlight_rows=[-1]), ValueError,
          r"highlight_rows must lie in \[0, 5\].*got -1"),
    Probe("draw_gradient_rows highlight_rows 999", lambda: _draw(highlight_rows=[1, 999]), ValueError,
          r"highlight_rows must lie in \[0, 5\].*got 999"),
    Probe("draw_gradient_rows highlight_rows 1.5", lambda: _draw(highlight_rows=[1.5]), TypeError,
          r"highlight_rows must be integers"),
    Probe("draw_gradient_rows highlight_rows 2.0", lambda: _draw(highlight_rows=(2.0,)), TypeError,
          r"highlight_rows must be integers"),
    Probe("draw_gradient_rows highlight_rows ids with repeats", lambda: _outlined(_draw(highlight_rows=[5, 2, 5])),
          check=lambda rows: rows == [2, 5]),
    Probe("draw_gradient_rows highlight_rows one numpy id", lambda: _outlined(_draw(highlight_rows=np.int64(3))),
          check=lambda rows: rows == [3]),
    Probe("draw_gradient_rows 10**8 rows", lambda: _draw(torch.ones(1, 1).expand(10**8, 1)), ValueError,
          r"grad has shape \(100000000, 1\); draw_gradient_rows draws at most 10,000 rows"),
    Probe("draw_gradient_rows 5,000 x 1,000 entries", lambda: _draw(torch.ones(1, 1).expand(5_000, 1_000)), ValueError,
          r"at most .*4,000,000 entries.*grad\[:100\]"),
]


# -- exercise checks: an answer that mutates its inputs cannot change the reference ----------------------------------

def _verdict(name, answer):
    HINTS_SHOWN.pop(name, None)
    return bool(getattr(ex, name)(answer))


def _bag_then_spoil(W, ids):
    result = solutions.bag_of_tokens(W, ids)
    W.data.zero_()
    ids.zero_()
    return result


def _step_then_spoil(W, ids, lr):
    result = solutions.sgd_step_on_lookup(W, ids, lr)
    W.zero_()
    ids.zero_()
    return result


def _rows_then_spoil(ids, vocab_size, tie):
    result = solutions.rows_reached(ids, vocab_size, tie)
    ids.zero_()
    return result


def _zero_answer_that_spoils_W(W, ids):
    W.data.zero_()                                      # then the zero bag would equal a reference taken on W
    return torch.zeros(ids.shape[0], W.shape[1])


CHECKS = [
    Probe("bag_of_tokens: right answer that then zeroes W and ids", lambda: _verdict("bag_of_tokens", _bag_then_spoil),
          check=lambda passed: passed),
    Probe("bag_of_tokens: zero answer that zeroes W first", lambda: _verdict("bag_of_tokens", _zero_answer_that_spoils_W),
          check=lambda passed: not passed),
    Probe("sgd_step_on_lookup: right answer that then zeroes W and ids",
          lambda: _verdict("sgd_step_on_lookup", _step_then_spoil), check=lambda passed: passed),
    Probe("rows_reached: right answer that then zeroes ids", lambda: _verdict("rows_reached", _rows_then_spoil),
          check=lambda passed: passed),
]

PROBES = NONZERO + PARSE + GRADIENT + FIGURE + DRAW + CHECKS


@parametrize(PROBES)
def test_bad_input(probe, capsys):
    probe.run()
