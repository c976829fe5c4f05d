"""Lesson 07 — plumbing for the pitfalls: a fixed batch, an optimiser check, a tiny GPT-2 from a config.

The pitfalls themselves (copy vs share, the optimiser built before the tie, counting, decay groups,
untying) are written out in the lesson's cells. What stays here is what a learner would skip:

- ``demo_data``: a fixed random token stream cut into next-token windows;
- ``in_optimiser``: is this very Parameter object in one of the optimiser's groups?
- ``tiny_gpt2``: a one-layer GPT-2 built from a ``GPT2Config`` (nothing downloaded).

Their argument checks are in ``checks``.
"""

from __future__ import annotations

import torch

from lmtie_edu.shared.language import tr
from lmtie_edu.shared.seeding import seeded
from lmtie_edu.shared.training import make_windows
from lmtie_edu.shared.validation import check_bool, check_positive_int

from .checks import check_size


def demo_data(vocab_size: int = 16, context: int = 2, length: int = 200, seed: int = 0):
    """A fixed random token stream cut into (inputs, targets) windows for a few optimiser steps."""
    vocab_size = check_size(vocab_size, "vocab_size", minimum=2, maximum=100_000)
    length = check_size(length, "length", minimum=2, maximum=1_000_000)
    seed = check_positive_int(seed, "seed", minimum=0)
    generator = torch.Generator().manual_seed(seed)
    return make_windows(torch.randint(vocab_size, (length,), generator=generator), context)


def in_optimiser(parameter: torch.Tensor, optimiser: torch.optim.Optimizer) -> bool:
    """True if ``parameter`` (this very object, not an equal copy) is in one of the optimiser's groups."""
    if not isinstance(parameter, torch.Tensor):
        raise TypeError(tr("parameter must be a torch.Tensor (an nn.Parameter); got {type}",
                           type=type(parameter).__name__))
    if not isinstance(optimiser, torch.optim.Optimizer):
        raise TypeError(tr("optimiser must be a torch.optim.Optimizer; got {type}", type=type(optimiser).__name__))
    return any(p is parameter for group in optimiser.param_groups for p in group["params"])


# -- a tiny Hugging Face model built from a config (no download) ---------------------------------
def tiny_gpt2(*, vocab_size: int = 64, tie: bool = True, seed: int = 0):
    """A one-layer GPT-2 (d = 16) built from a ``GPT2Config`` — nothing is downloaded.

    The special-token ids are put inside the small vocabulary (GPT-2's default 50256 is not), so the
    config is valid and ``transformers`` has nothing to warn about.
    """
    from transformers import GPT2Config, GPT2LMHeadModel

    vocab_size = check_size(vocab_size, "vocab_size", minimum=2, maximum=100_000)
    tie = check_bool(tie, "tie")  # np.True_ as True: the config refuses NumPy's bool
    config = GPT2Config(vocab_size=vocab_size, n_positions=32, n_embd=16, n_layer=1, n_head=2,
                        bos_token_id=vocab_size - 1, eos_token_id=vocab_size - 1, tie_word_embeddings=tie)
    with seeded(seed):  # the weights are drawn from torch's global generator; the learner's is restored
        return GPT2LMHeadModel(config)
