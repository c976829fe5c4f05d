"""Lesson 01's argument checks: the one-step demo's inputs and the token ids a learner types in the panel.

What a learner skips: the lesson's cells call these only to turn bad input into a clear message.
"""

from __future__ import annotations

import numbers
import re

import torch

from lmtie_edu.shared.language import tr
from lmtie_edu.shared.validation import check_bool, check_positive_int, check_token_ids

#: The one-step demo allocates two (V, d) matrices; more than this many entries is a typo, not a lesson.
MAX_DEMO_ENTRIES = 10_000_000
MAX_SEED = 2**64 - 1
#: The panel's figure draws one row per token; more rows than this are not readable (nor quick to draw).
MAX_FIGURE_VOCAB = 64
_PLAIN_DIGITS = re.compile(r"[0-9]+")
_DECIMAL = re.compile(r"-?[0-9]*\.[0-9]+|-?[0-9]+\.")


def check_gradient_inputs(ids, vocab_size: int, d_model: int, seed: int, tie: bool) -> torch.Tensor:
    """Check the arguments of :func:`next_token_gradient`; return the ids as one LongTensor sequence."""
    vocab_size = check_positive_int(vocab_size, "vocab_size")
    d_model = check_positive_int(d_model, "d_model")
    if isinstance(seed, numbers.Integral) and not isinstance(seed, (int, bool)):   # the cell seeds torch with it
        raise TypeError(tr("seed must be a Python int (torch.Generator refuses NumPy integers); got {seed} — "
                           "pass int(seed)", seed=repr(seed)))
    if check_positive_int(seed, "seed", minimum=0) > MAX_SEED:
        raise ValueError(tr("seed must be an integer in [0, 2**64 - 1] (what torch.Generator accepts); got {seed}",
                            seed=seed))
    check_bool(tie, "tie")
    if vocab_size * d_model > MAX_DEMO_ENTRIES:
        raise ValueError(tr("vocab_size × d_model must be at most {limit:,} for this demo; "
                            "got {vocab_size:,} × {d_model:,} = {entries:,}", limit=MAX_DEMO_ENTRIES,
                            vocab_size=vocab_size, d_model=d_model, entries=vocab_size * d_model))
    ids = check_token_ids(ids, vocab_size, ranks=(1,))
    if ids.numel() * vocab_size > MAX_DEMO_ENTRIES:
        raise ValueError(tr("the logits need len(ids) × vocab_size numbers, at most {limit:,} for this demo; "
                            "got {length:,} × {vocab_size:,} = {entries:,}", limit=MAX_DEMO_ENTRIES,
                            length=ids.numel(), vocab_size=vocab_size, entries=ids.numel() * vocab_size))
    if ids.numel() < 2:
        raise ValueError(tr("need at least 2 token ids (an input and the next token to predict); got {ids}",
                            ids=ids.tolist()))
    return ids


def parse_ids(text: str, vocab_size: int) -> torch.Tensor:
    """Parse ``"2, 5, 5, 9"`` (what a learner types in the widget) into checked token ids."""
    if not isinstance(text, str):
        raise TypeError(tr("token ids must be typed as text like '2, 5, 5, 9'; got {text}", text=repr(text)))
    vocab_size = check_positive_int(vocab_size, "vocab_size")
    parts = text.replace(",", " ").split()
    if not parts:
        raise ValueError(tr("type at least one token id, e.g. '2, 5, 5, 9' (ids 0..{last})", last=vocab_size - 1))
    for position, part in enumerate(parts):
        digits = part.removeprefix("-")
        if not _PLAIN_DIGITS.fullmatch(digits):     # int() would also take '1_0', '+3', '３' (full-width)
            kind = tr("a decimal number") if _DECIMAL.fullmatch(part) else tr("not a number")
            raise ValueError(tr("token ids must be whole numbers in [0, {last}]; got {part} ({kind}) — "
                                "type plain digits 0-9, separated by commas or spaces", last=vocab_size - 1,
                                part=repr(part), kind=kind))
        if digits != part or len(digits.lstrip("0")) > len(str(vocab_size)) or int(digits) >= vocab_size:
            raise ValueError(tr("token ids must lie in [0, {last}] for a vocabulary of {vocab_size}; "
                                "got {part} at position ({position},)", last=vocab_size - 1, vocab_size=vocab_size,
                                part=part, position=position))
    values = [int(part) for part in parts]
    return check_token_ids(values, vocab_size, ranks=(1,))
