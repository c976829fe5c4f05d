"""Lesson 08 §7: the stored runs are what the package's code makes, the measurements the lesson defines in its
cells are the package's, and one stored run is re-derived here (CI re-runs it on every push)."""

import json
import math

import pytest
import torch

from lmtie_edu.lesson08 import figures, variants
from lmtie_edu.lesson08.variants import echo_share, mean_cosine
from tests.course.notebook_code import assert_cell_matches
from tools import lesson08_runs

NOTEBOOK = "08_tied_transformer.ipynb"


@pytest.mark.parametrize("function", [echo_share, mean_cosine])
def test_the_cells_are_the_package_copy(function):
    assert_cell_matches(NOTEBOOK, function)


def test_mean_cosine_is_zero_for_orthogonal_rows_and_one_for_parallel_rows():
    assert abs(mean_cosine(torch.eye(4, dtype=torch.float64)).item()) < 1e-12
    parallel = torch.tensor([[1.0, 2.0], [2.0, 4.0], [0.5, 1.0]], dtype=torch.float64)
    assert mean_cosine(parallel).item() == pytest.approx(1.0)
    rows = torch.randn(6, 3, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    unit = rows / rows.norm(dim=1, keepdim=True)
    pairs = [(unit[i] @ unit[j]).item() for i in range(6) for j in range(6) if i != j]
    assert mean_cosine(rows).item() == pytest.approx(sum(pairs) / len(pairs))


def test_echo_share_counts_known_words_ranked_first():
    inputs = torch.tensor([[0, 2, 3, 4]])                 # id 0 is <unk>: left out
    logits = torch.full((1, 4, 5), -1.0)
    for position, top in enumerate([0, 2, 1, 4]):         # positions 1 and 3 echo their input
        logits[0, position, top] = 1.0
    assert echo_share(logits, inputs) == pytest.approx(2 / 3)


def test_the_stored_runs_were_made_by_this_code():
    stored = variants.stored_runs()
    as_stored = json.loads(json.dumps(variants.description()))        # tuples become lists, as in the file
    assert {key: stored[key] for key in as_stored} == as_stored
    made = {(run["variant"], run["seed"]) for run in stored["runs"]}
    assert made == {(v.name, seed) for v in variants.VARIANTS for seed in variants.SEEDS}


def test_one_stored_run_is_re_derived():
    # the run behind §7's strongest claim (a larger initial scale of the shared matrix narrows the gap)
    dtype, threads = torch.get_default_dtype(), torch.get_num_threads()
    assert lesson08_runs.check("tied, std d^-½ alone", 0) == []
    assert (torch.get_default_dtype(), torch.get_num_threads()) == (dtype, threads)   # other tests share the process


def test_a_check_of_a_run_that_was_never_stored_names_the_stored_ones():
    with pytest.raises(SystemExit, match="no stored run of variant 'tide' with seed 7; the variants are .*'tied'"):
        lesson08_runs.check("tide", 7)


def test_the_table_compares_each_variant_with_the_untied_model_of_its_budget():
    rows = {row["variant"]: row for row in variants.variant_table(variants.stored_runs())}
    for name in ("tied", "tied, 4× the steps"):
        reference = "untied" if name == "tied" else "untied, 4× the steps"
        expected = [a["test"] - b["test"] for a, b in zip(rows[name]["runs"], rows[reference]["runs"], strict=True)]
        assert rows[name]["gaps"] == pytest.approx(expected)
    assert rows["untied"]["gaps"] == [0.0, 0.0, 0.0]
    assert rows["tied"]["gap"] > 5 > rows["tied, 4× the steps"]["gap"] > 0    # what §7's prose says, from the data


def test_an_unknown_variant_is_named_with_the_known_ones():
    with pytest.raises(ValueError, match="no variant named 'tide'.*'tied'"):
        variants.variant("tide")


def lesson_runs():
    """The stored runs of the lesson's own three models, shaped like the lesson's run dicts."""
    names = {"untied": False, "tied": True, "tied, deeper": True}
    return [{**run, "tie": names[run["variant"]]} for run in variants.stored_runs()["runs"] if run["variant"] in names]


def test_the_diagnosis_figure_draws_the_lesson_runs():
    figure = figures.diagnosis_figure(lesson_runs(), 75.7)
    left, middle, right = figure.axes
    assert [line.get_ydata()[0] for line in left.get_lines()][-1] == 75.7          # the unigram line
    assert len(right.get_lines()) == 4       # lookup rows of three models, and the untied head's rows
    assert max(max(line.get_ydata()) for line in middle.get_lines()) < 1          # per cent: no echo


@pytest.mark.parametrize("unigram", [0.5, math.nan, "75"])
def test_the_diagnosis_figure_refuses_a_bad_unigram_perplexity(unigram):
    with pytest.raises(ValueError, match="unigram must be a perplexity above 1"):
        figures.diagnosis_figure(lesson_runs(), unigram)


def test_the_diagnosis_figure_names_the_keys_a_run_lacks():
    runs = [{key: value for key, value in run.items() if key != "echo_curve"} for run in lesson_runs()]
    with pytest.raises(ValueError, match="echo_curve"):
        figures.diagnosis_figure(runs, 75.7)
