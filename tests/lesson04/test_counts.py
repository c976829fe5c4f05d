"""lmtie_edu.lesson04.counts and figures: the GPT-style count, the figures, the panel, the exercises."""

import math

import numpy as np
import pytest
from matplotlib.figure import Figure

from lmtie_edu.lesson04 import breakdown_figures as B
from lmtie_edu.lesson04 import counts as P
from lmtie_edu.lesson04 import exercises as ex
from lmtie_edu.lesson04 import figures as F
from lmtie_edu.lesson04 import solutions as sol
from tests.course.notebook_code import assert_cell_matches


def total(*args, **kwargs):
    return sum(P.gpt_parameter_breakdown(*args, **kwargs).values())


# -- the GPT-style formula ---------------------------------------------------------------------------

def test_lesson_cell_is_the_package_code():
    assert_cell_matches("04_parameter_savings.ipynb", P.gpt_parameter_breakdown)


def test_gpt_formula_is_exact_for_published_gpt2_counts():
    # /work/shared/reference/facts.md: GPT-2 small 124,439,808 (untied 163,037,184), GPT-2 XL 1,557,611,200
    assert total(50_257, 768, 12) == 124_439_808
    assert total(50_257, 768, 12, tie=False) == 163_037_184
    assert total(50_257, 1600, 48, d_ff=6400) == 1_557_611_200


def test_gpt_formula_tie_removes_exactly_one_matrix():
    tied = P.gpt_parameter_breakdown(1000, 64, 3, tie=True)
    untied = P.gpt_parameter_breakdown(1000, 64, 3, tie=False)
    assert tied["output head"] == 0 and untied["output head"] == 64_000
    assert sum(untied.values()) - sum(tied.values()) == 64_000


def test_gpt_formula_matches_an_independent_write_up():
    # Two independent write-ups of GPT-2's count (by part; per block 12d²+13d) must agree.
    for V, d, L, positions in [(50_257, 768, 12, 1024), (31, 8, 1, 5), (128, 96, 7, 0)]:
        for tie in (True, False):
            per_block = 12 * d * d + 13 * d
            expected = V * d + positions * d + L * per_block + 2 * d + (0 if tie else V * d)
            assert total(V, d, L, n_positions=positions, tie=tie) == expected


def test_gpt_formula_d_ff_changes_only_the_mlp():
    wide = P.gpt_parameter_breakdown(100, 16, 2, d_ff=100)
    base = P.gpt_parameter_breakdown(100, 16, 2)
    assert {k for k in base if base[k] != wide[k]} == {"MLP"}
    assert wide["MLP"] - base["MLP"] == 2 * (2 * 16 * 36 + 36)


def test_gpt_formula_huge_sizes_are_exact_integers():
    huge = total(10**7, 10**5, 10**3)  # arithmetic only: nothing is allocated
    V, d, L = 10**7, 10**5, 10**3
    assert isinstance(huge, int) and huge == V * d + 1024 * d + L * (12 * d * d + 13 * d) + 2 * d


FORMULA_PROBES = [
    ({"vocab_size": 0}, ValueError, "vocab_size must be an integer >= 1; got 0"),
    ({"vocab_size": -50_257}, ValueError, "vocab_size must be an integer >= 1; got -50257"),
    ({"vocab_size": "50257"}, TypeError, "vocab_size must be an integer"),
    ({"vocab_size": np.int64(7)}, None, None),
    ({"d_model": -768}, ValueError, "d_model must be an integer >= 1; got -768"),
    ({"d_model": 768.0}, TypeError, r"use 768 instead of 768.0"),
    ({"d_model": True}, TypeError, "d_model must be an integer >= 1; got True"),
    ({"d_model": math.nan}, TypeError, "d_model must be an integer"),
    ({"n_layers": 0}, ValueError, "n_layers must be an integer >= 1; got 0"),
    ({"n_layers": 2.5}, TypeError, "n_layers must be an integer"),
    ({"d_ff": -4}, ValueError, "d_ff must be an integer >= 1"),
    ({"d_ff": 3072.5}, TypeError, "d_ff must be an integer"),
    ({"n_positions": -1}, ValueError, "n_positions must be an integer >= 0"),
    ({"n_positions": 0}, None, None),
    ({"tie": "yes"}, TypeError, "tie must be True or False; got 'yes'"),
    ({"tie": 1}, TypeError, "tie must be True or False; got 1"),
    ({"tie": None}, TypeError, "tie must be True or False; got None"),
]


@pytest.mark.parametrize("kwargs, error, message", FORMULA_PROBES)
def test_gpt_formula_bad_input(kwargs, error, message):
    args = {"vocab_size": 100, "d_model": 16, "n_layers": 2} | kwargs
    if error is None:
        assert total(**args) > 0
        return
    with pytest.raises(error, match=message):
        P.gpt_parameter_breakdown(**args)


def test_d_ff_from_ratio():
    assert P.d_ff_from_ratio(768, 4) == 3072
    assert P.d_ff_from_ratio(4096, 2.6875) == 11008
    for bad in (0, -1.0, math.nan, math.inf, True, "4"):
        with pytest.raises(ValueError, match="mlp_ratio must be a positive number"):
            P.d_ff_from_ratio(64, bad)
    with pytest.raises(ValueError, match="d_model must be an integer >= 1; got -64"):
        P.d_ff_from_ratio(-64, 4)


# -- figures -----------------------------------------------------------------------------------------

def row(name="toy", V=1000, d=64, ties=True, tied=200_000, untied=264_000):
    return dict(name=name, vocab_size=V, d_model=d, ties=ties, tied_total=tied, untied_total=untied)


ROWS = [row(), row("untied toy", 2000, 32, False, 436_000, 500_000)]
X = np.geomspace(1e6, 1e9, 20)
CURVES = {"V = 1K": (X, 1e6 / (X + 1e6)), "V = 2K": (X, 2e6 / (X + 2e6))}


def test_figures_draw_points_and_curves():
    fig = F.share_vs_size_figure(ROWS, CURVES)
    assert isinstance(fig, Figure)
    ax = fig.axes[0]
    assert len(ax.lines) == 2 and ax.get_xscale() == "log"
    assert sorted(t.get_text() for t in ax.texts) == ["toy", "untied toy"]
    memory = F.memory_figure(ROWS)
    heights = [bar.get_height() for bar in memory.axes[0].patches]
    assert heights[0] == pytest.approx(4 * 64_000 / 2**30) and heights[2] == pytest.approx(2 * 64_000 / 2**30)
    law = F.vocab_law_figure(ROWS, CURVES, anchor=(1e8, 0.02, "anchor"), dashed="V = 2K")
    assert len(law.axes[0].lines) == 2 and law.axes[0].lines[1].get_linestyle() == "--"


def test_labels_of_close_points_do_not_overlap():
    close = [row("A-long-model-name", tied=100_000, untied=164_000), row("B-long-model-name", tied=101_000,
                                                                          untied=165_000)]
    fig = F.share_vs_size_figure(close, CURVES)
    fig.canvas.draw()
    a, b = (t.get_window_extent() for t in fig.axes[0].texts)
    assert not a.overlaps(b)


FIGURE_PROBES = [
    ("rows empty", lambda: F.memory_figure([]), ValueError, "rows is empty"),
    ("rows a dict", lambda: F.memory_figure(row()), TypeError, "rows must be a list of dicts"),
    ("rows text", lambda: F.memory_figure("GPT-2"), TypeError, "rows must be a list of dicts"),
    ("row a tuple", lambda: F.memory_figure([("GPT-2", 124_439_808)]), TypeError, "each row must be a dict"),
    ("row missing key", lambda: F.memory_figure([{"name": "x"}]), TypeError, "each row must be a dict with keys"),
    ("float total", lambda: F.memory_figure([row(tied=2e5)]), ValueError, "tied_total must be an integer >= 1"),
    ("negative V", lambda: F.memory_figure([row(V=-5)]), ValueError, "vocab_size must be an integer >= 1"),
    ("ties is 1", lambda: F.memory_figure([row(ties=1)]), ValueError, "ties must be True or False"),
    ("untied < tied", lambda: F.memory_figure([row(untied=100)]), ValueError, "untied total must exceed"),
    ("curves a list", lambda: F.share_vs_size_figure(ROWS, [X]), TypeError, "curves must be a non-empty dict"),
    ("curves empty", lambda: F.share_vs_size_figure(ROWS, {}), TypeError, "curves must be a non-empty dict"),
    ("curve text", lambda: F.share_vs_size_figure(ROWS, {"c": ("a", "b")}), TypeError, "numeric arrays"),
    ("curve lengths", lambda: F.share_vs_size_figure(ROWS, {"c": (X, X[:5])}), ValueError, "same length"),
    ("curve NaN", lambda: F.share_vs_size_figure(ROWS, {"c": (X, np.full(20, np.nan))}), ValueError, "finite"),
    ("curve x <= 0", lambda: F.share_vs_size_figure(ROWS, {"c": (-X, X / 2e9)}), ValueError, "positive"),
    ("share > 1", lambda: F.share_vs_size_figure(ROWS, {"c": (X, X)}), ValueError, "strictly between 0 and 1"),
    ("anchor a number", lambda: F.vocab_law_figure(ROWS, CURVES, anchor=2.16e5), TypeError, "anchor must be a tuple"),
    ("anchor share 5", lambda: F.vocab_law_figure(ROWS, CURVES, anchor=(1e9, 5.0, "a")), ValueError, "between 0"),
]


@pytest.mark.parametrize("label, call, error, message", FIGURE_PROBES, ids=[p[0] for p in FIGURE_PROBES])
def test_figures_bad_input(label, call, error, message):
    with pytest.raises(error, match=message):
        call()


# -- the panel ----------------------------------------------------------------------------------------

def test_breakdown_figure_numbers():
    tied = B.breakdown_figure(True, 50_257, 768, 12, 4.0).numbers
    untied = B.breakdown_figure(False, 50_257, 768, 12, 4.0).numbers
    assert tied["total (this setting)"] == tied["tied total"] == 124_439_808
    assert untied["total (this setting)"] == untied["untied total"] == tied["untied total"] == 163_037_184
    assert untied["untied total"] - untied["tied total"] == untied["saved by tying (V·d)"] == 50_257 * 768
    assert tied["saved, % of tied total"] == round(100 * 50_257 * 768 / tied["tied total"], 3)


def test_panel_toggle_and_sliders_redraw():
    panel = B.breakdown_panel()
    before, image = panel.result.numbers, panel.image.value
    panel.tie.value = False
    assert panel.result.numbers["total (this setting)"] == before["untied total"]
    assert panel.image.value != image
    panel.set(d_model=1024, n_layers=24)
    assert panel.result.numbers["saved by tying (V·d)"] == 50_257 * 1024


@pytest.mark.parametrize("values, error, message", [
    ({"d_model": 100_000}, ValueError, r"d_model must be a value in \[64, 16384\]; got 100000"),
    ({"d_model": 20_000}, ValueError, r"d_model must be a value in \[64, 16384\]; got 20000"),
    ({"n_layers": 2.5}, TypeError, "n_layers must be an integer"),
    ({"vocab_size": 1.5}, TypeError, "vocab_size must be an integer"),
    ({"mlp_ratio": 20.0}, ValueError, r"mlp_ratio must be a value in \[1.0, 8.0\]"),
    ({"tie": 1}, TypeError, "tie must be True or False"),
    ({"heads": 8}, ValueError, "this panel has no control 'heads'"),
])
def test_panel_rejects_impossible_values(values, error, message):
    panel = B.breakdown_panel()
    with pytest.raises(error, match=message):
        panel.set(**values)


# -- exercises: the reference answers agree with real builds ------------------------------------------------

def test_saving_from_config_agrees_with_meta_builds():
    """The exercise's configs, built with transformers on the meta device: the solution's total and tie status."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    for name, config in ex.CONFIGS.items():
        keys = ("vocab_size", "hidden_size", "intermediate_size", "num_hidden_layers", "num_attention_heads",
                "num_key_value_heads", "tie_word_embeddings")
        with torch.device("meta"):
            model = LlamaForCausalLM(LlamaConfig(**{k: config[k] for k in keys if k in config}))
        built = sum(p.numel() for p in model.parameters())
        ties = model.get_output_embeddings().weight is model.get_input_embeddings().weight
        # a config without the flag: the build shows LlamaConfig's default (False), which the exercise states
        assert ties == config.get("tie_word_embeddings", False), name
        saved, share = sol.saving_from_config(config)
        saving = config["vocab_size"] * config["hidden_size"]
        assert saved == (saving if ties else 0), name
        if ties:
            assert math.isclose(share, saving / built, rel_tol=1e-12), name
        else:
            assert share == 0.0


def test_saving_from_config_knows_published_totals():
    # SmolLM2-135M: 134,515,008 parameters; TinyLlama-1.1B: 1,100,048,384 (their model cards)
    saved, share = sol.saving_from_config(ex.CONFIGS["SmolLM2-135M"])
    assert saved == 49_152 * 576 and round(saved / share) == 134_515_008
    assert sol.saving_from_config(ex.CONFIGS["TinyLlama-1.1B"]) == (0, 0.0)


def test_vocab_for_share_solution_is_the_smallest():
    for share, d, n in [(0.05, 4096, 6_476_271_616), (0.3, 2048, 973_146_112), (0.25, 1024, 3_072_000)]:
        V = sol.vocab_for_share(share, d, n)
        assert V * d / (n + V * d) >= share > (V - 1) * d / (n + (V - 1) * d)


def test_saving_from_config_hands_the_learner_a_deep_copy(capsys):
    """An answer that rewrites the config it is given (nested values too) cannot change the module's CONFIGS,
    so the next check, and the reference solution, still see the published configs."""
    import copy

    before = copy.deepcopy(ex.CONFIGS)

    def rewrites_its_config(config):
        config["architectures"].append("GPT2LMHeadModel")
        config["architectures"][0] = "changed"
        config["tie_word_embeddings"] = True
        return sol.saving_from_config(config)

    assert not ex.saving_from_config(rewrites_its_config)
    assert ex.CONFIGS == before
    assert ex.saving_from_config(sol.saving_from_config)
    capsys.readouterr()
