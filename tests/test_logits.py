"""Unit tests of lmtie_edu.logits (lesson 02) and of the lesson 02 exercise checks."""

import math

import pytest
import torch
from torch import nn

from lmtie_edu import logits
from lmtie_edu.exercises import lesson02 as ex
from lmtie_edu.models import TinyLM
from lmtie_edu.widgets import PanelResult


@pytest.fixture
def toy():
    return logits.toy_vocabulary()


def test_toy_vocabulary_shapes_and_independent_head(toy):
    labels, emb, head = toy
    assert len(labels) == emb.shape[0] == head.shape[0] and emb.shape == head.shape == (len(labels), 2)
    assert not torch.allclose(emb, head)


def test_default_hidden_state_top_is_not_nearest(toy):
    labels, emb, _ = toy
    scores = logits.score_table(logits.hidden_from_polar(50, 1.3), emb)
    assert labels[scores["top"]] == "the" and labels[scores["nearest"]] == "cat"


def test_hidden_from_polar_values():
    h = logits.hidden_from_polar(90, 2.0)
    assert torch.allclose(h, torch.tensor([0.0, 2.0]), atol=1e-6)


@pytest.mark.parametrize("angle, length, error", [("north", 1.0, TypeError), (10, float("nan"), TypeError),
                                                  (10, -1.0, ValueError), (True, 1.0, TypeError)])
def test_hidden_from_polar_bad_input(angle, length, error):
    with pytest.raises(error):
        logits.hidden_from_polar(angle, length)


def test_score_table_matches_definitions(toy):
    _, emb, _ = toy
    h = torch.tensor([0.3, -0.7])
    s = logits.score_table(h, emb)
    assert torch.allclose(s["logits"], emb @ h)
    assert torch.allclose(s["probabilities"].sum(), torch.tensor(1.0))
    assert torch.allclose(s["distances"], torch.cdist(h[None], emb)[0])
    assert s["top"] == int((emb @ h).argmax())


def test_score_table_bad_input(toy):
    _, emb, _ = toy
    with pytest.raises(ValueError, match=r"shape \(d,\) = \(2,\)"):
        logits.score_table(torch.zeros(3), emb)
    with pytest.raises(TypeError, match="torch.Tensor"):
        logits.score_table([0.1, 0.2], emb)
    with pytest.raises(TypeError, match="floating-point"):
        logits.score_table(torch.tensor([1, 2]), emb)
    with pytest.raises(ValueError, match="2-D matrix"):
        logits.score_table(torch.zeros(2), torch.zeros(2))


def test_exact_plane_preserves_inner_products():
    g = torch.Generator().manual_seed(0)
    W, h = torch.randn(20, 9, generator=g), torch.randn(9, generator=g)
    coords, h_plane = logits.exact_plane(h, W, reference=3)
    assert torch.allclose(coords @ h_plane, W @ h, atol=1e-5)
    assert torch.allclose(coords[:, 0] * h.norm(), W @ h, atol=1e-5)
    assert abs(h_plane[1].item()) < 1e-6


def test_exact_plane_reference_parallel_to_h():
    W = torch.tensor([[2.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    coords, h_plane = logits.exact_plane(torch.tensor([1.0, 0.0, 0.0]), W, reference=0)
    assert torch.allclose(coords @ h_plane, W @ torch.tensor([1.0, 0.0, 0.0]))


def test_exact_plane_bad_input(toy):
    _, emb, _ = toy
    with pytest.raises(ValueError, match="zero vector"):
        logits.exact_plane(torch.zeros(2), emb, 0)
    with pytest.raises(ValueError, match=r"\[0, 7\]"):
        logits.exact_plane(torch.ones(2), emb, 8)


def test_top_differs_from_nearest():
    W = torch.tensor([[3.0, 0.0], [0.9, 0.9]])
    H = torch.tensor([[0.8, 0.8], [3.0, 0.1]])
    # first row: nearest is w1 but w0 has the larger inner product (2.4 > 1.44); second: w0 both ways
    assert logits.top_differs_from_nearest(H, W) == 0.5
    with pytest.raises(ValueError, match="shape"):
        logits.top_differs_from_nearest(torch.zeros(2, 3), W)


def test_self_scores_longer_vector_beats_input():
    W = torch.tensor([[1.0, 0.0], [2.0, 0.0], [0.0, 1.0]])
    out = logits.self_scores(W)
    assert out["win_rate"] == pytest.approx(2 / 3)  # token 0 loses to the longer token 1
    assert logits.self_scores(torch.eye(4) * 3)["win_rate"] == 1.0


def test_self_scores_untied_and_bad_shapes():
    assert logits.self_scores(torch.eye(3), torch.eye(3).flip(0))["win_rate"] == pytest.approx(1 / 3)
    with pytest.raises(ValueError, match="shape"):
        logits.self_scores(torch.eye(3), torch.eye(4))


def test_random_self_win_rates_grow_with_dimension():
    table = logits.random_self_win_rates(200, [2, 256], seeds=(0, 1))
    assert table[2][0] < 0.2 and table[256][0] == 1.0
    assert table[2][1] <= table[2][0] <= table[2][2]
    with pytest.raises(ValueError):
        logits.random_self_win_rates(200, [0])


def test_residual_self_win_rates_fall_with_noise():
    table = logits.residual_self_win_rates(300, 32, [0, 8], seeds=(0,))
    assert table[0][0] == 1.0 and table[8][0] < 0.2
    with pytest.raises(ValueError, match=">= 0"):
        logits.residual_self_win_rates(300, 32, [-1])


def test_scale_table_and_positions():
    (row,) = logits.scale_table([64])
    assert row["|e| * sqrt d"] == pytest.approx(8.0, rel=0.05)
    assert row["|position vector|"] == pytest.approx(math.sqrt(32), rel=1e-5)
    assert row["logit std (W std 1)"] > 5 * row["logit std (W std 1/sqrt d)"]
    with pytest.raises(TypeError, match="integer"):
        logits.scale_table([2.5])


def test_sinusoidal_position():
    p0 = logits.sinusoidal_position(0, 6)
    assert torch.allclose(p0, torch.tensor([0.0, 1.0, 0.0, 1.0, 0.0, 1.0]))
    assert logits.sinusoidal_position(17, 8).norm().item() == pytest.approx(2.0, rel=1e-5)
    with pytest.raises(ValueError, match="even"):
        logits.sinusoidal_position(1, 5)
    with pytest.raises(ValueError):
        logits.sinusoidal_position(-1, 4)


def test_repeats_last_input():
    model = TinyLM(10, 4, tie=True)
    rate = logits.repeats_last_input(model, torch.tensor([[1, 2], [3, 3]]))
    assert 0.0 <= rate <= 1.0
    with pytest.raises(TypeError, match="TinyLM"):
        logits.repeats_last_input(nn.Linear(2, 2), torch.tensor([[1, 2]]))
    with pytest.raises(ValueError, match=r"\[0, 9\]"):
        logits.repeats_last_input(model, torch.tensor([[1, 12]]))


def test_trained_pair_is_tied_and_untied():
    pair = logits.trained_pair()
    assert pair["tied"].tied and not pair["untied"].tied
    corpus = pair["corpus"]
    # training helped: both beat the loss of a uniform guess
    from lmtie_edu.training import evaluate
    assert evaluate(pair["tied"], corpus.inputs, corpus.targets) < math.log(corpus.vocab_size) - 1


def test_projection_figure_scores(toy):
    labels, emb, _ = toy
    h = torch.tensor([0.5, 0.5])
    fig, scores = logits.projection_figure(h, emb, labels, k=3)
    assert torch.allclose(scores["logits"], emb @ h)
    assert len(fig.axes) == 2


def test_logits_figure_tie_switches_head():
    tied, untied = logits.logits_figure(50, 1.3, True), logits.logits_figure(50, 1.3, False)
    assert isinstance(tied, PanelResult)
    assert tied.numbers["top token (largest h·w)"] == "the"
    assert untied.numbers["top token (largest h·w)"] != "the"
    with pytest.raises(TypeError):
        logits.logits_figure(50, 1.3, "yes")


def test_panel_toggle_and_bad_values():
    panel = logits.logits_panel()
    first = panel.result.numbers["top token (largest h·w)"]
    panel.tie.value = False
    assert panel.result.numbers["top token (largest h·w)"] != first
    panel.set(angle=230, length=2.0)
    assert panel.result.numbers["h"] == "(-1.29, -1.53)"
    with pytest.raises(ValueError, match=r"\[0, 355\]"):
        panel.set(angle=400)
    with pytest.raises(TypeError):
        panel.set(length="long")
    with pytest.raises(ValueError, match="no control"):
        panel.set(temperature=2)


def test_benchmarks_declared():
    names = [b.name for b in logits.benchmarks()]
    assert names and names[0].startswith("02")


# -- exercise checks reject wrong answers ----------------------------------------------------------

def test_distance_bias_rejects_wrong_sign(capsys):
    assert not ex.distance_bias(lambda W: 0.5 * (W ** 2).sum(dim=1))
    assert capsys.readouterr().out.startswith("❌")


def test_distance_bias_accepts_constant_shift(capsys):
    assert ex.distance_bias(lambda W: -0.5 * (W ** 2).sum(dim=1) + 3.0)


def test_tokens_beating_self_rejects_including_ties(capsys):
    def wrong(W, i):  # >= counts token i itself
        return sorted(int(j) for j in torch.nonzero(W @ W[i] >= (W @ W[i])[i]).flatten())

    assert not ex.tokens_beating_self(wrong)
    assert "❌" in capsys.readouterr().out


def test_tied_head_with_bias_rejects_a_copy(capsys):
    def copied(embedding):
        V, d = embedding.weight.shape
        head = nn.Linear(d, V)
        head.weight = nn.Parameter(embedding.weight.detach().clone())
        nn.init.zeros_(head.bias)
        return head

    assert not ex.tied_head_with_bias(copied)
    assert "not a copy" in capsys.readouterr().out
