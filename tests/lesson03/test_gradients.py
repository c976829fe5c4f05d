"""Unit tests of lesson 03's modules (gradients, gradient_figures, toy_corpus) and of its exercise checks."""

import pytest
import torch
import torch.nn.functional as F
from matplotlib.figure import Figure
from torch import nn

from lmtie_edu.lesson03 import figures as gradient_figures
from lmtie_edu.lesson03 import gradients
from lmtie_edu.shared import toy_corpus as tc
from lmtie_edu.shared.models import TinyLM


@pytest.fixture(scope="module")
def corpus():
    return tc.zipf_corpus(200, 30, seed=0)


def test_zipf_probabilities():
    p = tc.zipf_probabilities(50, 1.1)
    assert p.sum().item() == pytest.approx(1.0)
    assert bool((p[:-1] > p[1:]).all())
    assert p[0] / p[9] == pytest.approx(10 ** 1.1)
    with pytest.raises(ValueError, match="exponent"):
        tc.zipf_probabilities(50, -1)
    with pytest.raises(ValueError):
        tc.zipf_probabilities(0)


def test_corpus_is_deterministic(corpus):
    again = tc.zipf_corpus(200, 30, seed=0)
    other = tc.zipf_corpus(200, 30, seed=1)
    assert torch.equal(corpus.inputs, again.inputs) and torch.equal(corpus.targets, again.targets)
    assert not torch.equal(corpus.targets[:100], other.targets[:100])


def test_corpus_boundaries(corpus):
    assert not bool((corpus.inputs == tc.EOS).any())       # <eos> is only a target
    assert not bool((corpus.targets == tc.BOS).any())      # <bos> is only an input
    assert int(corpus.as_target[tc.EOS]) == 200            # one per sentence
    assert corpus.inputs.shape == (len(corpus.targets), 2)
    present = torch.zeros(len(corpus.inputs), 30, dtype=torch.bool).scatter_(1, corpus.inputs, True)
    assert torch.equal(corpus.as_input, present.sum(dim=0))
    assert torch.equal(corpus.as_target, torch.bincount(corpus.targets, minlength=30))
    assert corpus.labels()[:3] == ["<bos>", "<eos>", "w2"]


def test_corpus_bad_input():
    with pytest.raises(ValueError, match=">= 4"):
        tc.zipf_corpus(10, 3)
    with pytest.raises(TypeError, match="integer"):
        tc.zipf_corpus(10.5)


def test_untied_twin_same_function_two_parameters():
    model = TinyLM(10, 4, tie=True)
    twin = gradients.untied_twin(model)
    ids = torch.tensor([[1, 2], [3, 4]])
    assert torch.equal(model(ids), twin(ids))
    assert not twin.tied and twin.head.weight is not twin.embedding.weight
    with pytest.raises(ValueError, match="must be tied"):
        gradients.untied_twin(twin)
    with pytest.raises(TypeError, match="TinyLM"):
        gradients.untied_twin(nn.Linear(3, 3))


def test_gradient_parts_decomposition():
    torch.manual_seed(0)
    model = TinyLM(10, 4, tie=True)
    inputs, targets = torch.tensor([[1, 2], [2, 5]]), torch.tensor([7, 1])
    parts = gradients.gradient_parts(model, inputs, targets)
    assert parts["max_abs_diff"] < 1e-6
    assert parts["loss"] == pytest.approx(parts["twin_loss"])
    assert gradients.rows_touched(parts["input_part"]) == 3           # rows 1, 2, 5
    assert (parts["input_part"][[0, 3, 4, 6, 7, 8, 9]] == 0).all()
    assert gradients.rows_touched(parts["output_part"]) == 10         # every row
    # and the model's own .grad is left clean
    assert model.embedding.weight.grad is None


def test_gradient_parts_bad_input():
    model = TinyLM(10, 4, tie=True)
    with pytest.raises(ValueError, match=r"shape \(len\(targets\), 2\)"):
        gradients.gradient_parts(model, torch.tensor([[1, 2, 3]]), torch.tensor([1]))
    with pytest.raises(ValueError, match=r"\[0, 9\]"):
        gradients.gradient_parts(model, torch.tensor([[1, 2]]), torch.tensor([10]))
    with pytest.raises(TypeError, match="integers"):
        gradients.gradient_parts(model, torch.tensor([[1.0, 2.0]]), torch.tensor([1]))


def test_rows_touched():
    assert gradients.rows_touched(torch.tensor([[0.0, 0.0], [0.0, -1e-9], [2.0, 0.0]])) == 2


def test_figures(corpus):
    fig = gradient_figures.plot_gradient_heatmaps([torch.zeros(5, 3), torch.ones(5, 3)], ["a", "b"], inputs=[1],
                                                  targets=[2])
    assert isinstance(fig, Figure) and len(fig.axes) == 3  # two heatmaps (each with its row norms) and a colour bar
    fraction = torch.linspace(0, 1, 30)
    assert isinstance(gradient_figures.update_frequency_figure(corpus, fraction, torch.ones(30), torch.ones(30)), Figure)


def test_heatmap_row_norms_show_the_target_row_longest_and_zero_rows_marked():
    """The figure's point: a bar per non-zero row (the longest the target's, drawn red), a 0 for an exact zero."""
    head = torch.full((4, 3), 0.01)
    head[2] = 1.0                                         # the target row, 100 times the others
    lookup = torch.zeros(4, 3)
    lookup[1] = 0.5
    fig = gradient_figures.plot_gradient_heatmaps([lookup, head], ["lookup", "head"], inputs=[1], targets=[2])
    lookup_ax, head_ax = fig.axes[0], fig.axes[1]
    bars = head_ax.collections[0].get_segments()
    ends = [segment[1][0] for segment in bars]
    assert len(bars) == 4 and max(range(4), key=ends.__getitem__) == 2
    assert min(ends) > bars[0][0][0]                      # 100 times smaller: still a visible bar (log scale)
    assert tuple(head_ax.collections[0].get_colors()[2][:3]) != tuple(head_ax.collections[0].get_colors()[0][:3])
    assert len(lookup_ax.collections[0].get_segments()) == 1      # one non-zero row: one bar
    assert len(lookup_ax.lines[0].get_ydata()) == 3               # three exact zeros, each marked 0
    assert lookup_ax.images[0].norm.vmin == -1.0                  # one linear scale for all heatmaps


def test_draw_gradient_parts_is_a_diagram():
    fig = gradient_figures.draw_gradient_parts()
    assert isinstance(fig, Figure) and not fig.axes[0].axison
    texts = " ".join(t.get_text() for t in fig.axes[0].texts)
    assert all(word in texts for word in ("lookup part", "head part", "W.grad", "token 2", "token 5", "target 6"))


def test_untrained_head_rows_are_close_and_the_trained_ones_far_apart():
    """Lesson 03 §2: the untrained V = 12 model's head rows are under 5x apart; the trained demo's over 100x."""
    torch.manual_seed(0)
    model = TinyLM(12, 6, context=2, tie=False)                # built as in the lesson, then tied
    model.head.weight = model.embedding.weight
    inputs, targets = torch.tensor([[2, 5], [5, 9], [9, 3]]), torch.tensor([9, 3, 7])
    W_out = model.head.weight.detach().clone().requires_grad_(True)
    with torch.no_grad():
        h = model.hidden_state(inputs)
    F.cross_entropy(h @ W_out.T, targets).backward()
    norms = W_out.grad.norm(dim=1)
    assert norms.max() / norms.min() < 5 and sorted(norms.argsort(descending=True)[:3].tolist()) == [3, 7, 9]
    demo = gradient_figures.demo_model()
    with torch.no_grad():
        h1 = demo.hidden_state(torch.tensor([[2, 3]]))[0]
    W_demo = demo.head.weight.detach().clone().requires_grad_(True)
    F.cross_entropy((W_demo @ h1).unsqueeze(0), torch.tensor([4])).backward()
    demo_norms = W_demo.grad.norm(dim=1)
    assert demo_norms[4] / demo_norms.min() > 100 and int(demo_norms.argmax()) == 4


def test_decomposition_figure_tie_changes_embedding_grad():
    tied = gradient_figures.decomposition_figure(2, 3, 4, True).numbers
    untied = gradient_figures.decomposition_figure(2, 3, 4, False).numbers
    assert tied["rows of embedding.grad non-zero"] == gradient_figures.PANEL_VOCAB
    assert untied["rows of embedding.grad non-zero"] == 2
    assert tied["tied grad == lookup + head (within 1e-6)"] is True
    with pytest.raises(ValueError, match=r"\[0, 15\]"):
        gradient_figures.decomposition_figure(2, 3, 16, True)
    with pytest.raises(TypeError, match="True or False"):
        gradient_figures.decomposition_figure(2, 3, 4, 1)


def test_demo_model_leaves_the_learners_random_state_alone():
    gradient_figures._trained_demo.cache_clear()
    torch.manual_seed(123)
    expected = torch.rand(3)
    torch.manual_seed(123)
    gradient_figures.demo_model()
    assert torch.equal(torch.rand(3), expected)


def test_panel_toggle_and_bad_values():
    panel = gradient_figures.decomposition_panel()
    assert panel.result.numbers["rows of embedding.grad non-zero"] == gradient_figures.PANEL_VOCAB
    panel.tie.value = False
    assert panel.result.numbers["rows of embedding.grad non-zero"] == 2
    panel.set(first=5, second=5)
    assert panel.result.numbers["rows touched through the lookup"] == 1
    with pytest.raises(ValueError, match="one of"):
        panel.set(target=99)
    with pytest.raises(TypeError):
        panel.set(tie="no")


# -- bad input: every public helper of lesson 03's modules names the problem --------------------------

@pytest.mark.parametrize("kwargs, error, match", [
    ({"n_sentences": 0}, ValueError, "n_sentences"),
    ({"n_sentences": -5}, ValueError, "n_sentences"),
    ({"n_sentences": 10.5}, TypeError, "integer"),
    ({"n_sentences": True}, TypeError, "n_sentences"),
    ({"n_sentences": "100"}, TypeError, "n_sentences"),
    ({"vocab_size": 3}, ValueError, ">= 4"),
    ({"vocab_size": 10**9}, ValueError, "too large"),
    ({"n_sentences": 10**9}, ValueError, "too large"),
    ({"context": 0}, ValueError, "context"),
    ({"mean_length": 0}, ValueError, "mean_length"),
    ({"exponent": float("nan")}, ValueError, "exponent"),
    ({"exponent": float("inf")}, ValueError, "exponent"),
    ({"exponent": -1.0}, ValueError, "exponent"),
    ({"seed": "zero"}, TypeError, "seed"),
    ({"seed": -1}, ValueError, "seed"),
    ({"seed": 1.5}, TypeError, "seed"),
])
def test_zipf_corpus_bad_input(kwargs, error, match):
    with pytest.raises(error, match=match):
        tc.zipf_corpus(**({"n_sentences": 10, "vocab_size": 10} | kwargs))


@pytest.mark.parametrize("n_words, exponent, error, match", [
    (0, 1.1, ValueError, "n_words"), (2.0, 1.1, TypeError, "n_words"), (False, 1.1, TypeError, "n_words"),
    (10**12, 1.1, ValueError, "at most"), (10, "1.1", ValueError, "exponent"), (10, True, ValueError, "exponent"),
    (10, float("nan"), ValueError, "exponent"),
])
def test_zipf_probabilities_bad_input(n_words, exponent, error, match):
    with pytest.raises(error, match=match):
        tc.zipf_probabilities(n_words, exponent)


@pytest.mark.parametrize("grad, error, match", [
    ("not a tensor", TypeError, "torch.Tensor"),
    ([[0.0, 1.0]], TypeError, "torch.Tensor"),
    (torch.zeros(3), ValueError, "matrix"),
    (torch.zeros(2, 3, 4), ValueError, "matrix"),
    (torch.zeros(3, 2, device="meta"), ValueError, "meta tensor"),
    (torch.tensor([[0.0, float("nan")]]), ValueError, "NaN or inf"),
    (torch.tensor([[float("inf"), 0.0]]), ValueError, "NaN or inf"),
])
def test_rows_touched_bad_input(grad, error, match):
    with pytest.raises(error, match=match):
        gradients.rows_touched(grad)


def test_rows_touched_edge_cases():
    assert gradients.rows_touched(torch.zeros(0, 4)) == 0                 # no rows: none touched
    assert gradients.rows_touched(torch.tensor([[0, 1], [0, 0]])) == 1     # integer matrices are fine
    assert gradients.rows_touched(torch.tensor([[0.0], [2.0]], dtype=torch.float64)) == 1


def test_untied_twin_bad_input():
    with pytest.raises(TypeError, match="TinyLM"):
        gradients.untied_twin("model")
    with torch.device("meta"):
        meta_model = TinyLM(6, 4, tie=True)
    with pytest.raises(ValueError, match="meta device"):
        gradients.untied_twin(meta_model)


@pytest.mark.parametrize("inputs, targets, error, match", [
    (torch.zeros(0, 2, dtype=torch.long), torch.zeros(0, dtype=torch.long), ValueError, "empty"),
    (torch.tensor([[1, 2]]), torch.tensor([1, 2]), ValueError, "shape"),
    (torch.tensor([[1, 2]]), torch.tensor([[1]]), ValueError, "rank 1"),
    (torch.tensor([[1, 2]]), torch.tensor([-1]), ValueError, r"\[0, 9\]"),
    (torch.tensor([[1, 2]]), torch.tensor([True]), TypeError, "integers"),
    (torch.tensor([[1, 2]]), torch.tensor([float("nan")]), TypeError, "integers"),
    ("12", torch.tensor([1]), TypeError, "integers"),
    (torch.tensor([[1, 2]], device="meta"), torch.tensor([1]), ValueError, "meta tensor"),
    (torch.tensor([[1, 2]]), torch.tensor([1], device="meta"), ValueError, "meta tensor"),
])
def test_gradient_parts_more_bad_input(inputs, targets, error, match):
    model = TinyLM(10, 4, tie=True)
    with pytest.raises(error, match=match):
        gradients.gradient_parts(model, inputs, targets)
    assert model.embedding.weight.grad is None


@pytest.mark.parametrize("matrices, titles, kwargs, error, match", [
    (torch.zeros(4, 3), ["a"], {}, TypeError, "list"),
    ([], [], {}, TypeError, "non-empty"),
    ([torch.zeros(4, 3)], "a", {}, TypeError, "titles"),
    ([torch.zeros(4, 3)], ["a", "b"], {}, ValueError, "titles"),
    ([torch.zeros(4)], ["a"], {}, ValueError, "2-D"),
    ([torch.zeros(0, 3)], ["a"], {}, ValueError, "non-empty"),
    (["grad"], ["a"], {}, TypeError, r"matrices\[0\] must be a torch.Tensor"),
    ([torch.zeros(4, 3, device="meta")], ["a"], {}, ValueError, "with values"),
    ([torch.tensor([[float("nan")]])], ["a"], {}, ValueError, "NaN"),
    ([torch.zeros(4, 3), torch.zeros(5, 3)], ["a", "b"], {}, ValueError, "one shape"),
    ([torch.zeros(4, 3)], ["a"], {"inputs": [7]}, ValueError, r"\[0, 3\]"),
    ([torch.zeros(4, 3)], ["a"], {"targets": [1.5]}, TypeError, "integers"),
])
def test_plot_gradient_heatmaps_bad_input(matrices, titles, kwargs, error, match):
    with pytest.raises(error, match=match):
        gradient_figures.plot_gradient_heatmaps(matrices, titles, **kwargs)


def test_update_frequency_figure_bad_input(corpus):
    ones = torch.ones(30)
    with pytest.raises(TypeError, match="ZipfCorpus"):
        gradient_figures.update_frequency_figure((corpus.inputs, corpus.targets), ones, ones, ones)
    with pytest.raises(ValueError, match=r"shape \(30,\)"):
        gradient_figures.update_frequency_figure(corpus, torch.ones(29), ones, ones)
    with pytest.raises(TypeError, match=r"shape \(30,\)"):
        gradient_figures.update_frequency_figure(corpus, ones, [1.0] * 30, ones)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        gradient_figures.update_frequency_figure(corpus, ones, ones, ones * 200)   # counts, not shares
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        gradient_figures.update_frequency_figure(corpus, ones, ones, ones * float("nan"))


@pytest.mark.parametrize("kwargs, error, match", [
    ({"first": "2"}, TypeError, "token id"), ({"second": 3.0}, TypeError, "token id"),
    ({"target": True}, TypeError, "token id"), ({"target": -1}, ValueError, r"\[0, 15\]"),
    ({"tie": None}, TypeError, "True or False"),
])
def test_decomposition_figure_bad_input(kwargs, error, match):
    with pytest.raises(error, match=match):
        gradient_figures.decomposition_figure(**kwargs)


@pytest.mark.parametrize("kwargs, error, match", [
    ({"first": 16}, ValueError, r"\[0, 15\]"), ({"second": "3"}, ValueError, r"\[0, 15\]"),
    ({"target": 2.0}, ValueError, r"\[0, 15\]"), ({"tie": "yes"}, TypeError, "True or False"),
])
def test_decomposition_panel_bad_input(kwargs, error, match):
    with pytest.raises(error, match=match):
        gradient_figures.decomposition_panel(**kwargs)


# -- predict, then run: each question's answer is what the lesson's next cell shows ------------------------------
def test_prediction_tied_rows_matches_the_evidence():
    from lmtie_edu.lesson03 import questions as predict

    torch.manual_seed(0)
    model = TinyLM(12, 6, context=2, tie=False)
    model.head.weight = model.embedding.weight
    inputs, targets = torch.tensor([[2, 5], [5, 9], [9, 3]]), torch.tensor([9, 3, 7])
    F.cross_entropy(model(inputs), targets).backward()
    rows = int((model.embedding.weight.grad != 0).any(dim=1).sum())
    assert predict.tied_rows.right.startswith(f"{rows}:")
    assert sorted(set(inputs.flatten().tolist())) == [2, 3, 5, 9] and sorted(set(targets.tolist())) == [3, 7, 9]


def test_prediction_largest_head_row_matches_the_evidence():
    from lmtie_edu.lesson03 import questions as predict

    demo = gradient_figures.demo_model()
    with torch.no_grad():
        h = demo.hidden_state(torch.tensor([[2, 3]]))[0]
        p = F.softmax(demo.head.weight @ h, dim=0)
    y = F.one_hot(torch.tensor(4), demo.vocab_size).float()
    row_sizes = (p - y).abs() * h.norm()
    assert int(row_sizes.argmax()) == 4 and int(p.argmax()) == 2          # the target's row, not the likeliest's
    assert f"{p[4]:.2f}" == "0.04" and f"{p[2]:.2f}" == "0.53"             # the numbers quoted in the question
    assert predict.largest_head_row.right == "the target's row (token 4)"


def test_prediction_eos_input_steps_matches_the_evidence():
    from lmtie_edu.lesson03 import questions as predict

    lesson_corpus = tc.zipf_corpus(exponent=1.1, seed=0)
    assert int(lesson_corpus.as_input[tc.EOS]) == 0 < int(lesson_corpus.as_target[tc.EOS])  # never read
    by_frequency = torch.argsort(lesson_corpus.as_input + lesson_corpus.as_target, descending=True, stable=True)
    assert by_frequency.tolist().index(tc.EOS) + 1 == 7                  # "the 7th most frequent token"
    model = TinyLM(lesson_corpus.vocab_size, 8, context=2, tie=False)
    ends = lesson_corpus.targets == tc.EOS
    F.cross_entropy(model(lesson_corpus.inputs[ends]), lesson_corpus.targets[ends]).backward()
    assert not model.embedding.weight.grad[tc.EOS].any()        # even a batch of sentence ends leaves it at zero
    assert predict.eos_input_steps.right == "none of them"
