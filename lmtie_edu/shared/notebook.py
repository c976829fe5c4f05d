"""One call at the top of every lesson: seeds, threads and print settings for reproducible outputs."""

from __future__ import annotations

import random

import numpy as np
import torch


def setup_lesson(seed: int = 0, threads: int = 1) -> None:
    """Seed every generator, fix the thread count and round printed tensors.

    Stored outputs are compared digit by digit when the notebook is re-run (nbval), so the run
    must not depend on the machine's core count: one thread gives the same floating-point sums
    everywhere. ``threads=2`` is used only by the training lesson, for speed.
    """
    random.seed(seed)
    np.random.seed(seed)  # noqa: NPY002 — learners may use the legacy global generator
    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    torch.set_printoptions(precision=4, sci_mode=False)
    np.set_printoptions(precision=4, suppress=True)
