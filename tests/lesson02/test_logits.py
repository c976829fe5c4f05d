"""Unit tests of lmtie_edu.lesson02.logits and figures (lesson 02) and of its predict-then-run questions."""

import pytest
import torch

from lmtie_edu.kit.panels import PanelResult
from lmtie_edu.lesson02 import figures, logits
from lmtie_edu.lesson02 import questions as predict


@pytest.fixture
def toy():
    return logits.toy_vocabulary()


def test_toy_vocabulary_shapes_and_independent_head(toy):
    labels, emb, head = toy
    assert len(labels) == emb.shape[0] == head.shape[0] and emb.shape == head.shape == (len(labels), 2)
    assert not torch.allclose(emb, head)


def test_default_hidden_state_top_is_not_nearest(toy):
    labels, emb, _ = toy
    scores = logits.score_table(logits.hidden_from_polar(60, 1.3), emb)
    assert labels[scores["top"]] == "the" and labels[scores["nearest"]] == "cat"


def test_hidden_from_polar_values():
    h = logits.hidden_from_polar(90, 2.0)
    assert torch.allclose(h, torch.tensor([0.0, 2.0]), atol=1e-6)


@pytest.mark.parametrize("angle, length, error", [("north", 1.0, TypeError), (10, float("nan"), ValueError),
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


@pytest.mark.parametrize("h, W, error, message", [
    (torch.zeros(2), torch.zeros(0, 2), ValueError, "at least one row"),
    (torch.zeros(2), torch.tensor([[float("nan"), 1.0]]), ValueError, "NaN|inf"),
    (torch.zeros(2), torch.tensor([[float("inf"), 1.0]]), ValueError, "NaN|inf"),
    (torch.tensor([float("nan"), 0.0]), torch.eye(2), ValueError, "finite"),
    (torch.zeros(2), torch.empty(3, 2, device="meta"), ValueError, "meta tensor"),
    (torch.zeros(2), [[1.0, 2.0]], TypeError, "torch.Tensor"),
    (torch.zeros(2), torch.ones(2, 2, dtype=torch.long), TypeError, "floating-point"),
    (torch.zeros(1, 2), torch.eye(2), ValueError, r"shape \(d,\)"),
    ("h", torch.eye(2), TypeError, "torch.Tensor"),
])
def test_score_table_more_bad_input(h, W, error, message):
    with pytest.raises(error, match=message):
        logits.score_table(h, W)


def test_score_table_float64_hidden_with_float32_head(toy):
    _, emb, _ = toy
    h = torch.tensor([0.3, -0.7], dtype=torch.float64)
    s = logits.score_table(h, emb)
    assert s["logits"].dtype == torch.float32
    assert torch.allclose(s["logits"], emb @ h.float())


def test_score_table_cosines(toy):
    _, emb, _ = toy
    h = torch.tensor([0.3, -0.7])
    s = logits.score_table(h, emb)
    assert torch.allclose(s["cosines"], torch.nn.functional.cosine_similarity(emb, h[None], dim=1), atol=1e-6)
    assert torch.isfinite(logits.score_table(torch.zeros(2), emb)["cosines"]).all()  # h = 0: no division by 0


def test_top_beats_nearest_only_by_being_longer():
    """Lesson 02's claim: whenever the top token is not the nearest vector, it is the longer one."""
    g = torch.Generator().manual_seed(0)
    W = torch.randn(50, 8, generator=g) * torch.rand(50, 1, generator=g) * 2
    for _ in range(200):
        s = logits.score_table(torch.randn(8, generator=g), W)
        if s["top"] != s["nearest"]:
            assert s["norms"][s["top"]] > s["norms"][s["nearest"]]


def test_norm_cosine_figure(toy):
    g = torch.Generator().manual_seed(1)
    W, h = torch.randn(30, 5, generator=g), torch.randn(5, generator=g)
    names = [f"t{i}" for i in range(30)]
    fig, scores = figures.norm_cosine_figure(h, W, names, k=4)
    assert torch.allclose(scores["logits"], W @ h)
    assert len(fig.axes) == 2
    assert names[scores["top"]] in fig.axes[0].get_title()


@pytest.mark.parametrize("labels, k, error, message", [
    (["a", "b"], 3, ValueError, "expected 8 labels, got 2"),
    ("the cat", 3, TypeError, "list of 8 token names"),
    (None, 3, TypeError, "list of 8 token names"),
    (list("abcdefgh"), 0, ValueError, "k must be an integer >= 1"),
    (list("abcdefgh"), 2.5, TypeError, "k must be an integer"),
])
def test_figures_bad_input(toy, labels, k, error, message):
    _, emb, _ = toy
    with pytest.raises(error, match=message):
        figures.norm_cosine_figure(torch.tensor([0.5, 0.5]), emb, labels, k=k)
    if k == 3:
        with pytest.raises(error, match=message):
            figures.geometry_figure(torch.tensor([0.5, 0.5]), emb, labels)


@pytest.mark.parametrize("h, W, error", [([0.5, 0.5], "toy", TypeError), (torch.zeros(2), [[1.0, 0.0]], TypeError),
                                         (torch.zeros(3), "toy", ValueError), (torch.zeros(2), "toy", ValueError)])
def test_norm_cosine_figure_bad_tensors(toy, h, W, error):
    labels, emb, _ = toy
    with pytest.raises(error, match="h must|W must"):
        figures.norm_cosine_figure(h, emb if isinstance(W, str) else W, labels)


def test_norm_cosine_figure_accepts_tensors_that_require_grad(toy):
    labels, emb, _ = toy
    fig, scores = figures.norm_cosine_figure(torch.tensor([0.5, 0.5], requires_grad=True),
                                             emb.clone().requires_grad_(), labels)
    assert scores["top"] == int((emb @ torch.tensor([0.5, 0.5])).argmax())


def test_geometry_figure_scores(toy):
    labels, emb, _ = toy
    fig, scores = figures.geometry_figure(torch.tensor([0.5, 0.5]), emb, labels)
    assert torch.allclose(scores["logits"], emb @ torch.tensor([0.5, 0.5]))
    assert len(fig.axes) == 3


def test_logits_figure_tie_switches_head():
    tied, untied = figures.logits_figure(60, 1.3, True), figures.logits_figure(60, 1.3, False)
    assert isinstance(tied, PanelResult)
    assert tied.numbers["top token (largest h·w)"] == "the"
    assert untied.numbers["top token (largest h·w)"] != "the"
    with pytest.raises(TypeError):
        figures.logits_figure(60, 1.3, "yes")


def test_panel_toggle_and_bad_values():
    panel = figures.logits_panel()
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


# -- the predict-then-run questions agree with what the lesson shows --------------------------------------------


def test_prediction_top_token_toy(toy):
    labels, W_emb, _ = toy
    s = logits.score_table(logits.hidden_from_polar(60, 1.3), W_emb)
    assert labels[s["nearest"]] == "cat"
    assert labels[s["top"]] == predict.top_token_toy.right


def test_prediction_longer_hidden_state(toy):
    _, W_emb, _ = toy
    short, long = (logits.score_table(logits.hidden_from_polar(60, length), W_emb) for length in (1.3, 3.0))
    assert short["top"] == long["top"]
    assert long["probabilities"][long["top"]] > short["probabilities"][short["top"]]
    assert predict.longer_hidden_state.right == "the same top token, with a higher probability"


def test_prediction_self_win_high_dimension():
    rates = []
    for seed in (0, 1, 2):  # as the lesson's cell: V = 1000 rows ~ N(0, I/d), d = 768
        W = torch.randn(1000, 768, generator=torch.Generator().manual_seed(seed)) * 768 ** -0.5
        rates.append(((W @ W.T).argmax(dim=1) == torch.arange(1000)).double().mean().item())
    assert sum(rates) / 3 > 0.99
    assert predict.self_win_high_dimension.right == "nearly all"


def _gpt2(config):
    from transformers import GPT2LMHeadModel

    with torch.device("meta"):
        model = GPT2LMHeadModel(config).eval()
    model.to_empty(device="cpu").init_weights()
    return model


def test_meta_build_draws_gpt2s_own_initialisation():
    """The lesson builds GPT-2 on the meta device, then draws the weights once: same tie, same distributions."""
    from transformers import GPT2Config, GPT2LMHeadModel

    config = GPT2Config(vocab_size=3000, n_positions=64, n_embd=128, n_layer=3, n_head=4)
    torch.manual_seed(0)
    plain = GPT2LMHeadModel(config)
    cheap = _gpt2(config)
    assert cheap.lm_head.weight is cheap.transformer.wte.weight
    plain_parameters = dict(plain.named_parameters())
    assert plain_parameters.keys() == dict(cheap.named_parameters()).keys()
    for name, p in cheap.named_parameters():
        q = plain_parameters[name]
        assert p.shape == q.shape and torch.isfinite(p).all(), name
        assert abs(p.std().item() - q.std().item()) <= 0.1 * q.std().item() + 1e-6, name
        assert abs(p.mean().item() - q.mean().item()) <= 0.01, name


def test_prediction_gpt2_repeats_input():
    """The lesson's own measurement (GPT-2 small, seed 0, 2 × 64 random tokens): the input token is almost
    never the top prediction, although the direct path picks it everywhere."""
    from transformers import GPT2Config

    torch.manual_seed(0)
    gpt2 = _gpt2(GPT2Config())
    ids = torch.randint(gpt2.config.vocab_size, (2, 64))
    with torch.no_grad():
        logits_ = gpt2(ids).logits
        top_is_input = (logits_.argmax(dim=-1) == ids).sum().item()
        e_x = gpt2.transformer.wte.weight[ids]
        direct = (gpt2.lm_head(gpt2.transformer.ln_f(e_x)).argmax(dim=-1) == ids).all().item()
    assert top_is_input <= 5 and direct
    assert predict.gpt2_repeats_input.right == "almost none (a few at most)"


def test_draw_shared_matrix_is_a_diagram():
    fig = figures.draw_shared_matrix()
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert "lookup reads row i" in texts and "h · row i = z_i" in texts
    assert not fig.axes[0].axison


def test_geometry_figure_separates_h_from_cat(toy):
    """The lesson's hidden state (60°, 1.3) is nearest to 'cat' but at least 10° away from it, so the arrows part."""
    import math

    labels, emb, _ = toy
    h = logits.hidden_from_polar(60, 1.3)
    cat = emb[labels.index("cat")]
    angle = math.degrees(math.acos(float(h @ cat / (h.norm() * cat.norm()))))
    assert angle > 10
    assert labels[logits.score_table(h, emb)["nearest"]] == "cat"


def test_count_random_draws_counts_without_drawing():
    from lmtie_edu.lesson02.draws import count_random_draws

    with count_random_draws() as counter:
        layer = torch.nn.Linear(3, 4)                   # kaiming_uniform_ of 12 weights, uniform_ of 4 biases
        filled = torch.zeros(5).normal_()               # an in-place random method: counted, skipped
    assert counter.count == 12 + 4 + 5 and counter.calls == 3
    assert torch.equal(filled, torch.zeros(5)) and layer.weight.shape == (4, 3)
