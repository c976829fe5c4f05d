"""Input checks shared by every helper.

Each check raises ``TypeError`` or ``ValueError`` with a message that names what was expected
and what was received, so a learner never has to decode a traceback from deep inside torch.
"""

from __future__ import annotations

import math
import numbers

import numpy as np
import torch

from .language import N_, tr


def _describe_shape(shape) -> str:
    return str(tuple(int(s) if isinstance(s, int) else s for s in shape)).replace("'", "")


MAX_BYTES = 2**30  # one tensor a lesson helper builds: more would swap or kill the kernel on a laptop
MAX_SEED = 2**32 - 1  # NumPy's legacy generator takes no larger seed; torch's takes it too
_RANK_EXAMPLES = {0: N_("a single id"), 1: "(seq,)", 2: "(batch, seq)", 3: "(batch, seq, k)"}


def check_memory(n_bytes: int, what: str, advice: str) -> None:
    """Refuse, before allocating, a tensor (or a set of them) that would need more than ``MAX_BYTES``."""
    if n_bytes > MAX_BYTES:
        raise ValueError(tr("{what} would need {size:,.1f} GB of memory; the limit is {limit:.0f} GB so that a "
                            "lesson never exhausts the machine — {advice}",
                            what=what, size=n_bytes / 2**30, limit=MAX_BYTES / 2**30, advice=advice))


def check_seed(value, name: str = "seed") -> int:
    """A seed every generator accepts: an integer in [0, 2**32 - 1] (NumPy integers too)."""
    value = check_positive_int(value, name, minimum=0)
    if value > MAX_SEED:
        raise ValueError(tr("{name} must be an integer >= 0 and <= {maximum:,} (2**32 - 1); got {value:,}",
                            name=name, maximum=MAX_SEED, value=value))
    return value


def plain_number(value):
    """A NumPy scalar as the Python number it holds (np.int64(3) -> 3, np.float32(0.5) -> 0.5); anything else
    unchanged. Widgets and torch's generators want Python numbers; a learner may hand over NumPy's."""
    if isinstance(value, np.generic) and not isinstance(value, np.bool_):
        return value.item()
    return value


def check_positive_int(value, name: str, *, minimum: int = 1) -> int:
    """Return ``value`` as an int if it is an integer >= ``minimum``; raise otherwise."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        if isinstance(value, numbers.Real) and float(value).is_integer():
            hint = tr(" (use {whole} instead of {value})", whole=int(value), value=repr(value))
        else:
            hint = ""
        raise TypeError(tr("{name} must be an integer >= {minimum}; got {value} ({type}){hint}",
                           name=name, minimum=minimum, value=repr(value), type=type(value).__name__, hint=hint))
    if value < minimum:
        raise ValueError(tr("{name} must be an integer >= {minimum}; got {value}", name=name, minimum=minimum,
                            value=value))
    return int(value)


def check_token_ids(ids, vocab_size: int, *, ranks: tuple[int, ...] = (1, 2), name: str | None = None) -> torch.Tensor:
    """Check token ids and return them as a ``torch.long`` tensor.

    Accepts a list, a NumPy array or a tensor. Rejects floats and bools (an embedding lookup
    needs integer row numbers), ids outside ``[0, vocab_size - 1]`` and tensors of the wrong rank.
    ``name`` is what the messages call the ids (default: "token ids", in the learner's language).
    """
    name = tr("token ids") if name is None else name
    vocab_size = check_positive_int(vocab_size, "vocab_size")
    if isinstance(ids, (str, bytes)):
        raise TypeError(tr("{name} must be integers, not text; got {text} — map the text to ids first",
                           name=name, text=repr(ids[:30])))
    if isinstance(ids, torch.Tensor) and ids.is_meta:
        raise ValueError(tr("{name} is a meta tensor (a shape without values); pass real token ids", name=name))
    if not isinstance(ids, torch.Tensor):
        try:
            array = np.asarray(ids)
            # an empty list has no dtype of its own (NumPy says float64): it is an empty batch of ids
            ids = torch.as_tensor(array) if array.size else torch.empty(array.shape, dtype=torch.long)
        except (TypeError, ValueError) as exc:
            raise TypeError(tr("{name} must be integers (a list, array or LongTensor); got {value}",
                               name=name, value=repr(ids))) from exc
    if ids.dtype == torch.bool or ids.is_floating_point() or ids.is_complex():
        example = ids.flatten()[:3].tolist()
        raise TypeError(tr("{name} must be integers (torch.long), the row numbers of the embedding matrix; got dtype "
                           "{dtype} with values {values}. Convert with ids.long() if they are whole numbers.",
                           name=name, dtype=ids.dtype, values=example))
    if ids.is_sparse:  # e.g. a gradient's indices: the ids are its values, zeros included
        ids = ids.to_dense()
    if ids.dim() not in ranks:
        wanted = tr(" or ").join(str(r) for r in ranks)
        examples = tr(" or ").join(tr(_RANK_EXAMPLES[r]) if r in _RANK_EXAMPLES else tr("a rank-{rank} tensor", rank=r)
                                   for r in ranks)
        raise ValueError(tr("{name} must have rank {wanted}, e.g. {examples}; got rank {rank} with shape {shape}",
                            name=name, wanted=wanted, examples=examples, rank=ids.dim(),
                            shape=_describe_shape(ids.shape)))
    ids = ids.long()
    if ids.numel():
        low, high = int(ids.min()), int(ids.max())
        if low < 0 or high >= vocab_size:
            bad = low if low < 0 else high
            position = tuple(int(i) for i in (ids == bad).nonzero()[0].tolist())
            raise ValueError(tr("{name} must lie in [0, {top}] for a vocabulary of {vocab_size}; got {bad} at "
                                "position {position}",
                                name=name, top=vocab_size - 1, vocab_size=vocab_size, bad=bad, position=position))
    return ids


def check_matrix(matrix, name: str, *, shape: tuple[int | None, int | None] | None = None) -> torch.Tensor:
    """Check that ``matrix`` is a 2-D floating tensor, optionally of a given (rows, cols) shape."""
    if not isinstance(matrix, torch.Tensor):
        raise TypeError(tr("{name} must be a torch.Tensor; got {type}", name=name, type=type(matrix).__name__))
    if matrix.dim() != 2:
        raise ValueError(tr("{name} must be a 2-D matrix (rows, cols); got shape {shape}",
                            name=name, shape=_describe_shape(matrix.shape)))
    if not matrix.is_floating_point():
        raise TypeError(tr("{name} must hold floating-point values; got dtype {dtype}", name=name, dtype=matrix.dtype))
    if matrix.is_meta:
        raise ValueError(tr("{name} is a meta tensor (a shape without values); build it on the CPU to compute with it",
                            name=name))
    if matrix.is_sparse:  # e.g. an embedding's sparse gradient: check (and return) its dense form
        matrix = matrix.to_dense()
    if matrix.numel() == 0:
        raise ValueError(tr("{name} must have at least one row and one column; got shape {shape}",
                            name=name, shape=_describe_shape(matrix.shape)))
    if not bool(torch.isfinite(matrix).all()):
        bad = "NaN" if bool(torch.isnan(matrix).any()) else "inf"
        raise ValueError(tr("{name} must hold finite numbers; it contains {bad} (did a training run diverge?)",
                            name=name, bad=bad))
    if shape is not None:
        for axis, (want, got) in enumerate(zip(shape, matrix.shape, strict=True)):
            if want is not None and want != got:
                expected = _describe_shape(["*" if s is None else s for s in shape])
                raise ValueError(tr("{name} must have shape {expected}; got {shape} (axis {axis} differs)",
                                    name=name, expected=expected, shape=_describe_shape(matrix.shape), axis=axis))
    return matrix


def check_tie_shapes(embedding_weight: torch.Tensor, head_weight: torch.Tensor) -> None:
    """Raise unless an embedding (V, d) and an output head weight (V, d) can share one matrix.

    ``nn.Linear(d, V)`` stores its weight as (V, d) — the same layout as ``nn.Embedding(V, d)`` —
    which is why the tie is a plain assignment.
    """
    for name, weight in ((N_("the embedding weight"), embedding_weight), (N_("the head weight"), head_weight)):
        if not isinstance(weight, torch.Tensor):
            raise TypeError(tr("{name} must be a tensor (an nn.Parameter); got {type}",
                               name=tr(name), type=type(weight).__name__))
    emb, head = tuple(embedding_weight.shape), tuple(head_weight.shape)
    if emb == head:
        return
    message = tr("cannot tie: the embedding weight has shape {embedding} = (V, d) but the head weight has shape "
                 "{head}; tying needs the head to be nn.Linear(d={d}, V={V}), whose weight is ({V}, {d})",
                 embedding=_describe_shape(emb), head=_describe_shape(head), d=emb[-1], V=emb[0])
    if head == emb[::-1]:
        message += tr(" — the head looks transposed: did you build nn.Linear(V, d) instead of nn.Linear(d, V)?")
    raise ValueError(message)


def check_choice(value, name: str, options) -> object:
    """Raise ``ValueError`` unless ``value`` is one of ``options``."""
    options = tuple(options)
    for option in options:
        if isinstance(value, bool | np.bool_) != isinstance(option, bool | np.bool_):
            continue  # True is not the option 1, nor 1 the option True
        try:
            if value is option or bool(value == option):
                return option  # np.str_('a') or np.int64(3) as the plain option it equals
        except (TypeError, ValueError, RuntimeError):  # e.g. a tensor or an array: compares element by element
            break
    raise ValueError(tr("{name} must be one of {options}; got {value:.80}",
                        name=name, options=list(options), value=repr(value)))


def is_option(value, option) -> bool:
    """``value`` is ``option`` and of its kind: True is not the option 1 (nor 1 the option True), 2.0 and 2+0j are
    not the option 2 (an int option wants an int; a float option takes an int). A dropdown would store the equal
    option, so a panel's set() would take what its constructor refuses."""
    flags = (bool, np.bool_)
    kind = flags if isinstance(option, flags) else next(
        (k for k in (numbers.Integral, numbers.Real, numbers.Complex) if isinstance(option, k)), object)
    return isinstance(value, kind) and isinstance(value, flags) == isinstance(option, flags) and value == option


def check_bool(value, name: str) -> bool:
    """Raise ``TypeError`` unless ``value`` is exactly True or False (1, 0 and "yes" are not switches)."""
    if not isinstance(value, bool | np.bool_):
        raise TypeError(tr("{name} must be True or False; got {value}", name=name, value=repr(value)))
    return bool(value)


def check_number(value, name: str, *, minimum: float | None = None, maximum: float | None = None,
                 strict: bool = False, expected: str | None = None) -> float:
    """Return ``value`` as a float if it is a finite real number within the bounds; raise ``ValueError``.

    ``strict`` excludes the bounds themselves. ``expected`` replaces the generated description of
    what is allowed (e.g. "a positive number (GPT-2 uses 4)"). Booleans are rejected: ``True`` is
    an int to Python, but never a sensible temperature or weight decay.
    """
    if expected is None:
        below, above = (">", "<") if strict else (">=", "<=")
        if minimum is not None and maximum is not None:
            expected = (tr("a number strictly between {minimum} and {maximum}", minimum=minimum, maximum=maximum)
                        if strict else tr("a number in [{minimum}, {maximum}]", minimum=minimum, maximum=maximum))
        elif minimum is not None:
            expected = tr("a number {sign} {minimum}", sign=below, minimum=minimum)
        elif maximum is not None:
            expected = tr("a number {sign} {maximum}", sign=above, maximum=maximum)
        else:
            expected = tr("a finite number")
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool) and math.isfinite(value)
    if ok and minimum is not None:
        ok = value > minimum if strict else value >= minimum
    if ok and maximum is not None:
        ok = value < maximum if strict else value <= maximum
    if not ok:
        raise ValueError(tr("{name} must be {expected}; got {value}", name=name, expected=expected, value=repr(value)))
    return float(value)
