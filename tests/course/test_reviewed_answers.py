"""Wrong answers from fresh students' reviews (issue 36, item 3) that a check passed, broke on, or diagnosed as a
mistake they do not make (or only half of it). Each must now fail, through the lesson's own ``ex``, with the diagnosis named here
(None: no named mistake fits, and none may be given). Those that now have a named mistake of their own are
also in their lessons' WRONG corpora, from where they are taken."""

import importlib

import pytest
from torch import nn

from lmtie_edu.kit.exercises import HINTS_SHOWN
from tests.lesson02.wrong_answers import (
    head_freezing_the_shared_weight as tied_head_freezing_the_shared_weight,
)
from tests.lesson02.wrong_answers import (
    head_with_a_float64_bias as tied_head_with_a_float64_bias,
)
from tests.lesson03.wrong_answers import starved_against_the_first_window, starved_by_counts
from tests.lesson05.wrong_answers import status_requires_grad_first as status_asking_requires_grad_first
from tests.lesson08.wrong_answers import groups_by_equal_values


def tied_width_with_a_head_bias_in_the_budget(vocab_size, d_model, context, hidden):
    def count(d, tie, head_bias=False):
        return (1 if tie else 2) * vocab_size * d + context * d * hidden + hidden + hidden * d + d + head_bias * vocab_size

    budget, d = count(d_model, False, head_bias=True), d_model
    while count(d + 1, True) <= budget:
        d += 1
    return d


def load_returning_what_load_state_dict_returns(model, tensors):
    state = dict(tensors)
    state["head.weight"] = state["embedding.weight"]
    return model.load_state_dict(state)


def gpt_size(vocab_size, d, n_layers, context, tie):  # TinyGPT's count: tables, blocks, final LayerNorm
    return (1 if tie else 2) * vocab_size * d + context * d + n_layers * (12 * d * d + 13 * d) + 2 * d


def _widest(vocab_size, d_model, n_layers, n_heads, context, step, budget_tied):
    budget = gpt_size(vocab_size, d_model, n_layers, context, budget_tied)
    d = step
    while gpt_size(vocab_size, d + step, n_layers, context, True) <= budget:
        d += step
    return d


def widest_with_the_tied_model_as_budget(vocab_size, d_model, n_layers, n_heads, context):
    return _widest(vocab_size, d_model, n_layers, n_heads, context, n_heads, budget_tied=True)


def widest_stepping_by_the_head_size(vocab_size, d_model, n_layers, n_heads, context):
    return _widest(vocab_size, d_model, n_layers, n_heads, context, d_model // n_heads, budget_tied=False)


def checkpoint_counting_the_largest_tensor_per_storage(state_dict):  # its diagnosis said "the first tensor"
    largest = {}
    for tensor in state_dict.values():
        key = tensor.untyped_storage().data_ptr()
        largest[key] = max(largest.get(key, 0), tensor.numel())
    return int(sum(largest.values()))


def untie_into_the_first_existing_group(model, optimiser):  # its diagnosis named only a group added anew
    new = nn.Parameter(model.embedding.weight.detach().clone())
    model.head.weight = new
    optimiser.param_groups[0]["params"].append(new)


REVIEWED = [  # (lesson, exercise, answer, the diagnosis it must get, or None)
    ("02", "tied_head_with_bias", tied_head_freezing_the_shared_weight, "froze_shared"),          # passed
    ("02", "tied_head_with_bias", tied_head_with_a_float64_bias, "bias_dtype"),                  # broke the check
    ("03", "starved_input_rows", starved_by_counts, "compared_counts"),                           # passed
    ("03", "starved_input_rows", starved_against_the_first_window, "first_window_only"),          # per_window
    ("05", "tie_status", status_asking_requires_grad_first, "frozen_called_detached"),            # passed
    ("06", "tied_width", tied_width_with_a_head_bias_in_the_budget, "over_budget"),               # misleading text
    ("07", "count_checkpoint_parameters", checkpoint_counting_the_largest_tensor_per_storage,
     "same_storage_once"),                                                                         # half true
    ("07", "untie_and_register", untie_into_the_first_existing_group, "default_settings"),        # half true
    ("08", "linear_only_groups", groups_by_equal_values, "compared_values"),                      # passed
    ("08", "load_shared_checkpoint", load_returning_what_load_state_dict_returns, "returned_load_result"),  # crash blamed
    ("08", "widest_tied", widest_with_the_tied_model_as_budget, "counted_tie_twice"),             # misleading text
    ("08", "widest_tied", widest_stepping_by_the_head_size, "step_of_head_size"),                # counted twice
]


@pytest.mark.parametrize(("lesson", "name", "answer", "key"), REVIEWED, ids=[a.__name__ for _, _, a, _ in REVIEWED])
def test_a_reviewed_wrong_answer_fails_with_a_true_diagnosis(lesson, name, answer, key, capsys):
    check = getattr(importlib.import_module(f"lmtie_edu.lesson{lesson}.exercises"), name)
    HINTS_SHOWN.pop(name, None)
    assert not check(answer)
    out = capsys.readouterr().out
    assert out.startswith(f"❌ {name}") and "the check itself failed" not in out, out
    named = [other for other, text in check.mistakes.items() if f"diagnosis: {text}" in out]
    assert named == ([key] if key else []), out
