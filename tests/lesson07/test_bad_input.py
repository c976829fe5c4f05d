"""Lesson 07: bad inputs to the helpers, panel and checks the notebook calls (issue 24)."""

import numpy as np
import torch
from torch import nn

from lmtie_edu.lesson07 import checkpoints, checks, pitfalls, sharing
from lmtie_edu.lesson07 import figures as pitfall_figures
from tests.probes import assert_all_refused


def test_bad_input():
    model = nn.Linear(2, 2)
    optimiser = torch.optim.SGD(model.parameters(), lr=0.1)
    ids = torch.tensor([[1, 2]])
    cases = [
        (lambda: pitfalls.demo_data(context=0), ValueError, r"context must be an integer >= 1"),
        (lambda: pitfalls.demo_data(context="2"), TypeError, r"context must be an integer"),
        (lambda: pitfalls.demo_data(context=10**9), ValueError, r"needs more than context=1000000000 tokens; got 200"),
        (lambda: pitfalls.demo_data(vocab_size=1), ValueError, r"vocab_size must be an integer >= 2"),
        (lambda: pitfalls.demo_data(length=10**9), ValueError, r"length must be an integer in \[2, 1,000,000\]"),
        (lambda: pitfalls.in_optimiser(model.weight, "adam"), TypeError, r"optimiser must be a torch.optim"),
        (lambda: pitfalls.in_optimiser([1.0], optimiser), TypeError, r"parameter must be a torch.Tensor"),
        (lambda: pitfalls.tiny_gpt2(vocab_size=1), ValueError, r"vocab_size must be an integer >= 2"),
        (lambda: pitfalls.tiny_gpt2(tie=1), TypeError, r"tie must be True or False"),
        (lambda: pitfalls.tiny_gpt2(seed="0"), TypeError, r"seed must be an integer >= 0"),
        (lambda: pitfall_figures.build_with_method("share", seed=-1), ValueError, r"seed must be an integer >= 0"),
        (lambda: pitfall_figures.build_with_method("share", lr=True), ValueError, r"lr must be a number > 0"),
        (lambda: pitfall_figures.build_with_method("tie"), ValueError, r"method must be one of"),
        (lambda: pitfall_figures.track_tying("share", seed="x"), TypeError, r"seed must be an integer >= 0"),
        (lambda: pitfall_figures.track_tying("share", steps=0), ValueError, r"steps must be an integer >= 1"),
        (lambda: pitfall_figures.tying_method_panel(steps=41), ValueError, r"steps must be an integer in \[1, 40\]"),
        (lambda: pitfall_figures.tying_method_panel(tie="yes"), TypeError, r"tie must be True or False"),
        (lambda: checkpoints.count_unique_elements(torch.ones(3)), TypeError, r"pass an iterable of tensors"),
        (lambda: checkpoints.count_unique_elements({"a": 5}), TypeError, r"every item must be a torch.Tensor"),
        (lambda: checkpoints.count_unique_elements([torch.ones(3, device="meta")]), ValueError, r"meta tensors"),
        (lambda: checkpoints.count_unique_elements([torch.eye(3).to_sparse()]), ValueError, r"sparse tensor"),
        (lambda: checkpoints.torch_checkpoint(None), TypeError, r"state_dict must be a mapping"),
        (lambda: checkpoints.torch_checkpoint({1: torch.ones(2)}), TypeError, r"keys must be strings"),
        (lambda: checkpoints.safetensors_checkpoint("model"), TypeError, r"model must be an nn.Module"),
        (lambda: checkpoints.safetensors_save_file_error({"a": torch.ones(3, 3).t()}), ValueError, r"contiguous"),
        (lambda: checkpoints.safetensors_save_file_error({"a": torch.eye(2).to_sparse()}), ValueError,
         r"sparse tensor"),
        (lambda: checks.check_seq2seq_config(32, 16, "two-way", 2, 32, 16), ValueError, r"sharing must be one of"),
        (lambda: checks.check_seq2seq_config(32, 15, "none", 2, 32, 16), ValueError, r"d_model must be even"),
        (lambda: checks.check_seq2seq_config(32, 16, "none", 3, 32, 16), ValueError, r"divisible by nhead"),
        (lambda: checks.check_seq2seq_config(32, "16", "none", 2, 32, 16), TypeError, r"d_model must be an integer"),
        (lambda: checks.check_seq2seq_ids(ids, ids, 10, "2"), TypeError, r"max_length must be an integer >= 1"),
        (lambda: checks.check_seq2seq_ids(ids, ids, "10", 2), TypeError, r"vocab_size must be an integer"),
        (lambda: checks.check_seq2seq_ids(ids, ids[:, :1].repeat(2, 1), 10, 4), ValueError, r"same batch size"),
        (lambda: checks.check_seq2seq_ids(ids, ids * 10, 10, 4), ValueError, r"target ids must lie in \[0, 9\]"),
        (lambda: checks.check_seq2seq_ids(ids.float(), ids, 10, 4), TypeError, r"source ids must be integers"),
        (lambda: checks.check_seq2seq_ids(ids, ids, 10, 1), ValueError, r"at most 1 tokens"),
        (lambda: sharing.tiny_t5(tie_word_embeddings=1), TypeError, r"tie_word_embeddings must be True or False"),
        (lambda: sharing.reload_t5_with_own_head(seed=-1), ValueError, r"seed must be an integer >= 0"),
    ]
    assert_all_refused(cases)


def test_numbers_that_are_fine():
    inputs, targets = pitfalls.demo_data(np.int64(16), np.int64(2), np.int64(50), np.int64(0))
    assert inputs.shape == (48, 2) and targets.shape == (48,)
    checks.check_seq2seq_config(np.int64(32), np.int64(16), "none", np.int64(2), np.int64(32), np.int64(16))
    tied = nn.ModuleDict({"e": nn.Embedding(4, 2), "h": nn.Linear(2, 4, bias=False)})
    tied.h.weight = tied.e.weight
    assert checkpoints.count_unique_elements(tied.state_dict()) == 8
    assert checkpoints.count_unique_elements(t for t in tied.state_dict().values()) == 8
    assert pitfall_figures.track_tying("share", steps=np.int64(2), seed=np.int64(0))["one Parameter"]
