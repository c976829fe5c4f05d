"""The lesson 06 reference solutions agree with the models they describe: tied_width with count_parameters
on real TinyLMs, gradient_step_counts with the non-zero rows of real gradients (counted as train_one does)."""

import pytest
import torch
import torch.nn.functional as F

from lmtie_edu.lesson06 import exercises, solutions
from lmtie_edu.shared.models import TinyLM, count_parameters


@pytest.mark.parametrize(("V", "d", "c", "H"), exercises._WIDTH_CASES)
def test_tied_width_is_the_widest_tied_tinylm_within_the_untied_budget(V, d, c, H):
    budget = count_parameters(TinyLM(V, d, context=c, hidden=H, tie=False))
    width = solutions.tied_width(V, d, c, H)
    assert count_parameters(TinyLM(V, width, context=c, hidden=H, tie=True)) <= budget
    assert count_parameters(TinyLM(V, width + 1, context=c, hidden=H, tie=True)) > budget
    assert exercises._width_parameters(V, d, c, H, tie=False) == budget


def test_the_lessons_own_sizes_give_57():
    assert solutions.tied_width(1000, 32, 3, 64) == 57


@pytest.mark.parametrize("case", range(len(exercises._gradient_cases())))
def test_gradient_step_counts_match_real_gradients(case):
    batches, vocab_size, tie = exercises._gradient_cases()[case]
    torch.manual_seed(case)
    model = TinyLM(vocab_size, 6, context=batches[0][0].shape[1], hidden=10, tie=tie)
    optimiser = torch.optim.SGD(model.parameters(), lr=0.1)
    input_steps = torch.zeros(vocab_size, dtype=torch.long)
    output_steps = torch.zeros(vocab_size, dtype=torch.long)
    for inputs, targets in batches:                          # as train_one counts them (§4)
        optimiser.zero_grad()
        F.cross_entropy(model(inputs), targets).backward()
        input_steps += (model.embedding.weight.grad != 0).any(dim=1)
        output_steps += (model.head.weight.grad != 0).any(dim=1)
        optimiser.step()
    expected_input, expected_output = solutions.gradient_step_counts(batches, vocab_size, tie)
    assert torch.equal(input_steps, expected_input) and torch.equal(output_steps, expected_output)
