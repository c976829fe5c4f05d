"""Which rows of a gradient are not zero: what lessons 01 and 03 count (dense or sparse gradients)."""

from __future__ import annotations

import torch

from .language import tr
from .validation import check_matrix


def nonzero_rows(grad: torch.Tensor) -> list[int]:
    """Indices of the rows of a gradient that are not all zero (a NaN/inf or meta gradient is refused).

    A sparse gradient (``nn.Embedding(sparse=True)``, lesson 01 §4) is read from its stored rows: coalesced
    (a repeated id's entries added up), a stored row whose values are all zero does not count."""
    if grad is None:
        raise TypeError(tr("grad must be a torch.Tensor; got None — a .grad is None until backward() has run"))
    if isinstance(grad, torch.Tensor) and grad.layout != torch.strided and not grad.is_meta:
        return _sparse_nonzero_rows(grad)
    check_matrix(grad, "grad")
    return grad.abs().sum(dim=1).nonzero().flatten().tolist()


def _sparse_nonzero_rows(grad: torch.Tensor) -> list[int]:
    if grad.dim() != 2:
        raise ValueError(tr("grad must be a 2-D matrix (rows, cols); got a sparse tensor of shape {shape}",
                            shape=tuple(grad.shape)))
    if not grad.is_floating_point():
        raise TypeError(tr("{name} must hold floating-point values; got dtype {dtype}", name="grad", dtype=grad.dtype))
    coo = (grad if grad.layout == torch.sparse_coo else grad.to_sparse_coo()).coalesce()
    values = coo.values()
    if not bool(torch.isfinite(values).all()):
        bad = "NaN" if bool(torch.isnan(values).any()) else "inf"
        raise ValueError(tr("{name} must hold finite numbers; it contains {bad} (did a training run diverge?)",
                            name="grad", bad=bad))
    stored = values.reshape(len(values), -1).ne(0).any(dim=1)      # a stored entry (or row) that is not zero
    return sorted({int(row) for row in coo.indices()[0][stored].tolist()})
