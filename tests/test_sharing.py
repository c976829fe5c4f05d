"""Lesson 07 sharing helpers: three-way sharing, cross-layer sharing, T5 in transformers."""

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from lmtie_edu import sharing


def test_sinusoidal_positions_shape_range_and_first_row():
    table = sharing.sinusoidal_positions(10, 8)
    assert table.shape == (10, 8) and table.abs().max() <= 1
    assert torch.equal(table[0, 0::2], torch.zeros(4)) and torch.equal(table[0, 1::2], torch.ones(4))


@pytest.mark.parametrize("args, error, text", [
    ((10, 7), ValueError, "d_model must be even"),
    ((0, 8), ValueError, "length must be an integer >= 1"),
    ((10, 2.0), TypeError, "d_model must be an integer"),
])
def test_sinusoidal_positions_rejects_bad_input(args, error, text):
    with pytest.raises(error, match=text):
        sharing.sinusoidal_positions(*args)


@pytest.mark.parametrize("mode, matrices", [("three-way", 1), ("inputs only", 2), ("none", 3)])
def test_seq2seq_sharing_modes(mode, matrices):
    model = sharing.SharedVocabSeq2Seq(vocab_size=20, d_model=8, sharing=mode)
    assert model.vocabulary_matrices() == matrices
    none = sharing.SharedVocabSeq2Seq(vocab_size=20, d_model=8, sharing="none")
    saved = (3 - matrices) * 20 * 8
    assert sum(p.numel() for p in none.parameters()) - sum(p.numel() for p in model.parameters()) == saved
    logits = model(torch.tensor([[1, 2, 3]]), torch.tensor([[4, 5]]))
    assert logits.shape == (1, 2, 20)


def test_three_way_gradient_is_the_sum_of_the_three_roles():
    torch.manual_seed(0)
    three = sharing.SharedVocabSeq2Seq(vocab_size=12, d_model=8)
    separate = sharing.SharedVocabSeq2Seq(vocab_size=12, d_model=8, sharing="none")
    separate.load_state_dict(three.state_dict())
    src, tgt_in, tgt_out = torch.tensor([[1, 2, 3]]), torch.tensor([[0, 4]]), torch.tensor([[4, 5]])
    for model in (three, separate):
        F.cross_entropy(model(src, tgt_in).flatten(0, 1), tgt_out.flatten()).backward()
    total = (separate.source_embedding.weight.grad + separate.target_embedding.weight.grad
             + separate.head.weight.grad)
    assert torch.allclose(three.head.weight.grad, total, atol=1e-6)


def test_decoder_is_causal():
    torch.manual_seed(0)
    model = sharing.SharedVocabSeq2Seq(vocab_size=12, d_model=8)
    src = torch.tensor([[1, 2, 3]])
    a = model(src, torch.tensor([[4, 5, 6]]))
    b = model(src, torch.tensor([[4, 5, 9]]))
    assert torch.allclose(a[:, :2], b[:, :2], atol=1e-6) and not torch.allclose(a[:, 2], b[:, 2])


@pytest.mark.parametrize("call, error, text", [
    (lambda: sharing.SharedVocabSeq2Seq(sharing="two-way"), ValueError,
     r"sharing must be one of \['three-way', 'inputs only', 'none'\]; got 'two-way'"),
    (lambda: sharing.SharedVocabSeq2Seq(vocab_size=0), ValueError, "vocab_size must be an integer >= 1"),
    (lambda: sharing.SharedVocabSeq2Seq(vocab_size=10)(torch.tensor([[10]]), torch.tensor([[1]])), ValueError,
     r"\[0, 9\].*got 10"),
    (lambda: sharing.SharedVocabSeq2Seq(vocab_size=10, max_length=4)(torch.zeros(1, 5, dtype=torch.long),
                                                                      torch.tensor([[1]])), ValueError,
     "at most 4 tokens; got 5"),
    (lambda: sharing.SharedVocabSeq2Seq(vocab_size=10)(torch.tensor([[1.0]]), torch.tensor([[1]])), TypeError,
     "must be integers"),
])
def test_seq2seq_rejects_bad_input(call, error, text):
    with pytest.raises(error, match=text):
        call()


@pytest.mark.parametrize("share, blocks", [(True, 1), (False, 3)])
def test_shared_block_stack_counts(share, blocks):
    stack = sharing.SharedBlockStack(50, 8, 3, share=share)
    assert sum(p.numel() for p in stack.parameters()) == 50 * 8 + blocks * (8 * 8 + 8)
    assert len({id(layer) for layer in stack.layers}) == blocks
    assert stack(torch.tensor([[1, 2]])).shape == (1, 2, 8)


@pytest.mark.parametrize("kwargs, error, text", [
    ({"share": "yes"}, TypeError, "share must be True or False"),
    ({"num_layers": 0}, ValueError, "num_layers must be an integer >= 1"),
])
def test_shared_block_stack_rejects_bad_input(kwargs, error, text):
    args = {"vocab_size": 10, "d_model": 4, "num_layers": 2, **kwargs}
    with pytest.raises(error, match=text):
        sharing.SharedBlockStack(**args)


def test_tiny_t5_shares_three_ways_and_reload_with_own_head_unties():
    info = sharing.t5_sharing(sharing.tiny_t5())
    assert info["encoder input is shared"] and info["decoder input is shared"] and info["lm_head is shared"]
    assert info["config.scale_decoder_outputs"]
    reloaded, messages = sharing.reload_t5_with_own_head()
    info = sharing.t5_sharing(reloaded)
    assert info["encoder input is shared"] and not info["lm_head is shared"]
    assert any("will NOT tie" in m for m in messages)


def test_t5_helpers_reject_bad_input():
    with pytest.raises(TypeError, match="tie_word_embeddings must be True or False"):
        sharing.tiny_t5(tie_word_embeddings=1)
    with pytest.raises(TypeError, match="model must be a T5ForConditionalGeneration; got Linear"):
        sharing.t5_sharing(nn.Linear(2, 2))
