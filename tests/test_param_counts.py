"""lmtie_edu.param_counts: the saving formula, the GPT-style count, the figures, the panel, the exercises."""

import math
import subprocess
import sys

import numpy as np
import pytest
from matplotlib.figure import Figure

from lmtie_edu import param_counts as P
from lmtie_edu.exercises import lesson04 as ex
from lmtie_edu.solutions import lesson04 as sol

TIED = P.ModelCount("tied toy", 1000, 64, True, 200_000, 264_000)
UNTIED = P.ModelCount("untied toy", 2000, 32, False, 500_000, 436_000)
FORMULA_FLIP = P.ModelCount("formula flip", 10, 10, True, 1_000, 1_100, flipped_by_build=False)


# -- the saving and its share ------------------------------------------------------------------------

def test_tying_saving_is_v_times_d():
    assert P.tying_saving(50_257, 768) == 38_597_376
    assert P.tying_saving(7, 3) == 21


@pytest.mark.parametrize("bad, error", [(0, ValueError), (-5, ValueError), (768.0, TypeError), (1.5, TypeError),
                                        ("768", TypeError), (True, TypeError)])
def test_tying_saving_rejects_bad_sizes(bad, error):
    with pytest.raises(error, match="d_model must be an integer >= 1"):
        P.tying_saving(1000, bad)
    with pytest.raises(error, match="vocab_size must be an integer >= 1"):
        P.tying_saving(bad, 64)


def test_saved_share_depends_on_the_total():
    assert P.saved_share(1000, 64, 200_000, of="tied") == pytest.approx(64_000 / 200_000)
    assert P.saved_share(1000, 64, 264_000, of="untied") == pytest.approx(64_000 / 264_000)


def test_saved_share_rejects_bad_choice_and_impossible_totals():
    with pytest.raises(ValueError, match=r"of must be one of \['tied', 'untied'\]; got 'both'"):
        P.saved_share(1000, 64, 200_000, of="both")
    with pytest.raises(ValueError, match="untied total must be at least 128,000"):
        P.saved_share(1000, 64, 100_000, of="untied")
    with pytest.raises(ValueError, match="tied total must be at least 64,000"):
        P.saved_share(1000, 64, 1_000, of="tied")
    with pytest.raises(ValueError, match="total must be an integer >= 1"):
        P.saved_share(1000, 64, 0, of="tied")
    with pytest.raises(TypeError, match="total must be an integer"):
        P.saved_share(1000, 64, 2.5e5, of="tied")


def test_model_count_totals_and_shares():
    assert (TIED.total_tied, TIED.total_untied, TIED.saving) == (200_000, 264_000, 64_000)
    assert (UNTIED.total_tied, UNTIED.total_untied, UNTIED.saving) == (436_000, 500_000, 64_000)
    assert TIED.share_of_tied == pytest.approx(0.32) and TIED.share_of_untied == pytest.approx(64 / 264)
    assert UNTIED.non_vocab == 436_000 - 64_000


def test_format_table_marks_formula_flips():
    text = P.format_table([TIED, UNTIED])
    assert "tied toy" in text and "32.00%" in text and "264,000" in text and "*" not in text
    flagged = P.format_table([TIED, FORMULA_FLIP])
    assert "1,100*" in flagged and "total ± V·d" in flagged


# -- the GPT-style formula ---------------------------------------------------------------------------

def test_gpt_formula_tie_removes_exactly_one_matrix():
    tied = P.gpt_parameter_breakdown(1000, 64, 3, tie=True)
    untied = P.gpt_parameter_breakdown(1000, 64, 3, tie=False)
    assert tied["output head"] == 0 and untied["output head"] == 64_000
    assert sum(untied.values()) - sum(tied.values()) == 64_000


def test_gpt_formula_matches_the_exercise_solution():
    # Two independent write-ups of GPT-2's count (by part; per block 12d²+13d) must agree.
    for V, d, L, positions in [(50_257, 768, 12, 1024), (31, 8, 1, 5), (128, 96, 7, 0)]:
        for tie in (True, False):
            assert P.gpt_parameter_count(V, d, L, n_positions=positions, tie=tie) == \
                sol.gpt2_parameter_count(V, d, L, positions, tie)


def test_gpt_formula_d_ff_changes_only_the_mlp():
    wide = P.gpt_parameter_breakdown(100, 16, 2, d_ff=100)
    base = P.gpt_parameter_breakdown(100, 16, 2)
    assert {k for k in base if base[k] != wide[k]} == {"MLP"}
    assert wide["MLP"] - base["MLP"] == 2 * (2 * 16 * 36 + 36)


@pytest.mark.parametrize("kwargs, error, message", [
    ({"n_layers": 0}, ValueError, "n_layers must be an integer >= 1; got 0"),
    ({"n_layers": 2.5}, TypeError, "n_layers must be an integer"),
    ({"d_ff": -4}, ValueError, "d_ff must be an integer >= 1"),
    ({"n_positions": -1}, ValueError, "n_positions must be an integer >= 0"),
    ({"tie": "yes"}, TypeError, "tie must be True or False; got 'yes'"),
])
def test_gpt_formula_rejects_bad_input(kwargs, error, message):
    args = {"vocab_size": 100, "d_model": 16, "n_layers": 2} | kwargs
    with pytest.raises(error, match=message):
        P.gpt_parameter_breakdown(**args)


def test_d_ff_from_ratio():
    assert P.d_ff_from_ratio(768, 4) == 3072
    assert P.d_ff_from_ratio(4096, 2.6875) == 11008
    for bad in (0, -1.0, math.nan, True, "4"):
        with pytest.raises(ValueError, match="mlp_ratio must be a positive number"):
            P.d_ff_from_ratio(64, bad)


# -- curves and memory -------------------------------------------------------------------------------

def test_body_and_width_are_inverse():
    d = np.array([512.0, 4096.0, 12288.0])
    assert np.allclose(P.width_for_body(P.body_parameters(d)), d)
    assert P.body_parameters(12288) == pytest.approx(12 * 96 * 12288**2)  # GPT-3 175B's shape


def test_vocab_law_has_the_exponent_and_the_anchor():
    law = P.vocab_parameters_by_law([1e9, 1e10], anchor_non_vocab=1e9, anchor_vocab_params=5e7)
    assert law[0] == pytest.approx(5e7)
    assert law[1] / law[0] == pytest.approx(10**0.83)


def test_matrix_bytes():
    assert P.matrix_bytes(32_000, 8192, "fp32") == 4 * 32_000 * 8192
    assert P.matrix_bytes(32_000, 8192, "bf16") == 2 * 32_000 * 8192
    with pytest.raises(ValueError, match=r"dtype must be one of \['fp32', 'bf16'\]; got 'fp8'"):
        P.matrix_bytes(10, 10, "fp8")


def test_figures_draw_points_and_curves():
    fig = P.share_vs_size_figure([TIED, UNTIED])
    assert isinstance(fig, Figure)
    ax = fig.axes[0]
    assert len(ax.lines) == len(P.CURVE_VOCABS) and ax.get_xscale() == "log"
    assert [t.get_text() for t in ax.texts] == ["tied toy", "untied toy"]
    memory = P.memory_figure([TIED, UNTIED])
    heights = [bar.get_height() for bar in memory.axes[0].patches]
    assert heights[0] == pytest.approx(4 * 64_000 / 2**30) and heights[2] == pytest.approx(2 * 64_000 / 2**30)
    law = P.vocab_law_figure([TIED, UNTIED], anchor=UNTIED, anchor_vocab=4000)
    assert len(law.axes[0].lines) == 3


def test_figures_reject_bad_counts():
    with pytest.raises(TypeError, match="counts must be a non-empty list of ModelCount"):
        P.share_vs_size_figure([])
    with pytest.raises(TypeError, match="counts must be a non-empty list of ModelCount"):
        P.memory_figure([("GPT-2", 124_439_808)])
    with pytest.raises(TypeError, match="anchor_vocab must be an integer"):
        P.vocab_law_figure([TIED], anchor=TIED, anchor_vocab=2.16e5)


# -- the panel ----------------------------------------------------------------------------------------

def test_breakdown_figure_numbers():
    tied = P.breakdown_figure(True, 50_257, 768, 12, 4.0).numbers
    untied = P.breakdown_figure(False, 50_257, 768, 12, 4.0).numbers
    assert tied["total (this setting)"] == tied["tied total"] == P.gpt_parameter_count(50_257, 768, 12)
    assert untied["total (this setting)"] == untied["untied total"] == tied["untied total"]
    assert untied["untied total"] - untied["tied total"] == untied["saved by tying (V·d)"] == 50_257 * 768
    assert tied["saved, % of tied total"] == round(100 * 50_257 * 768 / tied["tied total"], 3)


def test_panel_toggle_and_sliders_redraw():
    panel = P.breakdown_panel()
    before, image = panel.result.numbers, panel.image.value
    panel.tie.value = False
    assert panel.result.numbers["total (this setting)"] == before["untied total"]
    assert panel.image.value != image
    panel.set(d_model=1024, n_layers=24)
    assert panel.result.numbers["saved by tying (V·d)"] == 50_257 * 1024


@pytest.mark.parametrize("values, error, message", [
    ({"d_model": 100_000}, ValueError, r"d_model must be a value in \[64, 16384\]; got 100000"),
    ({"vocab_size": 1.5}, TypeError, "vocab_size must be an integer"),
    ({"mlp_ratio": 20.0}, ValueError, r"mlp_ratio must be a value in \[1.0, 8.0\]"),
    ({"tie": 1}, TypeError, "tie must be True or False"),
    ({"heads": 8}, ValueError, "this panel has no control 'heads'"),
])
def test_panel_rejects_impossible_values(values, error, message):
    panel = P.breakdown_panel()
    with pytest.raises(error, match=message):
        panel.set(**values)


def test_import_stays_light():
    code = "import sys, lmtie_edu.param_counts, lmtie_edu.architectures; print('transformers' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


# -- exercises: wrong answers are rejected --------------------------------------------------------------

def test_saved_shares_rejects_swapped_totals(capsys):
    assert not ex.saved_shares(lambda V, d, total, ties: sol.saved_shares(V, d, total, ties)[::-1])
    assert capsys.readouterr().out.startswith("❌ saved_shares")


def test_saved_shares_rejects_ignoring_the_tie_flag(capsys):
    assert not ex.saved_shares(lambda V, d, total, ties: (V * d / total, V * d / (total + V * d)))
    assert "ties=False" in capsys.readouterr().out


def test_gpt2_count_rejects_a_biased_head(capsys):
    wrong = lambda V, d, L, P_, tie: sol.gpt2_parameter_count(V, d, L, P_, tie) + (0 if tie else V)  # noqa: E731
    assert not ex.gpt2_parameter_count(wrong)
    assert "off by +50,257" in capsys.readouterr().out


def test_vocab_for_share_rejects_the_untied_formula(capsys):
    assert not ex.vocab_for_share(lambda s, d, n: math.ceil(s * n / d))
    assert capsys.readouterr().out.startswith("❌ vocab_for_share")


def test_vocab_for_share_solution_is_the_smallest():
    for share, d, n in [(0.05, 4096, 6_476_271_616), (0.3, 2048, 973_146_112)]:
        V = sol.vocab_for_share(share, d, n)
        assert V * d / (n + V * d) >= share > (V - 1) * d / (n + (V - 1) * d)
