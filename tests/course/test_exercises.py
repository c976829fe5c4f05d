"""Every exercise: the reference solution passes; each known wrong answer is diagnosed as its mistake; each
shortcut fails; stubs, crashes and checker bugs are reported as what they are; hints come in tiers; and the
stored lessons show the not-attempted message (no code) under each check."""

import importlib
import inspect
import json
import re
from pathlib import Path

import pytest

from lmtie_edu.kit import exercises, shortcuts
from lmtie_edu.kit.exercises import HINTS_SHOWN, REGISTRY, Mismatch, exercise, expect_close, hint
from tools.course import LESSONS as COURSE
from tools.course import notebooks

REPO = Path(__file__).resolve().parents[2]
NOTEBOOKS = notebooks()
LESSONS = [f"lesson{lesson.number}" for lesson in COURSE]
CHECKS = {lesson: importlib.import_module(f"lmtie_edu.{lesson}.exercises") for lesson in LESSONS}  # as `ex`
NAMES = sorted(REGISTRY)


def _lesson(name):
    return REGISTRY[name].solution.__module__.split(".")[1]  # lmtie_edu.lessonNN.solutions


def _answers(name):
    try:
        return importlib.import_module(f"tests.{_lesson(name)}.wrong_answers")
    except ModuleNotFoundError:  # no wrong answers written yet: the mistakes test below fails and says so
        return None


WRONG = [(name, key) for name in NAMES for key in sorted(REGISTRY[name].mistakes)]
SHORTCUTS = [(name, i) for name in NAMES for i in range(len(getattr(_answers(name), "SHORTCUTS", {}).get(name, [])))]
CAUGHT = [(name, i) for name in NAMES for i in range(len(getattr(_answers(name), "CAUGHT", {}).get(name, [])))]
# ALSO: more answers that make a named mistake, as {exercise: {mistake: answer or [answers]}} (lessons 01, 03, 08,
# 09; lessons 02, 05 and 07 keep theirs in other shapes and test them in their own folders)


def _also(name) -> list[tuple[str, object]]:
    also = getattr(_answers(name), "ALSO", {}).get(name, {})
    if not isinstance(also, dict):
        return []
    return [(key, answer) for key, answers in also.items()
            for answer in (answers if isinstance(answers, list) else [answers])]


ALSO = [(name, index) for name in NAMES for index in range(len(_also(name)))]


def _run(name, answer, capsys):
    HINTS_SHOWN.pop(name, None)
    verdict = REGISTRY[name](answer)
    return verdict, capsys.readouterr().out


@pytest.mark.parametrize("name", NAMES)
def test_solution_passes_its_check(name, capsys):
    verdict, out = _run(name, REGISTRY[name].solution, capsys)
    assert verdict and out.startswith(f"✅ {name}"), out


@pytest.mark.parametrize("name", NAMES)
def test_every_exercise_has_tiered_hints_and_known_mistakes(name):
    check = REGISTRY[name]
    assert len(check.hints) >= 2, f"{name}: give at least two hint tiers before the worked answer"
    assert check.mistakes, f"{name}: name at least one mistake students make"
    declared = set(check.mistakes)
    tested = set(getattr(_answers(name), "WRONG", {}).get(name, {}))  # (None has no WRONG)
    assert declared == tested, f"{name}: mistakes declared {sorted(declared)} but wrong answers for {sorted(tested)}"


@pytest.mark.parametrize(("name", "key"), WRONG)
def test_wrong_answer_is_diagnosed(name, key, capsys):
    verdict, out = _run(name, _answers(name).WRONG[name][key], capsys)
    assert not verdict and out.startswith(f"❌ {name}"), out
    assert f"diagnosis: {REGISTRY[name].mistakes[key]}" in out, out


@pytest.mark.parametrize("name", NAMES)
def test_each_wrong_answer_is_named_only_its_own_mistake(name, capsys):
    """A diagnosis must be true of the answer that triggers it: no other mistake is named beside its own."""
    for key, answer in getattr(_answers(name), "WRONG", {}).get(name, {}).items():
        _, out = _run(name, answer, capsys)
        named = [other for other, text in REGISTRY[name].mistakes.items() if f"diagnosis: {text}" in out]
        assert named == [key], (key, out)


@pytest.mark.parametrize(("name", "index"), ALSO)
def test_another_answer_of_a_named_mistake_is_diagnosed(name, index, capsys):
    key, answer = _also(name)[index]
    verdict, out = _run(name, answer, capsys)
    assert not verdict and f"diagnosis: {REGISTRY[name].mistakes[key]}" in out, (key, out)


@pytest.mark.parametrize(("name", "index"), SHORTCUTS)
def test_shortcut_fails(name, index, capsys):
    verdict, out = _run(name, _answers(name).SHORTCUTS[name][index], capsys)
    assert not verdict and out.startswith(f"❌ {name}"), out


@pytest.mark.parametrize(("name", "index"), CAUGHT)
def test_plausible_wrong_answer_is_caught(name, index, capsys):
    """Wrong answers without a named mistake of their own: each must fail, and say where it differs."""
    verdict, out = _run(name, _answers(name).CAUGHT[name][index], capsys)
    assert not verdict and out.startswith(f"❌ {name}"), out
    said = [line for line in out.splitlines()[1:] if line.lstrip().startswith(("expected:", "where:", "diagnosis:"))]
    assert said or "your code raised" in out, f"{name}: nothing says what differs:\n{out}"


@pytest.mark.parametrize("name", NAMES)
def test_stub_is_not_attempted(name, capsys):
    def stub(*args, **kwargs):
        raise NotImplementedError

    verdict, out = _run(name, stub, capsys)
    assert not verdict and out.startswith(f"⏳ {name}: not attempted yet"), out
    assert f'ex.hint("{name}")' in out


@pytest.mark.parametrize("name", NAMES)
def test_crashing_answer_is_reported_not_raised(name, capsys):
    def crashes(*args, **kwargs):
        raise RuntimeError("boom")

    verdict, out = _run(name, crashes, capsys)
    assert not verdict and out.startswith(f"❌ {name}: your code raised RuntimeError: boom"), out


@pytest.mark.parametrize("name", NAMES)
def test_a_non_function_is_refused_clearly(name, capsys):
    verdict, out = _run(name, 42, capsys)
    assert not verdict and "pass your function itself" in out


def test_a_checker_bug_is_not_blamed_on_the_learner(capsys):
    def solution_of_a_buggy_check(x):
        return x

    @exercise(solution_of_a_buggy_check, hints=["one", "two"])
    def buggy(answer, solution):
        answer(1)
        return None.shape  # the checker's own bug

    try:
        verdict = buggy(lambda x: x)
    finally:
        REGISTRY.pop("solution_of_a_buggy_check")
    out = capsys.readouterr().out
    assert not verdict and out.startswith("⚠️ solution_of_a_buggy_check: the check itself failed"), out
    assert "not in your answer" in out


@pytest.mark.parametrize("name", NAMES)
def test_hints_come_in_tiers_then_the_worked_answer(name, capsys):
    """Called as the lesson tells the learner to: ``ex.hint("name")`` on the module the lesson imports as ex."""
    HINTS_SHOWN.pop(name, None)
    check, hint = REGISTRY[name], CHECKS[_lesson(name)].hint
    for tier, text in enumerate(check.hints, start=1):
        hint(name)
        assert capsys.readouterr().out.strip() == f"💡 {name}, hint {tier} of {len(check.hints) + 1}: {text}"
    source = inspect.getsource(check.solution)
    for _ in range(2):  # the worked answer, then again on request
        hint(name)
        assert source in capsys.readouterr().out
    for text in check.hints:
        assert source.strip() not in text
    HINTS_SHOWN.pop(name, None)


@pytest.mark.parametrize("lesson", LESSONS)
def test_every_lesson_offers_the_hint_its_check_lines_advertise(lesson):
    assert callable(getattr(CHECKS[lesson], "hint", None)), f"lmtie_edu.{lesson}.exercises has no hint()"


def test_hint_refuses_unknown_names():
    with pytest.raises(ValueError, match="no exercise is named 'nope'"):
        hint("nope")
    with pytest.raises(TypeError, match="as a string"):
        hint(3)


def _check_cells(nb):
    for cell in nb["cells"]:
        text = "".join("".join(o.get("text", "")) for o in cell.get("outputs", []) if o.get("output_type") == "stream")
        if cell["cell_type"] == "code" and re.match(r"[⏳❌✅] \w+:", text):
            yield cell, text


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_exercises_have_checks(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    stubs = ["".join(c["source"]) for c in nb["cells"] if "exercise" in c.get("metadata", {}).get("tags", [])]
    assert 2 <= len(stubs) <= 4, f"{path.name}: expected 2–4 exercises, found {len(stubs)}"
    for source in stubs:
        name = re.search(r"^def (\w+)\(", source, re.MULTILINE).group(1)
        assert name in REGISTRY, f"{path.name}: exercise {name!r} has no checker"
        assert REGISTRY[name].solution.__module__ == f"lmtie_edu.lesson{path.name[:2]}.solutions"
        assert callable(getattr(CHECKS[f"lesson{path.name[:2]}"], name, None)), f"{path.name}: ex.{name} is missing"
        assert "NotImplementedError" in source, f"{path.name}: the stub of {name!r} must raise NotImplementedError"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_stored_checks_show_the_not_attempted_message(path, capsys):
    """What a learner sees under each check before trying: the ⏳ line and how to get a hint — no code."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    checks = list(_check_cells(nb))
    assert checks, f"{path.name}: no check cell has a stored verdict"

    def stub(*args, **kwargs):
        raise NotImplementedError

    for _cell, stored in checks:
        name = re.match(r"[⏳❌✅] (\w+):", stored).group(1)
        _, fresh = _run(name, stub, capsys)
        assert stored == fresh, f"{path.name}: the stored output of the {name} check is stale:\n{stored}"


def test_expect_close_reports_shape_values_and_named_mistakes():
    with pytest.raises(Mismatch, match="wrong shape"):
        expect_close([1.0, 2.0], [1.0, 2.0, 3.0], "x")
    with pytest.raises(Mismatch, match="wrong values"):
        expect_close([1.0, 2.0], [1.0, 2.5], "x")
    with pytest.raises(Mismatch) as caught:
        expect_close([2.0, 1.0], [1.0, 2.0], "x", wrong={"reversed": [2.0, 1.0]})
    assert caught.value.mistake == "reversed"
    expect_close([1.0, 2.0], [1.0, 2.0], "x")


def test_shortcut_guards_refuse_the_forbidden_tool_and_allow_the_rest():
    import torch
    import torch.nn.functional as F

    W = exercises.no_indexing(torch.arange(6.0).reshape(3, 2))
    ids = torch.tensor([2, 0])
    assert torch.equal(F.one_hot(ids, 3).float() @ W, torch.tensor([[4.0, 5.0], [0.0, 1.0]]))
    with pytest.raises(exercises.Shortcut, match="indexing"):
        W.clone()[ids]  # what is computed from W refuses indexing too
    assert type(shortcuts.plain([W.t() @ torch.ones(3)])[0]) is torch.Tensor
    for lookup in (lambda: W[ids], lambda: F.embedding(ids, W), lambda: W.index_select(0, ids),
                   lambda: torch.gather(W, 0, ids[:, None].expand(2, 2))):
        with pytest.raises(exercises.Shortcut, match="indexing"):
            lookup()
    x = torch.ones(2, requires_grad=True)
    with exercises.forbid_autograd():
        with pytest.raises(exercises.Shortcut, match="autograd"):
            (x * 2).sum().backward()
        with pytest.raises(exercises.Shortcut, match="autograd"):
            torch.autograd.grad((x * 2).sum(), x)
        torch.optim.SGD([x], lr=0.1)  # building an optimiser inside still works
    (x * 2).sum().backward()  # restored afterwards
    assert torch.equal(x.grad, torch.full((2,), 2.0))
    with pytest.raises(TypeError, match="expects a torch.Tensor"):
        exercises.no_indexing([1, 2])
