"""Answers run in a process apart (lmtie_edu.kit.answer_process, .wire): the grader's verdicts stay the learner's
verdicts, and nothing the answer does reaches the grader.

- Every wrong answer of the lessons' test corpora gets, through the process boundary, the very feedback it gets
  in the learner's kernel (values, identity, shared memory, in-place changes, exceptions and their diagnoses);
- over a graded copy of the package, the reference solutions cannot be imported by the answer;
- an answer that patches the checker, torch or the package in its own process leaves the grader's untouched, and
  one that climbs the stack to the checker's reference, or returns an always-equal tensor, finds nothing to use;
- an answer that loops (catching every interrupt), kills its process or returns what is not data gets a verdict
  about itself, within seconds of the limit, and the next check works.
"""

import contextlib
import importlib
import inspect
import io
import time
from pathlib import Path

import pytest
import torch

from delivery import graded_package
from lmtie_edu.kit import exercises as kit_exercises
from lmtie_edu.kit.answer_process import AnswerProcess
from lmtie_edu.kit.exercises import HINTS_SHOWN, REGISTRY
from tools.course import LESSONS as COURSE

REPO = Path(__file__).resolve().parents[2]
LESSONS = [f"lesson{lesson.number}" for lesson in COURSE]
CORPORA = ("WRONG", "ALSO", "ALSO_DIAGNOSED", "CAUGHT", "SHORTCUTS")
for _lesson in LESSONS:
    importlib.import_module(f"lmtie_edu.{_lesson}.exercises")


def _verdict(name: str, answer) -> str:
    HINTS_SHOWN.pop(name, None)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        getattr(importlib.import_module(REGISTRY[name].solution.__module__.replace("solutions", "exercises")),
                name)(answer)
    return printed.getvalue()


def _verdict_apart(source: str, name: str, package: Path) -> str:
    """What the check of ``name`` prints for the answer ``source`` defines, run in a process apart."""
    process = AnswerProcess([source], "", [name], package=package)
    try:
        return _verdict(name, process.function(name))
    finally:
        process.close()


def _wrong_answers(corpus) -> list[tuple[str, object]]:
    """(exercise, answer) for each module-level answer function the corpus's tables name."""
    def functions(value):
        if callable(value) and getattr(corpus, getattr(value, "__name__", ""), None) is value:
            yield value
        elif isinstance(value, dict | list | tuple):
            for item in value.values() if isinstance(value, dict) else value:
                yield from functions(item)

    pairs = [(name, answer) for table in CORPORA for name, value in getattr(corpus, table, {}).items()
             if name in REGISTRY for answer in functions(value)]
    return list(dict.fromkeys(pairs))


@pytest.fixture(scope="module")
def graded_copy(tmp_path_factory) -> Path:
    target = tmp_path_factory.mktemp("graded")
    graded_package.write(target)
    return target


@pytest.mark.parametrize("lesson", LESSONS)
def test_every_wrong_answer_gets_the_feedback_it_gets_in_the_kernel(lesson):
    corpus = importlib.import_module(f"tests.{lesson}.wrong_answers")
    pairs = _wrong_answers(corpus)
    assert len(pairs) >= 2, f"{lesson}: only {len(pairs)} wrong answers found in its corpus (each exercise has one)"
    # the corpus builds some answers from the reference solutions: the full package, for this comparison only
    process = AnswerProcess([inspect.getsource(corpus)], "", [answer.__name__ for _, answer in pairs], package=REPO)
    try:
        for name, answer in pairs:
            here = _verdict(name, answer)
            apart = _verdict(name, process.function(answer.__name__))
            assert apart == here, f"{lesson} {name} {answer.__name__}:\nin the kernel:\n{here}\napart:\n{apart}"
            assert here.startswith("❌"), here
    finally:
        process.close()


@pytest.mark.parametrize("lesson", ["lesson07", "lesson08"])  # models, optimisers, state dicts cross
def test_reference_solutions_pass_apart_but_cannot_be_imported_there(lesson, graded_copy):
    solutions = importlib.import_module(f"lmtie_edu.{lesson}.solutions")
    names = [name for name, check in REGISTRY.items() if check.solution.__module__ == solutions.__name__]
    source = inspect.getsource(solutions)
    process = AnswerProcess([source], "", names, package=graded_copy)
    borrowed = AnswerProcess([f"from lmtie_edu.{lesson}.solutions import {', '.join(names)}"], "", names,
                             package=graded_copy)
    try:
        for name in names:
            assert _verdict(name, process.function(name)).startswith(f"✅ {name}")
            assert "your code raised SolutionWithheld" in _verdict(name, borrowed.function(name))
    finally:
        process.close()
        borrowed.close()


ATTACKING_ANSWER = '''
import sys, types
import torch
import lmtie_edu.kit.exercises as exercises

def bag_of_tokens(W, ids):
    exercises.Verdict.__bool__ = lambda self: True
    torch.allclose = torch.equal = lambda *args, **kwargs: True
    fake = types.ModuleType("lmtie_edu.kit.autograde")
    fake.grade = lambda *args: True
    sys.modules["lmtie_edu.kit.autograde"] = fake
    return torch.zeros(ids.shape[0], W.shape[1], dtype=W.dtype)
'''


REACHING_ANSWER = '''
import sys
import torch

class Agreeable(torch.Tensor):  # every comparison a check makes says "equal"
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        if getattr(func, "__name__", "") in ("allclose", "equal", "isclose", "eq", "__eq__"):
            return True
        return super().__torch_function__(func, types, args, kwargs)

def bag_of_tokens(W, ids):
    frame = sys._getframe(1)
    while frame is not None:  # up the stack to the checker, for the reference it compares with
        for value in frame.f_locals.values():
            if isinstance(value, torch.Tensor) and value.shape == (ids.shape[0], W.shape[1]):
                return value.clone()
        frame = frame.f_back
    try:  # the exercise's own solution, replaced
        import lmtie_edu.kit.exercises as kit
        kit.REGISTRY["bag_of_tokens"].solution = lambda W, ids: torch.zeros(ids.shape[0], W.shape[1])
    except Exception:
        pass
    return torch.zeros(ids.shape[0], W.shape[1]).as_subclass(Agreeable)
'''


def test_an_answer_that_reaches_for_the_checker_gets_nothing_from_it(graded_copy):
    """In a kernel, reading the checker's frame makes this wrong answer pass; apart there is no checker to read,
    the registry it patches is its own, and its always-equal tensor arrives as plain numbers."""
    written = {}
    exec(REACHING_ANSWER, written)  # noqa: S102 — the student's cell, in a kernel
    assert _verdict("bag_of_tokens", written["bag_of_tokens"]).startswith("✅")
    out = _verdict_apart(REACHING_ANSWER, "bag_of_tokens", graded_copy)
    assert out.startswith("❌ bag_of_tokens") and "wrong values" in out, out


def test_an_answer_that_patches_the_grading_code_patches_only_its_own_process(graded_copy):
    real = torch.allclose, torch.equal, kit_exercises.Verdict.__bool__
    out = _verdict_apart(ATTACKING_ANSWER, "bag_of_tokens", graded_copy)
    assert out.startswith("❌ bag_of_tokens") and "wrong values" in out, out
    assert (torch.allclose, torch.equal, kit_exercises.Verdict.__bool__) == real
    assert not kit_exercises.Verdict(False)


def test_a_looping_answer_is_stopped_at_its_limit_and_the_next_check_runs(graded_copy):
    cells = ["import time\n\ndef bag_of_tokens(W, ids):\n    while True:\n        try:\n            time.sleep(0.2)\n"
             "        except BaseException:\n            pass\n",
             "def sgd_step_on_lookup(W, ids, lr):\n    import os\n    os._exit(3)\n",
             "def rows_reached(ids, vocab_size, tie):\n    return object()\n"]
    process = AnswerProcess(cells, "", ["bag_of_tokens", "sgd_step_on_lookup", "rows_reached"],
                            package=graded_copy, limit=1.5)
    try:
        started = time.monotonic()
        looped = _verdict("bag_of_tokens", process.function("bag_of_tokens"))
        took = time.monotonic() - started
        ended = _verdict("sgd_step_on_lookup", process.function("sgd_step_on_lookup"))
        opaque = _verdict("rows_reached", process.function("rows_reached"))
    finally:
        process.close()
    assert "stopped — your code ran for more than 1.5 s" in looped and took < 1.5 + 5, (looped, took)
    assert "your code raised ProcessEnded: the process running your code ended (exit status 3)" in ended, ended
    assert "must return a list" in opaque and "got:      'object'" in opaque, opaque


def test_answer_cells_that_fail_or_define_nothing_are_reported(graded_copy):
    process = AnswerProcess(["raise ValueError('a broken cell')", "x = 1"], "", ["bag_of_tokens", "x"],
                            package=graded_copy)
    try:
        report = process.start()
        assert report["cells"][1]["type"] == "ValueError" and report["cells"][1]["message"] == "a broken cell"
        assert report["found"] == {"bag_of_tokens": "NoneType", "x": "int"}
        assert process.function("bag_of_tokens") is None
        assert _verdict("bag_of_tokens", process.function("bag_of_tokens")).startswith("⏳ bag_of_tokens")
    finally:
        process.close()
