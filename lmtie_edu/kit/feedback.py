"""What a check can find wrong with an answer, and how it says so.

A checker raises one of these; :func:`lmtie_edu.kit.exercises.exercise` turns it into the learner's ❌ line.
Anything else escaping a checker is a bug in the checker, reported as such (never blamed on the learner).
"""

from __future__ import annotations

import torch

from lmtie_edu.shared.language import N_, tr


class Mismatch(Exception):
    """The answer ran but is wrong: what was wrong, what was expected, what it gave, and — when the
    checker recognises it — the key of the known mistake that produces exactly this answer."""

    def __init__(self, what: str, expected=None, got=None, *, mistake: str | None = None, where: str | None = None):
        super().__init__(what)
        self.what, self.expected, self.got, self.mistake = what, expected, got, mistake
        self.where = where  # how and where a value answer differs (see describe_difference)


class Shortcut(Exception):
    """The answer used a tool the exercise asks the learner to do without (indexing, autograd, …)."""

    def __init__(self, tool: str):
        super().__init__(tool)
        self.tool = tool


class LearnerCrash(Exception):
    """The learner's own function raised: carries the original error."""

    def __init__(self, error: BaseException):
        super().__init__(f"{type(error).__name__}: {shown_message(error)}")
        self.error = error


MAX_MESSAGE = 500  # characters of a learner's error message that a check shows


def shown_message(error: BaseException) -> str:
    """The error's message, at most MAX_MESSAGE characters; a message that cannot be made is said so."""
    try:
        text = str.__str__(str(error))
    except Exception:  # noqa: BLE001 — the learner's exception class has a __str__ that raises
        return tr("(its message cannot be shown: its __str__ raised an error)")
    return text if len(text) <= MAX_MESSAGE else text[:MAX_MESSAGE - 1] + "…"


class NotAttempted(Exception):
    """The learner's function still raises NotImplementedError."""


def expect_type(value, expected: type | tuple[type, ...], what: str, *, mistake: str | None = None) -> None:
    """Raise :class:`Mismatch` unless ``value`` is an instance of ``expected`` (bool is never an int here)."""
    types = expected if isinstance(expected, tuple) else (expected,)
    is_bool_for_number = isinstance(value, bool) and bool not in types
    if not isinstance(value, types) or is_bool_for_number:
        names = tr(" or ").join(t.__name__ for t in types)
        article = N_("an") if names[0] in "aeiou" else N_("a")
        raise Mismatch(tr("{what} must return {article} {names}", what=what, article=tr(article), names=names),
                       names, type(value).__name__, mistake=mistake)


def _as_tensor(value, what: str) -> torch.Tensor:
    try:
        return torch.as_tensor(value).detach()
    except (TypeError, ValueError, RuntimeError):
        raise Mismatch(tr("{what} must return numbers (a tensor)", what=what), tr("a tensor"),
                       type(value).__name__) from None


def _close(a: torch.Tensor, b: torch.Tensor, atol: float) -> bool:
    return a.shape == b.shape and bool(torch.allclose(a.double(), b.double(), atol=atol, rtol=1e-5))


def _where(index: tuple[int, ...]) -> str:
    return "[" + ", ".join(map(str, index)) + "]"


def describe_difference(got: torch.Tensor, expected: torch.Tensor, atol: float = 1e-5) -> str:
    """Where and how ``got`` differs from ``expected``: a constant factor, a transpose, the largest difference
    and its position, the first differing row. Plain text for the learner's ❌ block."""
    got, expected = got.detach().double(), expected.detach().double()
    if got.shape != expected.shape:
        if got.dim() == 2 and got.t().shape == expected.shape and _close(got.t(), expected, atol):
            return tr("your answer is the expected one transposed")
        return tr("shape {got} where {expected} is expected", got=tuple(got.shape), expected=tuple(expected.shape))
    if got.numel() == 0:
        return tr("both are empty")
    notes = []
    scale = expected.abs().max().item()
    nonzero = expected.abs() > max(atol, 1e-9 * scale)
    if nonzero.any():
        ratios = got[nonzero] / expected[nonzero]
        factor = ratios.median().item()
        if abs(factor - 1) > 1e-3 and _close(got, expected * factor, atol):
            notes.append(tr("your answer is the expected one times {factor}", factor=_factor(factor)))
    if got.dim() == 2 and got.shape[0] == got.shape[1] and _close(got.t(), expected, atol):
        notes.append(tr("your answer is the expected one transposed"))
    difference = (got - expected).abs()
    flat = int(difference.argmax())
    index = tuple(int(i) for i in torch.unravel_index(torch.tensor(flat), got.shape)) if got.dim() else ()
    position = tr(" at {index}", index=_where(index)) if index else ""
    notes.append(tr("largest difference {size}{position} (expected {expected}, got {got})",
                    size=format(difference.max().item(), ".4g"), position=position,
                    expected=format(expected[index].item(), ".6g"), got=format(got[index].item(), ".6g")))
    wrong = ~torch.isclose(got, expected, atol=atol, rtol=1e-5)
    if got.dim() >= 2:
        rows = wrong.flatten(1).any(1).nonzero().flatten().tolist()
        notes.append(tr("{count} of {total} rows differ, the first is row {first}", count=len(rows),
                        total=got.shape[0], first=rows[0]))
    elif got.dim() == 1:
        entries = wrong.nonzero().flatten().tolist()
        notes.append(tr("{count} of {total} entries differ, the first is [{first}]", count=len(entries),
                        total=got.shape[0], first=entries[0]))
    return tr("; ").join(notes)


def _factor(factor: float) -> str:
    for n in range(2, 1025):
        if abs(factor - n) < 1e-3 * n:
            return str(n)
        if abs(factor - 1 / n) < 1e-3 / n:
            return f"1/{n}"
    if abs(factor + 1) < 1e-3:
        return tr("-1 (the sign is flipped)")
    return f"{factor:.4g}"


def expect_close(got, expected, what: str, *, atol: float = 1e-5, wrong: dict | None = None) -> None:
    """Raise :class:`Mismatch` unless ``got`` has the shape and values of ``expected``.

    ``wrong`` maps a mistake's key to what that mistake would return; a matching answer is diagnosed by name.
    Any other value mismatch says where and how the answer differs (:func:`describe_difference`).
    """
    got_t, expected_t = _as_tensor(got, what), torch.as_tensor(expected).detach()
    if _close(got_t, expected_t, atol):
        return
    where = describe_difference(got_t, expected_t, atol) if got_t.dtype.is_floating_point or \
        expected_t.dtype.is_floating_point or got_t.shape == expected_t.shape else None
    for key, value in (wrong or {}).items():
        if _close(got_t, torch.as_tensor(value).detach(), atol):
            raise Mismatch(tr("{what}: wrong values", what=what) if got_t.shape == expected_t.shape
                           else tr("{what}: wrong shape", what=what),
                           *_summaries(expected_t, got_t), mistake=key, where=where)
    if got_t.shape != expected_t.shape:
        raise Mismatch(tr("{what}: wrong shape", what=what), tuple(expected_t.shape), tuple(got_t.shape), where=where)
    raise Mismatch(tr("{what}: wrong values", what=what), *_summaries(expected_t, got_t), where=where)


def expect_equal(got, expected, what: str, *, wrong: dict | None = None) -> None:
    """Raise :class:`Mismatch` unless ``got == expected``; ``wrong`` maps mistake keys to their answers."""
    if got == expected:
        return
    for key, value in (wrong or {}).items():
        if got == value:
            raise Mismatch(tr("{what}: wrong value", what=what), expected, got, mistake=key)
    raise Mismatch(tr("{what}: wrong value", what=what), expected, got)


def _summaries(expected: torch.Tensor, got: torch.Tensor) -> tuple:
    """Both tensors when small; otherwise their shapes (and then the ``where`` line says what differs)."""
    if expected.numel() <= 12 and got.numel() <= 12:
        return expected, got
    return (tr("tensor of shape {shape}", shape=tuple(expected.shape)), tr("tensor of shape {shape}", shape=tuple(got.shape)))
