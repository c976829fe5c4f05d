"""Lesson 04 — real architectures from Hugging Face ``transformers``, built on the meta device.

Each configuration is written here from the published hyper-parameters (no hub download: a
``from_pretrained`` would need the network). ``torch.device("meta")`` creates every parameter with
its shape but without storage, so even Llama-2-70B (≈ 276 GB in fp32) builds in a fraction of a
second and a few MiB. ``transformers`` is imported only inside these functions: its import takes
seconds, and ``import lmtie_edu`` must stay light.

Whether a model ties is *observed* on the built model, in the lesson's cells (``head.weight is
embedding.weight``); the ``tie_word_embeddings`` value below is only the published configuration that
goes into the build. The counting itself is written out in the lesson.
"""

from __future__ import annotations

import contextlib
import copy
import functools
from dataclasses import dataclass

from lmtie_edu.shared.language import tr
from lmtie_edu.shared.validation import check_choice

GIB = 2**30


@dataclass(frozen=True)
class Architecture:
    """Published hyper-parameters of one model (its ``config.json`` / paper)."""

    name: str
    family: str  # "gpt2", "bert", "t5", "qwen2" or "llama"
    vocab_size: int
    d_model: int
    n_layers: int
    n_heads: int
    d_ff: int
    tie_word_embeddings: bool  # the published setting, fed to the config (checked on the build)
    n_kv_heads: int | None = None


ARCHITECTURES = {a.name: a for a in (
    Architecture("GPT-2 small", "gpt2", 50_257, 768, 12, 12, 3072, True),
    Architecture("GPT-2 medium", "gpt2", 50_257, 1024, 24, 16, 4096, True),
    Architecture("GPT-2 large", "gpt2", 50_257, 1280, 36, 20, 5120, True),
    Architecture("GPT-2 XL", "gpt2", 50_257, 1600, 48, 25, 6400, True),
    Architecture("BERT-base MLM", "bert", 30_522, 768, 12, 12, 3072, True),
    Architecture("T5-small v1.0", "t5", 32_128, 512, 6, 8, 2048, True),
    Architecture("Qwen2.5-0.5B", "qwen2", 151_936, 896, 24, 14, 4864, True, n_kv_heads=2),
    Architecture("Llama-3.2-1B", "llama", 128_256, 2048, 16, 32, 8192, True, n_kv_heads=8),
    Architecture("Llama-3.2-3B", "llama", 128_256, 3072, 28, 24, 8192, True, n_kv_heads=8),
    Architecture("Llama-2-7B", "llama", 32_000, 4096, 32, 32, 11008, False, n_kv_heads=32),
    Architecture("Llama-3-8B", "llama", 128_256, 4096, 32, 32, 14336, False, n_kv_heads=8),
    Architecture("Llama-2-70B", "llama", 32_000, 8192, 80, 64, 28672, False, n_kv_heads=8),
)}


@contextlib.contextmanager
def _quiet_transformers():
    """Silence transformers' logger (warnings/info go to stderr, which a compared notebook cell must
    not contain); restore the previous verbosity afterwards so we change nothing for the learner."""
    from transformers.utils import logging

    previous = logging.get_verbosity()
    logging.set_verbosity_error()
    try:
        yield
    finally:
        logging.set_verbosity(previous)


def _resolve_tie(name: str, tie: bool | None) -> bool:
    """Check ``name`` and ``tie``; return the tie setting to build with (None: the published one)."""
    check_choice(name, "name", ARCHITECTURES)
    if tie is not None and not isinstance(tie, bool):
        raise TypeError(tr("tie must be True, False or None (the published setting); got {tie!r}", tie=tie))
    return ARCHITECTURES[name].tie_word_embeddings if tie is None else tie


def make_config(name: str, *, tie: bool | None = None):
    """The ``transformers`` config of architecture ``name``; ``tie`` overrides the published setting."""
    tie = _resolve_tie(name, tie)
    a = ARCHITECTURES[name]
    with _quiet_transformers():
        import transformers as tf

        if a.family == "gpt2":
            return tf.GPT2Config(vocab_size=a.vocab_size, n_embd=a.d_model, n_layer=a.n_layers, n_head=a.n_heads,
                                 n_inner=a.d_ff, n_positions=1024, tie_word_embeddings=tie)
        if a.family == "bert":
            return tf.BertConfig(vocab_size=a.vocab_size, hidden_size=a.d_model, num_hidden_layers=a.n_layers,
                                 num_attention_heads=a.n_heads, intermediate_size=a.d_ff,
                                 max_position_embeddings=512, type_vocab_size=2, tie_word_embeddings=tie)
        if a.family == "t5":  # v1.0: ReLU MLP, and encoder, decoder and head share one matrix
            return tf.T5Config(vocab_size=a.vocab_size, d_model=a.d_model, d_kv=a.d_model // a.n_heads,
                               d_ff=a.d_ff, num_layers=a.n_layers, num_heads=a.n_heads, feed_forward_proj="relu",
                               tie_word_embeddings=tie)
        config_class = tf.Qwen2Config if a.family == "qwen2" else tf.LlamaConfig
        return config_class(vocab_size=a.vocab_size, hidden_size=a.d_model, intermediate_size=a.d_ff,
                            num_hidden_layers=a.n_layers, num_attention_heads=a.n_heads,
                            num_key_value_heads=a.n_kv_heads, tie_word_embeddings=tie)


def _model_class(family: str):
    import transformers as tf

    return {"gpt2": tf.GPT2LMHeadModel, "bert": tf.BertForMaskedLM, "t5": tf.T5ForConditionalGeneration,
            "qwen2": tf.Qwen2ForCausalLM, "llama": tf.LlamaForCausalLM}[family]


def build_uncached(name: str, *, tie: bool | None = None):
    """Build architecture ``name`` on the meta device: every parameter has a shape, none has storage."""
    import torch

    config = make_config(name, tie=tie)
    with _quiet_transformers(), torch.device("meta"):
        return _model_class(ARCHITECTURES[name].family)(config)


def build(name: str, *, tie: bool | None = None):
    """:func:`build_uncached`, cached for the kernel's lifetime (a widget or a re-run never rebuilds).

    Every call returns its own deep copy of the cached build (meta tensors: a copy costs milliseconds and
    keeps every tie), so a learner who unties or edits the model changes nothing for the next call.
    """
    return copy.deepcopy(_build_cached(name, _resolve_tie(name, tie)))


@functools.cache
def _build_cached(name: str, tie: bool):
    return build_uncached(name, tie=tie)

