"""Lesson 04: bad inputs to the helpers, panel and checks the notebook calls (issue 24), and the cache."""

import copy

import numpy as np
import pytest
import torch
from torch import nn

from lmtie_edu.lesson04 import architectures, breakdown_figures, counts, figures, solutions
from lmtie_edu.lesson04 import exercises as ex

ROW = dict(name="GPT-2 small", vocab_size=50_257, d_model=768, ties=True, tied_total=124_439_808,
           untied_total=163_037_184)
CURVES = {"V = 32K": (np.array([1e8, 1e9]), np.array([0.2, 0.05]))}


def test_build_returns_a_fresh_model_each_call():
    model = architectures.build("GPT-2 small")
    model.lm_head.weight = nn.Parameter(torch.empty(50_257, 768, device="meta"))  # untie it
    again = architectures.build("GPT-2 small")
    assert again is not model
    assert again.lm_head.weight is again.transformer.wte.weight
    assert all(p.is_meta for p in again.parameters())


@pytest.mark.parametrize("call, error, message", [
    (lambda: architectures.build(3), ValueError, r"name must be one of \[.*GPT-2 small"),
    (lambda: architectures.build(["GPT-2 small"]), ValueError, r"name must be one of"),
    (lambda: architectures.build("GPT-2 small", tie="yes"), TypeError, r"tie must be True, False or None"),
    (lambda: architectures.make_config(None), ValueError, r"name must be one of"),
    (lambda: counts.gpt_parameter_breakdown("1000", 64, 2), TypeError, r"vocab_size must be an integer >= 1"),
    (lambda: counts.gpt_parameter_breakdown(1000, True, 2), TypeError, r"d_model must be an integer >= 1"),
    (lambda: counts.gpt_parameter_breakdown(1000, 64, -2), ValueError, r"n_layers must be an integer >= 1; got -2"),
    (lambda: counts.gpt_parameter_breakdown(1000, 64, 2, d_ff=64.0), TypeError, r"d_ff must be .*use 64"),
    (lambda: counts.gpt_parameter_breakdown(1000, 64, 2, tie=1), TypeError, r"tie must be True or False"),
    (lambda: counts.d_ff_from_ratio(768, float("nan")), ValueError, r"mlp_ratio must be a positive number"),
    (lambda: counts.d_ff_from_ratio(768, 1e308), ValueError, r"mlp_ratio must be .*at most"),
    (lambda: counts.d_ff_from_ratio(768, "4"), ValueError, r"mlp_ratio must be a positive number"),
    (lambda: figures.memory_figure([]), ValueError, r"rows is empty"),
    (lambda: figures.memory_figure(None), TypeError, r"rows must be a list of dicts"),
    (lambda: figures.memory_figure([{"name": "x"}]), TypeError, r"each row must be a dict with keys"),
    (lambda: figures.share_vs_size_figure([{**ROW, "name": 5}], CURVES), TypeError, r"name must be a str"),
    (lambda: figures.memory_figure([{**ROW, "vocab_size": 2.5}]), ValueError, r"vocab_size must be an integer"),
    (lambda: figures.memory_figure([{**ROW, "untied_total": 1}]), ValueError, r"untied total must exceed"),
    (lambda: figures.share_vs_size_figure([ROW], {}), TypeError, r"curves must be a non-empty dict"),
    (lambda: figures.share_vs_size_figure([ROW], {"a": (np.ones(2), np.ones(3))}), ValueError, r"same length"),
    (lambda: figures.share_vs_size_figure([ROW], {"a": (np.ones(3), np.ones(3) * 2)}), ValueError, r"strictly between"),
    (lambda: figures.share_vs_size_figure([ROW], {"a": (torch.ones(3, device="meta"), torch.ones(3))}),
     ValueError, r"curve 'a'.*meta tensor"),
    (lambda: figures.vocab_law_figure([ROW], CURVES, anchor=(1e9, 0.1)), TypeError, r"anchor must be a tuple"),
    (lambda: figures.vocab_law_figure([ROW], CURVES, anchor=(float("nan"), 0.1, "x")), ValueError,
     r"anchor's N_nv must be a positive number"),
    (lambda: figures.vocab_law_figure([ROW], CURVES, anchor=(1e9, 2.0, "x")), ValueError,
     r"anchor's share must be a number strictly between 0 and 1"),
])
def test_bad_input(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_numpy_numbers_are_accepted():
    parts = counts.gpt_parameter_breakdown(np.int64(1000), np.int64(64), np.int64(2))
    assert parts == counts.gpt_parameter_breakdown(1000, 64, 2)
    assert counts.d_ff_from_ratio(np.int64(768), np.float64(4.0)) == 3072
    row = {**ROW, "vocab_size": np.int64(50_257), "d_model": np.int64(768), "ties": np.bool_(True),
           "tied_total": np.int64(ROW["tied_total"]), "untied_total": np.int64(ROW["untied_total"])}
    figures.memory_figure([row])
    figures.share_vs_size_figure([row], {"a": (torch.tensor([1e8, 1e9], requires_grad=True), [0.2, 0.05])})


def test_panel_refuses_what_set_refuses():
    with pytest.raises(TypeError, match="tie"):
        breakdown_figures.breakdown_panel(tie="yes")
    panel = breakdown_figures.breakdown_panel()
    before = dict(panel.result.numbers)
    with pytest.raises(ValueError, match="mlp_ratio"):
        panel.set(mlp_ratio=-1.0)
    assert panel.result.numbers == before


def test_saving_from_config_survives_an_answer_that_mutates_its_input(capsys):
    original = copy.deepcopy(ex.CONFIGS)

    def answer(config):
        result = solutions.saving_from_config(config)
        config.clear()
        config["vocab_size"] = 1
        return result

    assert ex.saving_from_config(answer)
    assert ex.CONFIGS == original
    assert "✅" in capsys.readouterr().out
