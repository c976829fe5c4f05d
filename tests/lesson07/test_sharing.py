"""Lesson 07 sharing helpers: three-way sharing in an encoder–decoder, T5 in transformers."""

import ast
import math

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from lmtie_edu.lesson07 import checks, sharing
from lmtie_edu.shared import positions
from tests.course.notebook_code import cell_definition


def _lesson_class(name: str):
    """The class exactly as the lesson's cell defines it (it lives only there), run with the cell's imports."""
    node = cell_definition("07_tying_in_practice.ipynb", name)
    namespace = {"math": math, "nn": nn, "torch": torch, "sinusoidal_positions": positions.sinusoidal_positions,
                 "check_seq2seq_config": checks.check_seq2seq_config, "check_seq2seq_ids": checks.check_seq2seq_ids}
    exec(compile(ast.Module(body=[node], type_ignores=[]), f"<lesson 07 cell: {name}>", "exec"), namespace)
    return namespace[name]


S = _lesson_class("SharedVocabSeq2Seq")


def test_sinusoidal_positions_shape_range_and_first_row():
    table = positions.sinusoidal_positions(10, 8)
    assert table.shape == (10, 8) and table.abs().max() <= 1
    assert torch.equal(table[0, 0::2], torch.zeros(4)) and torch.equal(table[0, 1::2], torch.ones(4))


@pytest.mark.parametrize("args, error, text", [
    ((10, 7), ValueError, "d_model must be even"),
    ((0, 8), ValueError, "length must be an integer >= 1"),
    ((10, 2.0), TypeError, "d_model must be an integer"),
])
def test_sinusoidal_positions_rejects_bad_input(args, error, text):
    with pytest.raises(error, match=text):
        positions.sinusoidal_positions(*args)


@pytest.mark.parametrize("mode, matrices", [("three-way", 1), ("inputs only", 2), ("none", 3)])
def test_seq2seq_sharing_modes(mode, matrices):
    model = S(vocab_size=20, d_model=8, sharing=mode)
    assert model.vocabulary_matrices() == matrices
    none = S(vocab_size=20, d_model=8, sharing="none")
    saved = (3 - matrices) * 20 * 8
    assert sum(p.numel() for p in none.parameters()) - sum(p.numel() for p in model.parameters()) == saved
    logits = model(torch.tensor([[1, 2, 3]]), torch.tensor([[4, 5]]))
    assert logits.shape == (1, 2, 20)


def test_seq2seq_accepts_lists_and_batches():
    model = S(vocab_size=20, d_model=8)
    assert model([[1, 2], [3, 4]], [[5], [6]]).shape == (2, 1, 20)


def test_three_way_gradient_is_the_sum_of_the_three_roles():
    torch.manual_seed(0)
    three = S(vocab_size=12, d_model=8)
    separate = S(vocab_size=12, d_model=8, sharing="none")
    separate.load_state_dict(three.state_dict())
    src, tgt_in, tgt_out = torch.tensor([[1, 2, 3]]), torch.tensor([[0, 4]]), torch.tensor([[4, 5]])
    for model in (three, separate):
        F.cross_entropy(model(src, tgt_in).flatten(0, 1), tgt_out.flatten()).backward()
    total = (separate.source_embedding.weight.grad + separate.target_embedding.weight.grad
             + separate.head.weight.grad)
    assert torch.allclose(three.head.weight.grad, total, atol=1e-6)


def test_decoder_is_causal():
    torch.manual_seed(0)
    model = S(vocab_size=12, d_model=8)
    src = torch.tensor([[1, 2, 3]])
    a = model(src, torch.tensor([[4, 5, 6]]))
    b = model(src, torch.tensor([[4, 5, 9]]))
    assert torch.allclose(a[:, :2], b[:, :2], atol=1e-6) and not torch.allclose(a[:, 2], b[:, 2])


@pytest.mark.parametrize("kwargs, error, text", [
    ({"sharing": "two-way"}, ValueError, r"sharing must be one of \['three-way', 'inputs only', 'none'\]; got 'two-way'"),
    ({"sharing": True}, ValueError, "sharing must be one of"),
    ({"vocab_size": 0}, ValueError, "vocab_size must be an integer >= 1; got 0"),
    ({"vocab_size": -5}, ValueError, "vocab_size must be an integer >= 1; got -5"),
    ({"vocab_size": 32.0}, TypeError, "use 32 instead of 32.0"),
    ({"vocab_size": "32"}, TypeError, "vocab_size must be an integer >= 1; got '32'"),
    ({"vocab_size": 10**8}, ValueError, r"vocab_size must be an integer in \[1, 100,000\]"),
    ({"d_model": 15, "nhead": 1}, ValueError, "d_model must be even"),
    ({"d_model": 16, "nhead": 3}, ValueError, "d_model must be divisible by nhead.*d_model=16, nhead=3"),
    ({"d_model": 10**6}, ValueError, r"d_model must be an integer in \[2, 1,024\]"),
    ({"nhead": 0}, ValueError, "nhead must be an integer >= 1; got 0"),
    ({"nhead": True}, TypeError, "nhead must be an integer"),
    ({"dim_feedforward": 10**7}, ValueError, r"dim_feedforward must be an integer in \[1, 16,384\]"),
    ({"max_length": 0}, ValueError, "max_length must be an integer >= 1; got 0"),
])
def test_seq2seq_constructor_rejects_bad_input(kwargs, error, text):
    with pytest.raises(error, match=text):
        S(**kwargs)


LONG = torch.long


@pytest.mark.parametrize("source, target, error, text", [
    (torch.tensor([[1, 2], [3, 4]]), torch.tensor([[1, 2]]), ValueError,
     "source ids and target ids must have the same batch size.*got 2 sources and 1 targets"),
    (torch.zeros(0, 3, dtype=LONG), torch.zeros(0, 2, dtype=LONG), ValueError,
     r"source ids must hold at least one sequence of at least one token; got shape \(0, 3\)"),
    (torch.tensor([[1]]), torch.zeros(1, 0, dtype=LONG), ValueError,
     r"target ids must hold at least one sequence of at least one token; got shape \(1, 0\)"),
    (torch.tensor([[10]]), torch.tensor([[1]]), ValueError, r"source ids must lie in \[0, 9\].*got 10"),
    (torch.tensor([[1]]), torch.tensor([[-1]]), ValueError, r"target ids must lie in \[0, 9\].*got -1"),
    (torch.zeros(1, 17, dtype=LONG), torch.tensor([[1]]), ValueError, "source ids: sequences may have at most 16 tokens; got 17"),
    (torch.tensor([[1.0]]), torch.tensor([[1]]), TypeError, "source ids must be integers"),
    (torch.tensor([[1]]), torch.tensor([[True]]), TypeError, "target ids must be integers"),
    (torch.tensor([1, 2]), torch.tensor([[1]]), ValueError, "source ids must have rank 2"),
    ("hello", torch.tensor([[1]]), TypeError, "source ids must be integers"),
    (torch.zeros(1, 2, dtype=LONG, device="meta"), torch.tensor([[1]]), ValueError,
     r"source ids must hold real token ids; got a meta tensor of shape \(1, 2\)"),
])
def test_seq2seq_forward_rejects_bad_input(source, target, error, text):
    with pytest.raises(error, match=text):
        S(vocab_size=10)(source, target)


def _roles(model):
    """Which of T5's three vocabulary roles hold the ``shared`` Parameter (the lesson's cell checks the same)."""
    shared = model.shared.weight
    return [model.encoder.embed_tokens.weight is shared, model.decoder.embed_tokens.weight is shared,
            model.lm_head.weight is shared]


def test_tiny_t5_shares_three_ways_and_reload_with_own_head_unties():
    model = sharing.tiny_t5()
    assert _roles(model) == [True, True, True] and model.config.scale_decoder_outputs
    reloaded, messages = sharing.reload_t5_with_own_head()
    assert _roles(reloaded) == [True, True, False]
    assert any("will NOT tie" in m for m in messages)


def test_tiny_t5_leaves_the_learners_random_state_alone_and_is_reproducible():
    torch.manual_seed(7)
    expected = torch.rand(2)
    torch.manual_seed(7)
    a = sharing.tiny_t5(seed=4)
    assert torch.equal(torch.rand(2), expected)
    assert torch.equal(a.shared.weight, sharing.tiny_t5(seed=4).shared.weight)


@pytest.mark.parametrize("call, error, text", [
    (lambda: sharing.tiny_t5(tie_word_embeddings=1), TypeError, "tie_word_embeddings must be True or False"),
    (lambda: sharing.tiny_t5(tie_word_embeddings="no"), TypeError, "tie_word_embeddings must be True or False"),
    (lambda: sharing.tiny_t5(seed=-1), ValueError, "seed must be an integer >= 0; got -1"),
    (lambda: sharing.tiny_t5(seed=2.0), TypeError, "use 2 instead of 2.0"),
    (lambda: sharing.reload_t5_with_own_head(seed="x"), TypeError, "seed must be an integer >= 0; got 'x'"),
])
def test_t5_helpers_reject_bad_input(call, error, text):
    with pytest.raises(error, match=text):
        call()
