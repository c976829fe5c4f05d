"""Lesson 07 — sharing beyond the head: three-way sharing in an encoder–decoder, and cross-layer sharing.

- ``SharedVocabSeq2Seq``: a one-layer Transformer encoder–decoder whose encoder input embedding,
  decoder input embedding and output head are one matrix (Vaswani et al. 2017, §3.4; T5 v1.0), or
  two (T5 v1.1: shared inputs, own head), or three (nothing shared).
- ``SharedBlockStack``: ALBERT-style cross-layer sharing — one block applied N times — next to N
  independent blocks.
- ``tiny_t5``/``t5_sharing``: what ``transformers`` does for T5, on a model built from a config.
"""

from __future__ import annotations

import logging
import math
import tempfile

import torch
from torch import nn

from .tying import shares_parameter, tie
from .validation import check_bool, check_choice, check_positive_int, check_token_ids

SHARING = ("three-way", "inputs only", "none")


def sinusoidal_positions(length: int, d_model: int) -> torch.Tensor:
    """The fixed position encodings of Vaswani et al. (2017): sin/cos pairs, values in [-1, 1]."""
    length = check_positive_int(length, "length")
    d_model = check_positive_int(d_model, "d_model", minimum=2)
    if d_model % 2:
        raise ValueError(f"d_model must be even for sin/cos pairs; got {d_model}")
    position = torch.arange(length, dtype=torch.float32)[:, None]
    frequency = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float32) * (-math.log(10000.0) / d_model))
    table = torch.zeros(length, d_model)
    table[:, 0::2] = torch.sin(position * frequency)
    table[:, 1::2] = torch.cos(position * frequency)
    return table


class SharedVocabSeq2Seq(nn.Module):
    """A tiny encoder–decoder over one vocabulary (source and target share the token ids).

    ``sharing="three-way"``: encoder input, decoder input and output head are one (V, d) Parameter;
    ``"inputs only"``: the two input embeddings are shared, the head has its own matrix (T5 v1.1);
    ``"none"``: three matrices. Inputs are scaled by √d_model before the positions are added, as in
    Vaswani et al.: rows initialised with std d^-1/2 then have entries of size ~1, like the positions.
    """

    def __init__(self, vocab_size: int = 32, d_model: int = 16, *, sharing: str = "three-way", nhead: int = 2,
                 dim_feedforward: int = 32, max_length: int = 16):
        super().__init__()
        self.sharing = check_choice(sharing, "sharing", SHARING)
        self.vocab_size = check_positive_int(vocab_size, "vocab_size")
        self.d_model = check_positive_int(d_model, "d_model", minimum=2)
        self.source_embedding = nn.Embedding(vocab_size, d_model)
        self.target_embedding = nn.Embedding(vocab_size, d_model)
        self.head = nn.Linear(d_model, vocab_size, bias=False)
        for matrix in (self.source_embedding.weight, self.target_embedding.weight, self.head.weight):
            nn.init.normal_(matrix, std=d_model ** -0.5)
        if sharing != "none":
            self.target_embedding.weight = self.source_embedding.weight
        if sharing == "three-way":
            tie(self.head, self.source_embedding)
        self.encoder = nn.TransformerEncoderLayer(d_model, nhead, dim_feedforward, dropout=0.0, batch_first=True)
        self.decoder = nn.TransformerDecoderLayer(d_model, nhead, dim_feedforward, dropout=0.0, batch_first=True)
        self.register_buffer("positions", sinusoidal_positions(max_length, d_model), persistent=False)

    def embed(self, embedding: nn.Embedding, ids: torch.Tensor) -> torch.Tensor:
        ids = check_token_ids(ids, self.vocab_size, ranks=(2,))
        if ids.shape[1] > self.positions.shape[0]:
            raise ValueError(f"sequences may have at most {self.positions.shape[0]} tokens; got {ids.shape[1]}")
        return embedding(ids) * math.sqrt(self.d_model) + self.positions[: ids.shape[1]]

    def forward(self, source_ids, target_ids) -> torch.Tensor:
        """(batch, S) source ids and (batch, T) target ids → logits (batch, T, V) for the next target token."""
        memory = self.encoder(self.embed(self.source_embedding, source_ids))
        length = torch.as_tensor(target_ids).shape[1]
        causal = nn.Transformer.generate_square_subsequent_mask(length)
        hidden = self.decoder(self.embed(self.target_embedding, target_ids), memory, tgt_mask=causal,
                              tgt_is_causal=True)
        return self.head(hidden)

    def vocabulary_matrices(self) -> int:
        """How many distinct (V, d) Parameters the three vocabulary roles use: 1, 2 or 3."""
        weights = [self.source_embedding.weight, self.target_embedding.weight, self.head.weight]
        return len({id(w) for w in weights})


class SharedBlockStack(nn.Module):
    """Embedding, then ``num_layers`` Linear+ReLU blocks: one block applied N times (``share=True``,
    ALBERT's cross-layer sharing) or N independent blocks. The embedding is used once, at the bottom."""

    def __init__(self, vocab_size: int, d_model: int, num_layers: int, *, share: bool = True):
        super().__init__()
        check_bool(share, "share")
        self.vocab_size = check_positive_int(vocab_size, "vocab_size")
        d_model = check_positive_int(d_model, "d_model")
        num_layers = check_positive_int(num_layers, "num_layers")
        self.embedding = nn.Embedding(vocab_size, d_model)

        def block():
            return nn.Sequential(nn.Linear(d_model, d_model), nn.ReLU())

        shared = block()
        # The same module object N times: ModuleList registers it N times, parameters() yields it once.
        self.layers = nn.ModuleList([shared if share else block() for _ in range(num_layers)])

    def forward(self, ids) -> torch.Tensor:
        x = self.embedding(check_token_ids(ids, self.vocab_size))
        for layer in self.layers:
            x = layer(x)
        return x


# -- T5 in transformers, built from a config (no download) ------------------------------------------
def tiny_t5(*, tie_word_embeddings: bool = True, seed: int = 0):
    """A one-layer T5 (d = 16, V = 64) from a ``T5Config``; ``tie_word_embeddings=False`` is how the
    v1.1 / Flan-T5 / mT5 configs are written."""
    from transformers import T5Config, T5ForConditionalGeneration

    check_bool(tie_word_embeddings, "tie_word_embeddings")
    config = T5Config(vocab_size=64, d_model=16, d_kv=8, d_ff=32, num_layers=1, num_heads=2,
                      decoder_start_token_id=0, pad_token_id=0, eos_token_id=1,
                      tie_word_embeddings=tie_word_embeddings)
    torch.manual_seed(seed)
    return T5ForConditionalGeneration(config)


def t5_sharing(model) -> dict:
    """Which of T5's three vocabulary roles use the ``shared`` Parameter, and whether the decoder
    output is rescaled by d_model^-1/2 before the head."""
    if not hasattr(model, "shared") or not hasattr(model, "lm_head"):
        raise TypeError(f"model must be a T5ForConditionalGeneration; got {type(model).__name__}")
    shared = model.shared.weight
    return {"encoder input is shared": shares_parameter(model.encoder.embed_tokens.weight, shared),
            "decoder input is shared": shares_parameter(model.decoder.embed_tokens.weight, shared),
            "lm_head is shared": shares_parameter(model.lm_head.weight, shared),
            "config.tie_word_embeddings": model.config.tie_word_embeddings,
            "config.scale_decoder_outputs": model.config.scale_decoder_outputs}


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
