"""The learner's path through each lesson, read from the lesson itself and walked the way a learner walks it.

From each notebook: the module it imports as ``ex`` and the one it imports as ``predict``, every exercise its
stubs define and its check cells call, and every ``ex.hint("…")`` its outputs and prose advertise. Then, through
those very modules: the untouched stub is checked (⏳), every hint tier of every exercise is asked for, each
known wrong answer is checked (its diagnosis shown), and every predict-first question is answered wrong and
right through its widget (the explanation shown). The panels' controls are walked in the solved lessons that
nbval executes (tools/learner_path.walk_panels).
"""

import importlib
import json
import re
from pathlib import Path

import pytest

from lmtie_edu.kit.exercises import HINTS_SHOWN
from lmtie_edu.kit.predict import PREDICTIONS, Choice, Number
from tools.course import notebooks
from tools.learner_path import answer_in_widget

NOTEBOOKS = notebooks()


def _lesson(path: Path) -> dict:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    code = ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]
    text = "\n".join("".join(c["source"]) for c in cells) + "\n".join(
        "".join(o.get("text", "")) for c in cells for o in c.get("outputs", []))
    imports = {}
    for module, alias in re.findall(r"^from (lmtie_edu\.lesson\d\d) import (exercises as ex|questions as predict)",
                                    "\n".join(code), re.MULTILINE):
        imports[alias.split()[-1]] = importlib.import_module(f"{module}.{alias.split()[0]}")
    stubs = [s for c, s in zip([c for c in cells if c["cell_type"] == "code"], code, strict=True)
             if "exercise" in c["metadata"].get("tags", [])]
    return {"ex": imports.get("ex"), "predict": imports.get("predict"), "stubs": stubs,
            "checked": sorted(set(re.findall(r"^ex\.(\w+)\(\w+\)", "\n".join(code), re.MULTILINE))),
            "hinted": sorted(set(re.findall(r'ex\.hint\("(\w+)"\)', text)) - {"name"}),  # "name": the prose's example
            "asked": re.findall(r"predict\.(\w+)\.ask\(\)", "\n".join(code))}


LESSONS = {path.name: _lesson(path) for path in NOTEBOOKS}


def _answers(ex):
    lesson = ex.__name__.split(".")[1]
    return importlib.import_module(f"tests.{lesson}.wrong_answers")


def _stub(source: str):
    namespace = {}
    exec(source, namespace)  # the cell as the learner finds it
    name = re.search(r"^def (\w+)\(", source, re.MULTILINE).group(1)
    return name, namespace[name]


@pytest.mark.parametrize("notebook", LESSONS)
def test_the_lesson_imports_its_checks_and_questions(notebook):
    lesson = LESSONS[notebook]
    assert lesson["ex"] is not None and lesson["predict"] is not None, f"{notebook}: no `ex` or `predict` import"
    assert lesson["checked"], f"{notebook}: no check cell `ex.name(name)`"
    for name in lesson["checked"] + lesson["hinted"]:
        assert callable(getattr(lesson["ex"], name, None)), f"{notebook}: ex.{name} does not exist"
    assert callable(getattr(lesson["ex"], "hint", None)), f"{notebook}: the lesson advertises ex.hint, which is missing"


@pytest.mark.parametrize("notebook", LESSONS)
def test_each_untouched_stub_is_not_attempted_and_every_hint_tier_comes(notebook, capsys):
    lesson = LESSONS[notebook]
    ex = lesson["ex"]
    assert len(lesson["stubs"]) == len(lesson["checked"]), f"{notebook}: stubs and checks differ in number"
    for source in lesson["stubs"]:
        name, stub = _stub(source)
        assert name in lesson["checked"], f"{notebook}: the stub {name} has no check cell"
        HINTS_SHOWN.pop(name, None)
        getattr(ex, name)(stub)
        out = capsys.readouterr().out
        assert out.startswith(f"⏳ {name}: not attempted yet") and f'ex.hint("{name}")' in out, out
        check = getattr(ex, name)
        for tier in range(1, len(check.hints) + 2):
            ex.hint(name)
            shown = capsys.readouterr().out
            assert shown.startswith(f"💡 {name}") and (f"{tier} of" in shown), shown
        assert "def " in shown, f"{notebook}: the last tier of {name} (self-study) shows no worked answer"
        HINTS_SHOWN.pop(name, None)


def checked_wrong_answers(lesson: dict, capsys):
    """(exercise name, mistake key, its check, what the check printed) for each known wrong answer, checked
    through the lesson's ``ex`` as a learner's cell checks it."""
    ex = lesson["ex"]
    wrong = _answers(ex).WRONG
    for name in lesson["checked"]:
        check = getattr(ex, name)
        assert set(wrong.get(name, {})) == set(check.mistakes), f"{name}: a declared mistake has no wrong answer"
        for key, answer in wrong[name].items():
            assert not check(answer)
            yield name, key, check, capsys.readouterr().out


@pytest.mark.parametrize("notebook", LESSONS)
def test_each_known_wrong_answer_gets_its_diagnosis_through_ex(notebook, capsys):
    for name, key, check, out in checked_wrong_answers(LESSONS[notebook], capsys):
        assert out.startswith(f"❌ {name}") and f"diagnosis: {check.mistakes[key]}" in out, (name, key, out)


@pytest.mark.parametrize("notebook", LESSONS)
def test_every_predict_question_answered_wrong_then_right_in_its_widget(notebook):
    lesson = LESSONS[notebook]
    assert lesson["asked"], f"{notebook}: no predict-first question"
    for key in lesson["asked"]:
        question = getattr(lesson["predict"], key)
        if isinstance(question, Choice):
            wrong = next(option for option in question.options if option != question.right)
        else:
            assert isinstance(question, Number)
            wrong = question.right * 10 + 7
        said = answer_in_widget(question, wrong)
        assert said.startswith("Not quite") and question.explain in said, said
        assert PREDICTIONS[question.key] == {"guess": wrong, "correct": False}
        right = answer_in_widget(question, question.right)
        assert right.startswith("Right.") and question.explain in right, right
        if isinstance(question, Number):
            assert answer_in_widget(question, "").startswith("Choose an answer first")
