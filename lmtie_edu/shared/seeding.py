"""Seeded work that leaves the learner's random state alone.

A helper that needs torch's global generator (``nn.Linear`` and ``nn.Embedding`` draw their initial
weights from it, and so do Hugging Face model builders) runs inside :func:`seeded`: the block sees
``torch.manual_seed(seed)``, and afterwards the learner's generator is exactly where it was. Helpers
that only draw numbers themselves use a local ``torch.Generator().manual_seed(seed)`` instead.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import torch

from .validation import check_seed


@contextmanager
def seeded(seed: int) -> Iterator[None]:
    """Run a block with torch's global CPU generator seeded; restore the caller's state afterwards."""
    seed = check_seed(seed)
    with torch.random.fork_rng(devices=[]):  # CPU only: no device generators to save
        torch.manual_seed(seed)  # local to this block: fork_rng restores the learner's state on exit
        yield
