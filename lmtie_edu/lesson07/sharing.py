"""Lesson 07 — sharing beyond the head: checks for the lesson's encoder–decoder, T5 in ``transformers``.

- ``check_seq2seq_config``/``check_seq2seq_ids``: the clear errors of the lesson's
  ``SharedVocabSeq2Seq`` (written out in a cell: encoder input, decoder input and output head as one
  matrix, as in Vaswani et al. 2017, §3.4 and T5 v1.0), so that bad sizes or ids never fail deep
  inside torch.
- ``tiny_t5``/``reload_t5_with_own_head``: what ``transformers`` does for T5, on a
  model built from a config (nothing downloaded).
"""

from __future__ import annotations

import logging
import tempfile

import torch
from torch import nn

from lmtie_edu.shared.seeding import seeded
from lmtie_edu.shared.validation import check_bool, check_choice, check_positive_int, check_token_ids

from .pitfalls import check_size

SHARING = ("three-way", "inputs only", "none")


def check_seq2seq_config(vocab_size, d_model, sharing, nhead, dim_feedforward, max_length) -> None:
    """Clear errors for the sizes of a ``SharedVocabSeq2Seq`` (before torch allocates anything)."""
    check_choice(sharing, "sharing", SHARING)
    check_size(vocab_size, "vocab_size", maximum=100_000)
    check_size(d_model, "d_model", minimum=2, maximum=1024)
    check_size(nhead, "nhead", maximum=d_model)
    check_size(dim_feedforward, "dim_feedforward", maximum=16_384)
    check_size(max_length, "max_length", maximum=4096)
    if d_model % 2:
        raise ValueError(f"d_model must be even (sin/cos position pairs); got {d_model}")
    if d_model % nhead:
        raise ValueError(f"d_model must be divisible by nhead (each head gets d_model // nhead dimensions); "
                         f"got d_model={d_model}, nhead={nhead}")


def check_seq2seq_ids(source_ids, target_ids, vocab_size: int, max_length: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Source and target ids as (batch, length) LongTensors with one batch size, 1..max_length tokens each."""
    max_length = check_positive_int(max_length, "max_length")
    checked = []
    for name, ids in (("source ids", source_ids), ("target ids", target_ids)):
        if isinstance(ids, torch.Tensor) and ids.device.type == "meta":
            raise ValueError(f"{name} must hold real token ids; got a meta tensor of shape {tuple(ids.shape)}")
        ids = check_token_ids(ids, vocab_size, ranks=(2,), name=name)
        if ids.shape[0] == 0 or ids.shape[1] == 0:
            raise ValueError(f"{name} must hold at least one sequence of at least one token; "
                             f"got shape {tuple(ids.shape)}")
        if ids.shape[1] > max_length:
            raise ValueError(f"{name}: sequences may have at most {max_length} tokens; got {ids.shape[1]}")
        checked.append(ids)
    source, target = checked
    if source.shape[0] != target.shape[0]:
        raise ValueError(f"source ids and target ids must have the same batch size (one target per source); "
                         f"got {source.shape[0]} sources and {target.shape[0]} targets")
    return source, target


# -- T5 in transformers, built from a config (no download) ------------------------------------------
def tiny_t5(*, tie_word_embeddings: bool = True, seed: int = 0):
    """A one-layer T5 (d = 16, V = 64) from a ``T5Config``; ``tie_word_embeddings=False`` is how the
    v1.1 / Flan-T5 / mT5 configs are written."""
    from transformers import T5Config, T5ForConditionalGeneration

    check_bool(tie_word_embeddings, "tie_word_embeddings")
    seed = check_positive_int(seed, "seed", minimum=0)
    config = T5Config(vocab_size=64, d_model=16, d_kv=8, d_ff=32, num_layers=1, num_heads=2,
                      decoder_start_token_id=0, pad_token_id=0, eos_token_id=1,
                      tie_word_embeddings=tie_word_embeddings)
    with seeded(seed):  # the weights are drawn from torch's global generator; the learner's is restored
        return T5ForConditionalGeneration(config)


class _Collect(logging.Handler):
    def __init__(self):
        super().__init__(level=logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record):
        self.messages.append(record.getMessage())


def reload_t5_with_own_head(seed: int = 0):
    """Save a tiny T5 whose ``lm_head`` holds its own values (as a v1.1 checkpoint does) and load it back.

    Returns ``(loaded_model, warnings)``. While saving and loading, ``transformers``' own stderr
    handler and progress bars are switched off and its warnings are collected instead, so that a
    notebook can print the message it is about (and store no stderr).
    """
    from transformers import T5ForConditionalGeneration
    from transformers.utils import logging as hf_logging

    model = tiny_t5(tie_word_embeddings=False, seed=seed)
    model.lm_head.weight = nn.Parameter(model.shared.weight.detach().clone() + 0.1)
    collect, logger = _Collect(), hf_logging.get_logger("transformers")
    bars_were_on = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()
    hf_logging.disable_default_handler()
    logger.addHandler(collect)
    try:
        with tempfile.TemporaryDirectory() as folder:
            model.save_pretrained(folder)
            loaded = T5ForConditionalGeneration.from_pretrained(folder)
    finally:
        logger.removeHandler(collect)
        hf_logging.enable_default_handler()
        if bars_were_on:
            hf_logging.enable_progress_bar()
    return loaded, collect.messages
