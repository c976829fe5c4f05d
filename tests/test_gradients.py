"""Unit tests of lmtie_edu.gradients (lesson 03) and of the lesson 03 exercise checks."""

import pytest
import torch
import torch.nn.functional as F
from matplotlib.figure import Figure
from torch import nn

from lmtie_edu import gradients
from lmtie_edu.exercises import lesson03 as ex
from lmtie_edu.models import TinyLM


@pytest.fixture(scope="module")
def corpus():
    return gradients.zipf_corpus(200, 30, seed=0)


def test_zipf_probabilities():
    p = gradients.zipf_probabilities(50, 1.1)
    assert p.sum().item() == pytest.approx(1.0)
    assert bool((p[:-1] > p[1:]).all())
    assert p[0] / p[9] == pytest.approx(10 ** 1.1)
    with pytest.raises(ValueError, match="exponent"):
        gradients.zipf_probabilities(50, -1)
    with pytest.raises(ValueError):
        gradients.zipf_probabilities(0)


def test_corpus_is_deterministic(corpus):
    again = gradients.zipf_corpus(200, 30, seed=0)
    other = gradients.zipf_corpus(200, 30, seed=1)
    assert torch.equal(corpus.inputs, again.inputs) and torch.equal(corpus.targets, again.targets)
    assert not torch.equal(corpus.targets[:100], other.targets[:100])


def test_corpus_boundaries(corpus):
    assert not bool((corpus.inputs == gradients.EOS).any())       # <eos> is only a target
    assert not bool((corpus.targets == gradients.BOS).any())      # <bos> is only an input
    assert int(corpus.as_target[gradients.EOS]) == 200            # one per sentence
    assert corpus.inputs.shape == (len(corpus.targets), 2)
    present = torch.zeros(len(corpus.inputs), 30, dtype=torch.bool).scatter_(1, corpus.inputs, True)
    assert torch.equal(corpus.as_input, present.sum(dim=0))
    assert torch.equal(corpus.as_target, torch.bincount(corpus.targets, minlength=30))
    assert corpus.labels()[:3] == ["<bos>", "<eos>", "w2"]


def test_corpus_bad_input():
    with pytest.raises(ValueError, match=">= 4"):
        gradients.zipf_corpus(10, 3)
    with pytest.raises(TypeError, match="integer"):
        gradients.zipf_corpus(10.5)


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


def test_count_row_gradients(corpus):
    untied = gradients.count_row_gradients(TinyLM(30, 8, tie=False), corpus, steps=20, batch_size=16)
    tied = gradients.count_row_gradients(TinyLM(30, 8, tie=True), corpus, steps=20, batch_size=16)
    assert int(untied["input_counts"][gradients.EOS]) == 0
    assert untied["input_row_change"][gradients.EOS].item() == 0.0
    assert (untied["output_counts"] == 20).all() and (tied["input_counts"] == 20).all()
    assert tied["input_row_change"][gradients.EOS].item() > 0
    assert int(untied["input_counts"][gradients.BOS]) > 0
    assert untied["input_mean_norm"].shape == (30,)


def test_count_row_gradients_bad_input(corpus):
    with pytest.raises(TypeError, match="ZipfCorpus"):
        gradients.count_row_gradients(TinyLM(30, 8), (corpus.inputs, corpus.targets))
    with pytest.raises(ValueError, match="vocab_size"):
        gradients.count_row_gradients(TinyLM(31, 8), corpus)
    with pytest.raises(TypeError, match="TinyLM"):
        gradients.count_row_gradients(nn.Linear(2, 2), corpus)


def test_rows_touched():
    assert gradients.rows_touched(torch.tensor([[0.0, 0.0], [0.0, -1e-9], [2.0, 0.0]])) == 2


def test_figures(corpus):
    fig = gradients.gradient_heatmaps([torch.zeros(5, 3), torch.ones(5, 3)], ["a", "b"], inputs=[1], targets=[2])
    assert isinstance(fig, Figure) and len(fig.axes) == 3  # two heatmaps and a colour bar
    fraction = torch.linspace(0, 1, 30)
    assert isinstance(gradients.update_frequency_figure(corpus, {"x": fraction}), Figure)


def test_decomposition_figure_tie_changes_embedding_grad():
    tied = gradients.decomposition_figure(2, 3, 4, True).numbers
    untied = gradients.decomposition_figure(2, 3, 4, False).numbers
    assert tied["rows of embedding.grad non-zero"] == gradients.PANEL_VOCAB
    assert untied["rows of embedding.grad non-zero"] == 2
    assert tied["max |tied grad - (lookup + head)|"] < 1e-6
    with pytest.raises(ValueError, match=r"\[0, 15\]"):
        gradients.decomposition_figure(2, 3, 16, True)
    with pytest.raises(TypeError, match="True or False"):
        gradients.decomposition_figure(2, 3, 4, 1)


def test_panel_toggle_and_bad_values():
    panel = gradients.decomposition_panel()
    assert panel.result.numbers["rows of embedding.grad non-zero"] == gradients.PANEL_VOCAB
    panel.tie.value = False
    assert panel.result.numbers["rows of embedding.grad non-zero"] == 2
    panel.set(first=5, second=5)
    assert panel.result.numbers["rows touched through the lookup"] == 1
    with pytest.raises(ValueError, match="one of"):
        panel.set(target=99)
    with pytest.raises(TypeError):
        panel.set(tie="no")


def test_benchmarks_declared():
    names = [b.name for b in gradients.benchmarks()]
    assert names and names[0].startswith("03")


# -- exercise checks reject wrong answers ----------------------------------------------------------

def test_head_gradient_rejects_missing_target_term(capsys):
    def wrong(h, W_out, target):
        return torch.outer(F.softmax(W_out @ h, dim=0), h)

    assert not ex.head_gradient(wrong)
    assert "❌" in capsys.readouterr().out


def test_lookup_gradient_rejects_assignment(capsys):
    def wrong(ids, upstream, vocab_size):
        grad = torch.zeros(vocab_size, upstream.shape[1])
        grad[ids] = upstream  # repeated ids overwrite instead of adding up
        return grad

    assert not ex.lookup_gradient(wrong)
    assert "❌" in capsys.readouterr().out


def test_starved_input_rows_rejects_unseen_tokens(capsys):
    def wrong(inputs, targets, vocab_size):  # every id not in the inputs, even ones never predicted
        return sorted(set(range(vocab_size)) - set(inputs.flatten().tolist()))

    assert not ex.starved_input_rows(wrong)
    assert "❌" in capsys.readouterr().out
