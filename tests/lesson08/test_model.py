"""Lesson 08's model: the cells and the package copy are the same code; the tie, the counts and the initialisation."""

import pytest
import torch

from lmtie_edu.lesson08 import model as lesson_model
from lmtie_edu.lesson08 import solutions
from lmtie_edu.lesson08.exercises import WIDTH_CASES
from lmtie_edu.lesson08.model import TinyGPT
from lmtie_edu.shared.models import count_parameters
from tests.course.notebook_code import assert_cell_matches

NOTEBOOK = "08_tied_transformer.ipynb"


@pytest.mark.parametrize("name", ["CausalSelfAttention", "Block", "TinyGPT"])
def test_the_cells_are_the_package_copy(name):
    assert_cell_matches(NOTEBOOK, getattr(lesson_model, name))


def test_the_tie_is_one_parameter_and_removes_v_times_d():
    torch.manual_seed(0)
    tied, untied = TinyGPT(1000, 32, 2, 2, 16, tie=True), TinyGPT(1000, 32, 2, 2, 16, tie=False)
    assert tied.head.weight is tied.embedding.weight and untied.head.weight is not untied.embedding.weight
    assert (count_parameters(tied), count_parameters(untied)) == (57984, 89984)
    assert count_parameters(untied) - count_parameters(tied) == 1000 * 32


def test_same_seed_gives_the_same_start_tied_or_not():
    torch.manual_seed(3)
    tied = TinyGPT(50, 8, 2, 2, 4, tie=True)
    torch.manual_seed(3)
    untied = TinyGPT(50, 8, 2, 2, 4, tie=False)
    assert torch.equal(tied.embedding.weight, untied.embedding.weight)
    for a, b in zip(tied.blocks.parameters(), untied.blocks.parameters(), strict=True):
        assert torch.equal(a, b)


def test_gpt2_initialisation_and_the_init_std_argument():
    torch.manual_seed(0)
    model = TinyGPT(2000, 64, 1, 2, 8, tie=True)
    assert abs(model.embedding.weight.std().item() - 0.02) < 0.001
    assert abs(model.blocks[0].attn.qkv.weight.std().item() - 0.02) < 0.002
    assert torch.count_nonzero(model.blocks[0].attn.qkv.bias) == 0
    big = TinyGPT(2000, 64, 1, 2, 8, tie=True, init_std=1.0)
    assert abs(big.head.weight.std().item() - 1.0) < 0.02


def test_attention_is_causal():
    torch.manual_seed(0)
    model = TinyGPT(20, 8, 2, 2, 6, tie=True)
    ids = torch.tensor([[1, 2, 3, 4, 5, 6]])
    changed = ids.clone()
    changed[0, 4:] = torch.tensor([9, 9])
    with torch.no_grad():
        assert torch.allclose(model(ids)[0, :4], model(changed)[0, :4])
        assert not torch.allclose(model(ids)[0, 4:], model(changed)[0, 4:])


@pytest.mark.parametrize("case", WIDTH_CASES)
def test_widest_tied_is_the_widest_tied_model_within_budget(case):
    V, d, L, H, c = case
    budget = count_parameters(TinyGPT(V, d, L, H, c, tie=False))
    width = solutions.widest_tied(*case)
    assert width % H == 0
    assert count_parameters(TinyGPT(V, width, L, H, c, tie=True)) <= budget
    assert count_parameters(TinyGPT(V, width + H, L, H, c, tie=True)) > budget


def test_the_lessons_sizes_give_42():
    assert solutions.widest_tied(1000, 32, 2, 2, 16) == 42
