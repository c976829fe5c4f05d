"""Lesson 07 — checkpoint plumbing: count each element of memory once, save into a temporary folder, read the size.

A tied model's ``state_dict()`` lists the shared matrix under two keys that read one storage. The
helpers here let the lesson's cells ask what a checkpoint costs without managing files:
``count_unique_elements`` (elements, each element of memory once), ``torch_checkpoint`` (``torch.save``
+ ``torch.load(weights_only=True)``), ``safetensors_checkpoint`` (``save_model``) and
``safetensors_save_file_error`` (what ``save_file`` says about a tied state dict). Their argument checks
are in ``checks``.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable, Mapping

import torch
from torch import nn

from lmtie_edu.shared.language import tr

from .checks import check_countable, check_model, check_state_dict


def count_unique_elements(tensors: Iterable[torch.Tensor] | Mapping) -> int:
    """Elements of memory that the tensors read, each counted once however many tensors read it —
    right for tied and untied models alike, for a loaded ``state_dict`` whose keys alias one storage,
    and for views into one buffer (halves of it, or the buffer and its parts). A mapping counts its values."""
    if isinstance(tensors, Mapping):
        tensors = tensors.values()
    if isinstance(tensors, (torch.Tensor, nn.Module, str, bytes)) or not isinstance(tensors, Iterable):
        raise TypeError(tr("pass an iterable of tensors (e.g. state_dict().values()); got {type}",
                           type=type(tensors).__name__))
    covered: dict[tuple[int, int], torch.Tensor] = {}  # (storage address, element size) -> element read?
    for tensor in map(check_countable, tensors):
        if tensor.numel() == 0:
            continue  # empty tensors may all report data_ptr 0: nothing to count, nothing to confuse
        storage = tensor.untyped_storage()
        key = (storage.data_ptr(), tensor.element_size())
        if key not in covered:
            covered[key] = torch.zeros(storage.nbytes() // tensor.element_size(), dtype=torch.bool)
        # mark the storage elements this tensor reads: where it starts, its shape and its strides
        covered[key].as_strided(tensor.shape, tensor.stride(), tensor.storage_offset()).fill_(True)
    return sum(int(read.sum()) for read in covered.values())


def torch_checkpoint(state_dict) -> tuple[int, dict]:
    """``torch.save`` a state dict into a temporary folder; return (file size in bytes, what
    ``torch.load(..., weights_only=True)`` gives back). The file name is fixed, so the size is too."""
    check_state_dict(state_dict)
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "checkpoint.pt")
        torch.save(state_dict, path)
        return os.path.getsize(path), torch.load(path, weights_only=True)


def safetensors_checkpoint(model: nn.Module) -> tuple[int, dict]:
    """``safetensors.torch.save_model`` (it drops the duplicate name of a shared tensor); return the
    file size in bytes and the tensors stored in the file (``load_file``)."""
    from safetensors.torch import load_file, save_model

    check_model(model)
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "model.safetensors")
        save_model(model, path)
        return os.path.getsize(path), load_file(path)


def safetensors_save_file_error(state_dict) -> str | None:
    """Try ``safetensors.torch.save_file``; return None if it saved, else its refusal, shortened to
    its first sentence with the shared names sorted (the library prints a set, whose order varies)."""
    from safetensors.torch import save_file

    check_state_dict(state_dict, for_safetensors=True)
    with tempfile.TemporaryDirectory() as folder:
        try:
            save_file(dict(state_dict), os.path.join(folder, "model.safetensors"))
        except RuntimeError as error:
            first = " ".join(str(error).split()).split(": [")[0]
            return f"{first}: {_shared_name_groups(state_dict)}"
    return None


def _shared_name_groups(state_dict) -> list[list[str]]:
    groups: dict[int, list[str]] = {}
    for name, tensor in state_dict.items():
        if tensor.numel():
            groups.setdefault(tensor.untyped_storage().data_ptr(), []).append(name)
    return sorted(sorted(names) for names in groups.values() if len(names) > 1)
