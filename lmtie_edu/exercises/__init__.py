"""Exercise checks: precise feedback for a learner, one reference solution for instructors.

Each exercise is a function the learner writes in a cell tagged ``exercise`` (a stub that raises
``NotImplementedError``). Its checker lives in ``lmtie_edu.exercises.lessonNN`` and is declared
with :func:`exercise`, naming the reference solution in ``lmtie_edu.solutions.lessonNN``. The
same solution is used to compute the expected answers, by the unit tests (every solution must
pass its own check, a wrong answer must fail it) and by ``make solutions``, which builds the
instructor notebooks by replacing each stub with the solution's source — there is no second,
hand-kept copy.

In a notebook::

    from lmtie_edu.exercises import lesson01 as ex
    ex.one_hot_lookup(one_hot_lookup)     # prints ✅ / ❌ with expected, got and a hint
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import torch

REGISTRY: dict[str, Callable] = {}
RESULTS: dict[str, bool] = {}  # exercise name -> did its latest check pass (this kernel's session)


class Verdict:
    """The outcome of a check: truthy when correct. Shows nothing itself (the check already printed)."""

    def __init__(self, passed: bool):
        self.passed = passed

    def __bool__(self) -> bool:
        return self.passed

    def __repr__(self) -> str:
        return f"Verdict(passed={self.passed})"

    def _ipython_display_(self) -> None:  # a check cell's last line must not echo "Verdict(...)"
        pass


class Mismatch(Exception):
    """Raised by a checker: what was wrong, what was expected, what the learner's answer gave."""

    def __init__(self, what: str, expected=None, got=None):
        super().__init__(what)
        self.what, self.expected, self.got = what, expected, got


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 300 else text[:297] + "..."


def exercise(solution: Callable, *, hint: str):
    """Declare a checker ``checker(answer, solution)`` for the exercise named like ``solution``.

    The decorated function takes the learner's answer, prints one verdict and returns a :class:`Verdict`.
    """

    def declare(checker: Callable):
        name = solution.__name__

        @functools.wraps(checker)
        def run(answer) -> Verdict:
            verdict = _check(answer)
            RESULTS[name] = verdict.passed
            return verdict

        def _check(answer) -> Verdict:
            if answer is None or answer is Ellipsis:
                print(f"⏳ {name}: not attempted yet. Hint: {hint}")
                return Verdict(False)
            try:
                cases = checker(answer, solution)
            except NotImplementedError:
                print(f"⏳ {name}: not attempted yet (your function raises NotImplementedError). Hint: {hint}")
                return Verdict(False)
            except Mismatch as wrong:
                lines = [f"❌ {name}: {wrong.what}"]
                if wrong.expected is not None or wrong.got is not None:
                    lines += [f"   expected: {_short(wrong.expected)}", f"   got:      {_short(wrong.got)}"]
                lines.append(f"   hint: {hint}")
                print("\n".join(lines))
                return Verdict(False)
            except Exception as error:  # the learner's code crashed: show it as feedback, not a traceback
                print(f"❌ {name}: your code raised {type(error).__name__}: {error}\n   hint: {hint}")
                return Verdict(False)
            suffix = (f" (checked on {cases} case{'' if cases == 1 else 's'})" if isinstance(cases, int) else "")
            print(f"✅ {name}: correct{suffix}.")
            return Verdict(True)

        run.solution = solution
        run.hint = hint
        run.exercise_name = name
        if name in REGISTRY:
            raise RuntimeError(f"two exercises are named {name!r}")
        REGISTRY[name] = run
        return run

    return declare


def expect_close(got, expected, what: str, *, atol: float = 1e-5) -> None:
    """Raise :class:`Mismatch` unless two tensors (or numbers) have the same shape and values."""
    got_t, expected_t = torch.as_tensor(got), torch.as_tensor(expected)
    if got_t.shape != expected_t.shape:
        raise Mismatch(f"{what}: wrong shape", tuple(expected_t.shape), tuple(got_t.shape))
    if not torch.allclose(got_t.double(), expected_t.double(), atol=atol, rtol=1e-5):
        raise Mismatch(f"{what}: wrong values", expected_t, got_t)


def expect_equal(got, expected, what: str) -> None:
    if got != expected:
        raise Mismatch(f"{what}: wrong value", expected, got)


def load_all() -> dict[str, Callable]:
    """Import every lesson's checkers and return the registry (used by tests and `make solutions`)."""
    import importlib
    import pkgutil

    for module in pkgutil.iter_modules(__path__):
        if module.name.startswith("lesson"):
            importlib.import_module(f"{__name__}.{module.name}")
    return REGISTRY
