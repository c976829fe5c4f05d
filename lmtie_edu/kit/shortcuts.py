"""Inputs and contexts that make a forbidden tool fail loudly, so that no shortcut passes a check.

- :func:`no_indexing` wraps a tensor so that ``W[ids]``, ``F.embedding``, ``index_select``, ``gather``, …
  raise :class:`Shortcut` while arithmetic (``@``, ``.t()``, ``.to()``) works as usual. What is computed
  from it refuses indexing too (``W.clone()[ids]`` is no way round); :func:`plain` turns a result back
  into ordinary tensors before a checker looks at it.
- :func:`forbid_autograd` makes ``backward()`` and ``torch.autograd.grad`` raise :class:`Shortcut`.
"""

from __future__ import annotations

import contextlib

import torch
import torch.nn.functional as F

from lmtie_edu.shared.language import N_

from .feedback import Shortcut

_INDEXING = {
    torch.Tensor.__getitem__, torch.Tensor.index_select, torch.index_select, torch.Tensor.gather, torch.gather,
    torch.Tensor.take, torch.take, torch.take_along_dim, torch.Tensor.take_along_dim, torch.embedding,
    F.embedding, torch.Tensor.index_put, torch.Tensor.index_put_, torch.Tensor.masked_select, torch.masked_select,
}


class _NoIndexing(torch.Tensor):
    """A tensor that refuses to be indexed or looked up, and so do the tensors computed from it."""

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        if func in _INDEXING:
            raise Shortcut(N_("indexing or a lookup (W[ids], F.embedding, index_select, gather)"))
        return super().__torch_function__(func, types, args, kwargs)


def plain(value):
    """``value`` with every no-indexing tensor in it (also inside a list/tuple) made an ordinary tensor."""
    if isinstance(value, _NoIndexing):
        return value.as_subclass(torch.Tensor)
    if isinstance(value, tuple) and hasattr(value, "_fields"):  # a named tuple takes its fields one by one
        return type(value)(*(plain(item) for item in value))
    if isinstance(value, list | tuple):
        return type(value)(plain(item) for item in value)
    return value


def no_indexing(tensor: torch.Tensor) -> torch.Tensor:
    """``tensor`` as an input that cannot be indexed (see module docstring)."""
    if not isinstance(tensor, torch.Tensor):
        raise TypeError(f"no_indexing expects a torch.Tensor, got {type(tensor).__name__}")
    return tensor.detach().clone().as_subclass(_NoIndexing)


@contextlib.contextmanager
def forbid_autograd():
    """Inside: ``Tensor.backward``, ``torch.autograd.backward`` and ``torch.autograd.grad`` raise :class:`Shortcut`."""

    def refuser(name):  # one function per patched name: torch refuses one object under two names
        def refuse(*args, **kwargs):
            raise Shortcut(N_("autograd (backward() or torch.autograd.grad)"))
        refuse.__name__ = refuse.__qualname__ = name
        return refuse

    saved = torch.Tensor.backward, torch.autograd.backward, torch.autograd.grad
    torch.Tensor.backward, torch.autograd.backward, torch.autograd.grad = (
        refuser("backward"), refuser("autograd_backward"), refuser("grad"))
    _FORBIDDING.append(True)
    try:
        yield
    finally:
        _FORBIDDING.pop()
        torch.Tensor.backward, torch.autograd.backward, torch.autograd.grad = saved


_FORBIDDING: list[bool] = []


def autograd_forbidden() -> bool:
    """True inside :func:`forbid_autograd` (a call to the learner's code in another process carries it there)."""
    return bool(_FORBIDDING)
