"""What a check can find wrong with an answer, and how it says so.

A checker raises one of these; :func:`lmtie_edu.kit.exercises.exercise` turns it into the learner's ❌ line.
Anything else escaping a checker is a bug in the checker, reported as such (never blamed on the learner).
"""

from __future__ import annotations

import torch


class Mismatch(Exception):
    """The answer ran but is wrong: what was wrong, what was expected, what it gave, and — when the
    checker recognises it — the key of the known mistake that produces exactly this answer."""

    def __init__(self, what: str, expected=None, got=None, *, mistake: str | None = None):
        super().__init__(what)
        self.what, self.expected, self.got, self.mistake = what, expected, got, mistake


class Shortcut(Exception):
    """The answer used a tool the exercise asks the learner to do without (indexing, autograd, …)."""

    def __init__(self, tool: str):
        super().__init__(tool)
        self.tool = tool


class LearnerCrash(Exception):
    """The learner's own function raised: carries the original error."""

    def __init__(self, error: BaseException):
        super().__init__(f"{type(error).__name__}: {error}")
        self.error = error


class NotAttempted(Exception):
    """The learner's function still raises NotImplementedError."""


def expect_type(value, expected: type | tuple[type, ...], what: str, *, mistake: str | None = None) -> None:
    """Raise :class:`Mismatch` unless ``value`` is an instance of ``expected`` (bool is never an int here)."""
    types = expected if isinstance(expected, tuple) else (expected,)
    is_bool_for_number = isinstance(value, bool) and bool not in types
    if not isinstance(value, types) or is_bool_for_number:
        names = " or ".join(t.__name__ for t in types)
        article = "an" if names[0] in "aeiou" else "a"
        raise Mismatch(f"{what} must return {article} {names}", names, type(value).__name__, mistake=mistake)


def _as_tensor(value, what: str) -> torch.Tensor:
    try:
        return torch.as_tensor(value).detach()
    except (TypeError, ValueError, RuntimeError):
        raise Mismatch(f"{what} must return numbers (a tensor)", "a tensor", type(value).__name__) from None


def _close(a: torch.Tensor, b: torch.Tensor, atol: float) -> bool:
    return a.shape == b.shape and bool(torch.allclose(a.double(), b.double(), atol=atol, rtol=1e-5))


def expect_close(got, expected, what: str, *, atol: float = 1e-5, wrong: dict | None = None) -> None:
    """Raise :class:`Mismatch` unless ``got`` has the shape and values of ``expected``.

    ``wrong`` maps a mistake's key to what that mistake would return; a matching answer is diagnosed by name.
    """
    got_t, expected_t = _as_tensor(got, what), torch.as_tensor(expected).detach()
    if _close(got_t, expected_t, atol):
        return
    for key, value in (wrong or {}).items():
        if _close(got_t, torch.as_tensor(value).detach(), atol):
            raise Mismatch(f"{what}: wrong {'values' if got_t.shape == expected_t.shape else 'shape'}",
                           _summary(expected_t), _summary(got_t), mistake=key)
    if got_t.shape != expected_t.shape:
        raise Mismatch(f"{what}: wrong shape", tuple(expected_t.shape), tuple(got_t.shape))
    raise Mismatch(f"{what}: wrong values", expected_t, got_t)


def expect_equal(got, expected, what: str, *, wrong: dict | None = None) -> None:
    """Raise :class:`Mismatch` unless ``got == expected``; ``wrong`` maps mistake keys to their answers."""
    if got == expected:
        return
    for key, value in (wrong or {}).items():
        if got == value:
            raise Mismatch(f"{what}: wrong value", expected, got, mistake=key)
    raise Mismatch(f"{what}: wrong value", expected, got)


def _summary(t: torch.Tensor):
    return t if t.numel() <= 12 else f"tensor of shape {tuple(t.shape)}"
