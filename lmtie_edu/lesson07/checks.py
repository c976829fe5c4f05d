"""Lesson 07 — the argument checks of the lesson's helpers and of its ``SharedVocabSeq2Seq``: clear errors
for bad sizes, ids, state dicts and models, before torch allocates anything or fails deep inside.

- ``check_size``: an integer size with an upper bound, so that a typo cannot allocate gigabytes;
- ``check_countable``/``refuse_sparse``/``check_state_dict``/``check_model``: what the checkpoint helpers accept;
- ``check_seq2seq_config``/``check_seq2seq_ids``: the sizes and ids of the lesson's encoder–decoder.
"""

from __future__ import annotations

from collections.abc import Mapping

import torch
from torch import nn

from lmtie_edu.shared.language import N_, tr
from lmtie_edu.shared.validation import check_choice, check_positive_int, check_token_ids

SHARING = (N_("three-way"), N_("inputs only"), N_("none"))  # values; label(mode) is shown


def check_size(value, name: str, *, minimum: int = 1, maximum: int,
               why: str = N_("larger sizes take more memory or time than a lesson needs")) -> int:
    """``value`` as an int in [minimum, maximum]; the upper bound keeps a typo from allocating gigabytes."""
    value = check_positive_int(value, name, minimum=minimum)
    if value > maximum:
        raise ValueError(tr("{name} must be an integer in [{minimum}, {maximum:,}] ({why}); got {value:,}",
                            name=name, minimum=minimum, maximum=maximum, why=tr(why), value=value))
    return value


def check_countable(tensor) -> torch.Tensor:
    if not isinstance(tensor, torch.Tensor):
        raise TypeError(tr("every item must be a torch.Tensor; got {type}", type=type(tensor).__name__))
    if tensor.device.type == "meta":
        raise ValueError(tr("meta tensors have no storage to compare; count them with model.parameters() instead"))
    refuse_sparse(tensor, N_("count"))
    return tensor


def refuse_sparse(tensor: torch.Tensor, what: str) -> None:
    if tensor.layout != torch.strided:
        raise ValueError(tr("cannot {what} a sparse tensor ({layout}): it has no single storage of its "
                            "elements; pass tensor.to_dense()", what=tr(what), layout=tensor.layout))


def check_state_dict(state_dict, *, for_safetensors: bool = False) -> Mapping:
    if not isinstance(state_dict, Mapping) or not all(isinstance(v, torch.Tensor) for v in state_dict.values()):
        raise TypeError(tr("state_dict must be a mapping of names to tensors (model.state_dict()); got {type}",
                           type=type(state_dict).__name__))
    if not all(isinstance(k, str) for k in state_dict):
        raise TypeError(tr("state_dict keys must be strings (parameter names); got {keys}",
                           keys=sorted(map(repr, state_dict))))
    meta = sorted(k for k, v in state_dict.items() if v.device.type == "meta")
    if meta:
        raise ValueError(tr("meta tensors hold no values to save; got meta tensors for {names}", names=meta))
    for value in state_dict.values():
        refuse_sparse(value, N_("save"))
    if for_safetensors:
        strided = sorted(k for k, v in state_dict.items() if not v.is_contiguous())
        if strided:
            raise ValueError(tr("safetensors saves contiguous tensors only; call .contiguous() on {names}", names=strided))
    return state_dict


def check_model(model) -> nn.Module:
    if not isinstance(model, nn.Module):
        raise TypeError(tr("model must be an nn.Module; got {type}", type=type(model).__name__))
    check_state_dict(model.state_dict(), for_safetensors=True)
    return model


def check_seq2seq_config(vocab_size, d_model, sharing, nhead, dim_feedforward, max_length) -> None:
    """Clear errors for the sizes of a ``SharedVocabSeq2Seq`` (before torch allocates anything)."""
    check_choice(sharing, "sharing", SHARING)
    check_size(vocab_size, "vocab_size", maximum=100_000)
    check_size(d_model, "d_model", minimum=2, maximum=1024)
    check_size(nhead, "nhead", maximum=d_model)
    check_size(dim_feedforward, "dim_feedforward", maximum=16_384)
    check_size(max_length, "max_length", maximum=4096)
    if d_model % 2:
        raise ValueError(tr("d_model must be even (sin/cos position pairs); got {d_model}", d_model=d_model))
    if d_model % nhead:
        raise ValueError(tr("d_model must be divisible by nhead (each head gets d_model // nhead dimensions); "
                            "got d_model={d_model}, nhead={nhead}", d_model=d_model, nhead=nhead))


def check_seq2seq_ids(source_ids, target_ids, vocab_size: int, max_length: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Source and target ids as (batch, length) LongTensors with one batch size, 1..max_length tokens each."""
    max_length = check_positive_int(max_length, "max_length")
    checked = []
    for name, ids in ((tr("source ids"), source_ids), (tr("target ids"), target_ids)):
        if isinstance(ids, torch.Tensor) and ids.device.type == "meta":
            raise ValueError(tr("{name} must hold real token ids; got a meta tensor of shape {shape}", name=name,
                                shape=tuple(ids.shape)))
        ids = check_token_ids(ids, vocab_size, ranks=(2,), name=name)
        if ids.shape[0] == 0 or ids.shape[1] == 0:
            raise ValueError(tr("{name} must hold at least one sequence of at least one token; got shape {shape}",
                                name=name, shape=tuple(ids.shape)))
        if ids.shape[1] > max_length:
            raise ValueError(tr("{name}: sequences may have at most {max_length} tokens; got {length}", name=name,
                                max_length=max_length, length=ids.shape[1]))
        checked.append(ids)
    source, target = checked
    if source.shape[0] != target.shape[0]:
        raise ValueError(tr("source ids and target ids must have the same batch size (one target per source); "
                            "got {sources} sources and {targets} targets", sources=source.shape[0],
                            targets=target.shape[0]))
    return source, target
