"""Lesson 06: the summaries (mean ± spread, perplexity) and the predict-then-run questions' answers."""

import json
import math
import re
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F

from lmtie_edu.lesson06 import questions as predict
from lmtie_edu.lesson06.summaries import mean_and_spread, perplexity
from lmtie_edu.shared.models import TinyLM, count_parameters
from tests.course.notebook_code import question_text
from tools import bench

INF, NAN = math.inf, math.nan


# -- mean_and_spread ------------------------------------------------------------------------------------------
def test_mean_and_spread():
    assert mean_and_spread([1.0, 2.0, 3.0]) == (2.0, 1.0)
    assert mean_and_spread([5.0]) == (5.0, 0.0)
    assert mean_and_spread(x for x in (1, 3)) == (2.0, pytest.approx(math.sqrt(2)))
    assert mean_and_spread(torch.tensor([1.0, 2.0, 3.0])) == (2.0, 1.0)


@pytest.mark.parametrize("values, mean_is, spread_is", [
    ([INF, 1.0], INF, "nan"),            # a diverged run: the mean is infinite, not an AttributeError
    ([1.0, -INF], -INF, "nan"),
    ([INF, -INF], "nan", "nan"),
    ([NAN, 1.0], "nan", "nan"),
    ([INF, NAN], "nan", "nan"),
])
def test_mean_and_spread_keeps_diverged_runs_visible(values, mean_is, spread_is):
    mean, spread = mean_and_spread(values)
    assert (math.isnan(mean) if mean_is == "nan" else mean == mean_is)
    assert math.isnan(spread)


@pytest.mark.parametrize("values, error, message", [
    ([], ValueError, "at least one value"),
    (torch.tensor([]), ValueError, "at least one value"),
    ("1.0 2.0", TypeError, "values must be numbers"),
    (b"12", TypeError, "values must be numbers"),
    (None, TypeError, "iterable of numbers"),
    (5, TypeError, "iterable of numbers"),
    ([1.0, "2.0"], TypeError, "every value must be a real number"),
    ([True, 1.0], TypeError, "every value must be a real number"),
    ([1.0, None], TypeError, "every value must be a real number"),
    (torch.ones(2, 3), ValueError, "1-D tensor"),
    (torch.empty(3, device="meta"), ValueError, "meta tensor"),
])
def test_mean_and_spread_bad_input(values, error, message):
    with pytest.raises(error, match=message):
        mean_and_spread(values)


# -- perplexity ------------------------------------------------------------------------------------------------
def test_perplexity():
    assert perplexity(0.0) == 1.0
    assert math.isclose(perplexity(math.log(50)), 50.0)
    assert perplexity(2) == pytest.approx(math.exp(2))
    assert perplexity(torch.tensor(math.log(7.0))) == pytest.approx(7.0)
    assert perplexity(INF) == INF and perplexity(1000.0) == INF     # overflow is inf, not OverflowError


@pytest.mark.parametrize("value, error, message", [
    (-0.1, ValueError, ">= 0 nats"),
    (NAN, ValueError, ">= 0 nats"),
    (-INF, ValueError, ">= 0 nats"),
    ("2.3", TypeError, "must be a number"),
    (True, TypeError, "must be a number"),
    (None, TypeError, "must be a number"),
    ([1.0], TypeError, "must be a number"),
    (torch.ones(2), TypeError, "must be a number"),
    (torch.empty((), device="meta"), TypeError, "must be a number"),
])
def test_perplexity_bad_input(value, error, message):
    with pytest.raises(error, match=message):
        perplexity(value)


# -- the panel benchmark ---------------------------------------------------------------------------------------
def test_lesson06_toggle_benchmark_runs():
    (benchmark,) = [b for b in bench.registry() if b.name.startswith("06 ")]
    assert benchmark.budget_seconds == 0.150
    benchmark.setup()
    benchmark.run()


# -- predict, then run: each question's answer is what the lesson's evidence cell shows -----------------------
NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "06_does_tying_help.ipynb"


def _evidence(question) -> str:
    """The stored output of the compared cell right after the cell that asks ``question``."""
    cells = json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"]
    (asked,) = [i for i, c in enumerate(cells) if f"predict.{question.key}.ask()" in "".join(c["source"])]
    evidence = cells[asked + 1]
    return "".join("".join(o.get("text", "")) for o in evidence["outputs"] if o.get("output_type") == "stream")


def _signs(line: str) -> set[str]:
    """The signs of the per-seed differences printed on one line, e.g. {'+', '-'}."""
    return {number[0] for number in re.findall(r"[+-]\d+\.\d", line)}


def test_parameters_removed_is_v_times_d_of_the_lessons_model():
    config = re.search(r"vocab_size=(\d+), d_model=(\d+), context=(\d+), hidden=(\d+)",
                       "".join("".join(o.get("text", "")) for c in json.loads(NOTEBOOK.read_text())["cells"]
                               for o in c.get("outputs", [])))
    vocab_size, d_model, context, hidden = map(int, config.groups())
    untied = TinyLM(vocab_size, d_model, context=context, hidden=hidden, tie=False)
    tied = TinyLM(vocab_size, d_model, context=context, hidden=hidden, tie=True)
    removed = count_parameters(untied) - count_parameters(tied)
    assert removed == predict.parameters_removed.right == vocab_size * d_model
    assert f"= {removed}" in _evidence(predict.parameters_removed)
    question = question_text(NOTEBOOK.name, "parameters_removed")
    assert str(vocab_size) in question and str(d_model) in question


def test_end_of_budget_75_matches_the_stored_paired_differences():
    cells = json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"]
    text = "".join("".join(o.get("text", "")) for c in cells for o in c.get("outputs", []))
    (line,) = [row for row in text.splitlines() if row.strip().startswith("75 articles") and "report:" in row]
    signs = _signs(line.split("report:")[1].split("mean")[0])   # untied − tied per seed: + means tied lower
    shown = {frozenset("+"): "the tied model", frozenset("-"): "the untied model"}.get(
        frozenset(signs), "no difference beyond seed noise")
    assert shown == predict.end_of_budget_75.right
    table = [row.split() for row in _evidence(predict.end_of_budget_75).splitlines() if row.split()[:1] == ["75"]]
    report = {row[3]: float(row[-3]) for row in table}   # articles tokens passes model params train ± sd report ± sd
    assert (report["tied"] < report["untied"]) == (shown == "the tied model")


def test_early_stopped_75_matches_the_stored_per_seed_differences():
    (line,) = [row for row in _evidence(predict.early_stopped_75).splitlines()
               if row.startswith("early-stopped,") and " 75 articles" in row]
    signs = _signs(line.split("per seed")[1])
    shown = {frozenset("+"): "it stays: the tied model is lower in every seed",
             frozenset("-"): "it reverses: the untied model is lower in every seed"}.get(
        frozenset(signs), "it is gone: the difference changes sign between seeds")
    assert shown == predict.early_stopped_75.right


def test_every_output_row_gets_a_gradient_in_every_step():
    """The mechanism, on a tiny untied model: one batch reaches every output row but only its own input rows."""
    torch.manual_seed(0)
    model = TinyLM(50, 8, context=3, tie=False)
    ids = torch.tensor([[1, 2, 3], [3, 4, 5]])
    F.cross_entropy(model(ids), torch.tensor([6, 7])).backward()
    output_rows = (model.head.weight.grad != 0).any(dim=1)
    input_rows = (model.embedding.weight.grad != 0).any(dim=1)
    assert output_rows.all() and input_rows.nonzero().flatten().tolist() == [1, 2, 3, 4, 5]
    assert predict.output_rows_reached.right == "in every step"
    stored = [row.split() for row in _evidence(predict.output_rows_reached).splitlines() if row.endswith("%")]
    assert stored and all(row[-1] == "100.0%" for row in stored)
    assert any(row[0] == "9–19" and float(row[-2].rstrip("%")) < 50 for row in stored)  # input rows: rarely
