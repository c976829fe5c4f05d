"""TinyLM, the training loop and the window maker."""

import pytest
import torch

from lmtie_edu.models import TinyLM, count_parameters
from lmtie_edu.training import RowGradientCounter, evaluate, make_windows, train


def test_tied_model_has_one_matrix_fewer():
    tied, untied = TinyLM(50, 8, tie=True), TinyLM(50, 8, tie=False)
    assert tied.tied and not untied.tied
    assert count_parameters(untied) - count_parameters(tied) == 50 * 8


def test_forward_shapes_and_bad_context():
    model = TinyLM(20, 4, context=3)
    assert model(torch.tensor([[1, 2, 3], [4, 5, 6]])).shape == (2, 20)
    with pytest.raises(ValueError, match=r"shape \(batch, 3\); got \(1, 2\)"):
        model(torch.tensor([[1, 2]]))
    with pytest.raises(ValueError, match=r"\[0, 19\].*got 20"):
        model(torch.tensor([[1, 2, 20]]))
    with pytest.raises(TypeError, match="integers"):
        model(torch.tensor([[1.0, 2.0, 3.0]]))


def test_bad_sizes():
    with pytest.raises(ValueError, match="d_model must be an integer >= 1; got 0"):
        TinyLM(10, 0)
    with pytest.raises(TypeError, match="vocab_size"):
        TinyLM(10.5, 4)


def test_make_windows():
    inputs, targets = make_windows(torch.arange(6), 2)
    assert inputs.tolist() == [[0, 1], [1, 2], [2, 3], [3, 4]]
    assert targets.tolist() == [2, 3, 4, 5]
    with pytest.raises(ValueError, match="more than context=5"):
        make_windows(torch.arange(5), 5)
    with pytest.raises(ValueError, match="1-D"):
        make_windows(torch.zeros(2, 3, dtype=torch.long), 1)


def test_training_reduces_loss_and_is_reproducible():
    stream = torch.tensor([0, 1, 2, 3] * 50)
    inputs, targets = make_windows(stream, 2)

    def run():
        torch.manual_seed(0)
        model = TinyLM(4, 8, context=2)
        history = train(model, inputs, targets, steps=60, lr=1e-2, val=(inputs, targets), eval_every=20)
        return model, history

    model, history = run()
    assert history.val_steps == [20, 40, 60]
    assert history.val_loss[-1] < 0.2 < history.train_loss[0]
    assert evaluate(model, inputs, targets) == pytest.approx(history.val_loss[-1])
    assert run()[1].train_loss == history.train_loss


def test_after_backward_sees_gradients():
    inputs, targets = make_windows(torch.tensor([0, 1, 2, 3] * 10), 2)
    seen = []
    train(TinyLM(4, 4), inputs, targets, steps=3,
          after_backward=lambda model, x, y: seen.append(model.embedding.weight.grad is not None))
    assert seen == [True, True, True]


def test_row_gradient_counter_untied_vs_tied():
    inputs, targets = torch.tensor([[0, 1], [1, 2]]), torch.tensor([2, 3])
    counts = {}
    for tie in (False, True):
        torch.manual_seed(0)
        counter = RowGradientCounter(6)
        train(TinyLM(6, 4, tie=tie), inputs, targets, steps=5, batch_size=2, after_backward=counter)
        counts[tie] = counter
    untied, tied = counts[False], counts[True]
    # untied: only tokens that appear in an input get input-row gradient; every head row gets one each step
    assert untied.input_steps[3:].tolist() == [0, 0, 0] and (untied.input_steps[:3] > 0).all()
    assert untied.output_steps.tolist() == [5] * 6
    # tied: one matrix, every row every step, and the two counts coincide
    assert tied.input_steps.tolist() == tied.output_steps.tolist() == [5] * 6
    assert untied.target_counts.sum() == 10 and untied.target_counts[:2].tolist() == [0, 0]
    assert torch.equal(tied.input_norm_sum, tied.output_norm_sum) and (untied.input_norm_sum[3:] == 0).all()
    with pytest.raises(ValueError, match="vocab_size"):
        RowGradientCounter(0)
