"""Exercise checks: feedback that diagnoses, hints on demand, one reference solution for instructors.

Each exercise is a function the learner writes in a cell tagged ``exercise`` (a stub that raises
``NotImplementedError``). Its checker lives in ``lmtie_edu.lessonNN.exercises`` and is declared with
:func:`exercise`, naming the reference solution in ``lmtie_edu.lessonNN.solutions``, the hints (tiers
revealed one at a time by :func:`hint`; the last tier is the worked answer, i.e. the solution's source)
and the known mistakes (each with the explanation a learner reads when the check recognises it).

In a notebook::

    from lmtie_edu.lesson01 import exercises as ex
    ex.bag_of_tokens(bag_of_tokens)     # ✅ / ❌ with what was wrong and, if recognised, which mistake
    ex.hint("bag_of_tokens")             # hint 1, then 2, …, then the worked answer

The checker receives the learner's function wrapped so that a crash inside it is reported as the learner's
(:class:`LearnerCrash`), and an exception from the checker's own code as a bug of the check.
"""

from __future__ import annotations

import builtins
import functools
import inspect
from collections.abc import Callable

import torch

from lmtie_edu.shared.language import in_language, tr

from .answer_guard import AnswerTimeout, guarded
from .feedback import LearnerCrash, Mismatch, NotAttempted, Shortcut, expect_close, expect_equal, expect_type
from .grading import SolutionWithheld, graded_mode, is_withheld
from .shortcuts import forbid_autograd, no_indexing, plain

__all__ = ["REGISTRY", "RESULTS", "Mismatch", "Shortcut", "exercise", "expect_close", "expect_equal",
           "expect_type", "forbid_autograd", "hint", "no_indexing"]

REGISTRY: dict[str, Callable] = {}
RESULTS: dict[str, bool] = {}  # exercise name -> did its latest check pass (this kernel's session)
HINTS_SHOWN: dict[str, int] = {}  # exercise name -> how many hint tiers the learner has asked for


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


def _short(value) -> str:
    try:
        text = str.__str__(repr(value))
    except Exception:  # noqa: BLE001 — the learner's object has a __repr__ that raises
        return tr("a {type} that cannot be shown (its __repr__ raised an error)", type=type(value).__name__)
    return text if len(text) <= 300 else text[:297] + "..."


class _LearnersFunction:
    """The learner's function as the checker sees it: a crash inside it becomes :class:`LearnerCrash`."""

    def __init__(self, function: Callable):
        self.function = function

    def __call__(self, *args, **kwargs):
        # what an answer may switch for the whole session is switched back as soon as it returns, before the
        # checker's own code runs on (the rest of the session is restored by answer_guard.guarded)
        state = torch.get_default_dtype(), torch.is_grad_enabled(), torch.get_num_threads(), builtins.print
        try:
            return plain(self.function(*args, **kwargs))
        except NotImplementedError:
            raise NotAttempted from None
        except (Shortcut, Mismatch, AnswerTimeout):
            raise
        except (Exception, SystemExit, KeyboardInterrupt) as error:  # exit() or Ctrl-C in an answer: the learner's
            raise LearnerCrash(error) from error
        finally:
            torch.set_default_dtype(state[0])
            torch.set_grad_enabled(state[1])
            torch.set_num_threads(state[2])
            builtins.print = state[3]


def _stuck_line(name: str, hints: list[str]) -> str:
    shown = HINTS_SHOWN.get(name, 0)
    tiers = len(hints) + 1
    if shown >= tiers:
        if graded_mode():
            return tr('   stuck? ex.hint("{name}") shows the last hint again.', name=name)
        return tr('   stuck? ex.hint("{name}") shows the worked answer again.', name=name)
    return tr('   stuck? ex.hint("{name}") shows hint {number} of {tiers}.', name=name, number=shown + 1, tiers=tiers)


def exercise(solution: Callable, *, hints: list[str] | tuple[str, ...], mistakes: dict[str, str] | None = None,
             on_error: Callable[[BaseException], str | None] | None = None, computed_by: tuple[str, ...] = ()):
    """Declare a checker ``checker(answer, solution)`` for the exercise named like ``solution``.

    ``hints``: tiers that name the idea, then narrow it down, without giving the code (the worked answer is
    added as the last tier). ``mistakes``: key -> explanation of a mistake students make; the checker raises
    ``Mismatch(..., mistake=key)`` (or ``expect_close(..., wrong={key: value})``) when it recognises one.
    ``on_error(error)`` may name the mistake behind a crash of the learner's code. ``computed_by``: the lesson's
    own functions (``"lmtie_edu.lessonNN.module.function"``) that compute the answer; a graded answer runs where
    they are withheld (``delivery/graded_package.py --answers``).
    """
    hints, mistakes = list(hints), dict(mistakes or {})
    if not hints or not all(isinstance(h, str) and h for h in hints):
        raise ValueError(f"exercise {solution.__name__!r}: hints must be one or more non-empty strings")

    def declare(checker: Callable):
        name = solution.__name__

        def diagnosis(key: str | None) -> list[str]:
            if key is None:
                return []
            if key not in mistakes:
                raise KeyError(f"checker of {name!r} names an undeclared mistake {key!r}")
            return [tr("   diagnosis: {text}", text=tr(mistakes[key]))]

        def verdict_lines(answer) -> tuple[bool, list[str]]:
            if answer is None or answer is Ellipsis or not callable(answer):
                if answer is None or answer is Ellipsis:
                    return False, [tr("⏳ {name}: not attempted yet.", name=name)]
                return False, [tr("❌ {name}: pass your function itself, e.g. ex.{name}({name}); got a {type}",
                                  name=name, type=type(answer).__name__)]
            try:
                with guarded():
                    cases = checker(_LearnersFunction(answer), solution)
            except AnswerTimeout as slow:
                return False, [tr("❌ {name}: stopped — {reason}", name=name, reason=slow)]
            except SolutionWithheld:
                return False, [tr("⏳ {name}: this is a graded lab — your answer is checked when you submit it "
                                  "(the reference is not installed here).", name=name)]
            except NotAttempted:
                return False, [tr("⏳ {name}: not attempted yet (your function raises NotImplementedError).", name=name)]
            except Shortcut as used:
                return False, [tr("❌ {name}: this exercise asks you to work without {tool}; your code used it.",
                                  name=name, tool=tr(used.tool))]
            except Mismatch as wrong:
                lines = [tr("❌ {name}: {what}", name=name, what=wrong.what)]
                expected, got = _short(wrong.expected), _short(wrong.got)
                if (wrong.expected is not None or wrong.got is not None) and expected != got:
                    lines += [tr("   expected: {value}", value=expected), tr("   got:      {value}", value=got)]
                if wrong.where:
                    lines.append(tr("   where:    {text}", text=wrong.where))
                return False, lines + diagnosis(wrong.mistake)
            except LearnerCrash as crash:
                try:
                    key = on_error(crash.error) if on_error else None
                except Exception:  # noqa: BLE001 — the learner's error misbehaves (its __str__ raises): no diagnosis
                    key = None
                return False, [tr("❌ {name}: your code raised {error}", name=name, error=crash)] + diagnosis(key)
            except Exception as bug:  # noqa: BLE001 — anything else is the checker's own failure
                return False, [tr("⚠️ {name}: the check itself failed — a bug in lmtie_edu, not in your answer "
                                  "({error}). Please report it to your instructor.", name=name,
                                  error=type(bug).__name__ + ": " + str(bug))]
            if not isinstance(cases, int):
                return True, [tr("✅ {name}: correct.", name=name)]
            if cases == 1:
                return True, [tr("✅ {name}: correct (checked on 1 case).", name=name)]
            return True, [tr("✅ {name}: correct (checked on {cases} cases).", name=name, cases=cases)]

        @functools.wraps(checker)
        def run(answer) -> Verdict:
            passed, lines = verdict_lines(answer)
            if not passed and not lines[0].startswith("⚠️"):
                lines.append(_stuck_line(name, hints))
            print("\n".join(lines))
            RESULTS[name] = passed
            return Verdict(passed)

        run.solution, run.hints, run.mistakes, run.exercise_name = solution, hints, mistakes, name
        run.computed_by = tuple(computed_by)
        if name in REGISTRY:
            raise RuntimeError(f"two exercises are named {name!r}")
        REGISTRY[name] = run
        return run

    return declare


def hint(name: str) -> None:
    """Print the next hint for exercise ``name``: hint 1, then 2, …, then the worked answer (the reference
    solution's source, its comments and docstring in the lesson's language)."""
    if not isinstance(name, str):
        raise TypeError(tr("hint() takes the exercise's name as a string, e.g. hint('bag_of_tokens'); got {type}",
                           type=type(name).__name__))
    if name not in REGISTRY:
        raise ValueError(tr("no exercise is named {name}; the exercises are: {names}", name=repr(name),
                            names=", ".join(sorted(REGISTRY))))
    check = REGISTRY[name]
    tiers = len(check.hints) + 1
    shown = min(HINTS_SHOWN.get(name, 0) + 1, tiers)
    HINTS_SHOWN[name] = shown
    if shown < tiers:
        print(tr("💡 {name}, hint {number} of {tiers}: {text}", name=name, number=shown, tiers=tiers,
                 text=tr(check.hints[shown - 1])))
    elif is_withheld(check.solution) or graded_mode():
        print(tr("💡 {name}: that was the last hint — this is a graded lab, so the worked answer is not shown "
                 "(ask your instructor).", name=name))
    else:
        print(tr("💡 {name}, worked answer ({tiers} of {tiers}) — read it, then write it yourself:", name=name,
                 tiers=tiers) + "\n\n" + in_language(inspect.getsource(check.solution)))

