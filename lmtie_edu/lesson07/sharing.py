"""Lesson 07 — three-way sharing in ``transformers``: T5 built from a config, and reloaded with a head of its own.

- ``tiny_t5``/``reload_t5_with_own_head``: what ``transformers`` does for T5, on a model built from a
  config (nothing downloaded). The lesson's own encoder–decoder, ``SharedVocabSeq2Seq``, is written out in
  a cell; its argument checks are ``checks.check_seq2seq_config``/``check_seq2seq_ids``.
"""

from __future__ import annotations

import logging
import tempfile

from torch import nn

from lmtie_edu.shared.seeding import seeded
from lmtie_edu.shared.validation import check_bool, check_positive_int


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
