"""Lesson 07 helpers: the fixed batch, the optimiser check, checkpoints, a tiny GPT-2, the tying-method panel."""

import math

import pytest
import torch
from torch import nn

from lmtie_edu.lesson07 import checkpoints, pitfalls
from lmtie_edu.lesson07 import figures as pitfall_figures
from lmtie_edu.lesson07 import questions as predict
from lmtie_edu.shared.models import TinyLM


def _optimiser():
    return torch.optim.SGD([nn.Parameter(torch.ones(2))], lr=0.1)


# -- the panel's experiment: share, copy, new Parameter after the optimiser ---------------------------
def test_share_is_one_trained_parameter():
    out = pitfall_figures.track_tying("share", steps=3)
    assert out["one Parameter"] and out["embedding in optimiser"]
    assert max(out["max_difference"]) == 0.0 and out["moved"][-1] > 0


def test_copy_starts_equal_and_drifts_apart():
    out = pitfall_figures.track_tying("copy", steps=3)
    assert not out["one Parameter"]
    assert out["max_difference"][0] == 0.0 and out["max_difference"][1] > 0
    assert torch.equal(out["embedding"][0], out["head"][0]) and not torch.equal(out["embedding"][-1], out["head"][-1])


def test_new_parameter_after_optimiser_is_tied_but_frozen():
    model, optimiser = pitfall_figures.build_with_method("new Parameter after optimiser")
    assert model.tied and not pitfalls.in_optimiser(model.embedding.weight, optimiser)
    out = pitfall_figures.track_tying("new Parameter after optimiser", steps=3)
    assert out["moved"] == [0.0] * 4 and max(out["max_difference"]) == 0.0


def test_tie_off_is_two_independent_matrices_whatever_the_method():
    for method in pitfall_figures.METHODS:
        model, optimiser = pitfall_figures.build_with_method(method, tie=False)
        assert not model.tied and not torch.equal(model.embedding.weight, model.head.weight)
        assert pitfalls.in_optimiser(model.head.weight, optimiser)


def test_tracked_values_follow_the_model():
    out = pitfall_figures.track_tying("share", steps=2)
    model, _ = pitfall_figures.build_with_method("share")
    row, col = pitfall_figures.TRACKED[0]
    assert out["embedding"][0, 0] == model.embedding.weight[row, col]
    assert out["embedding"].shape == (3, len(pitfall_figures.TRACKED))


@pytest.mark.parametrize("build", [
    lambda: pitfall_figures.build_with_method("copy", seed=3),
    lambda: pitfalls.tiny_gpt2(seed=3),
    lambda: pitfalls.demo_data(seed=3),
])
def test_helpers_leave_the_learners_random_state_alone(build):
    torch.manual_seed(123)
    expected = torch.rand(3)
    torch.manual_seed(123)
    build()
    assert torch.equal(torch.rand(3), expected)


def test_build_with_method_is_reproducible_from_its_seed():
    a, _ = pitfall_figures.build_with_method("share", seed=5)
    b, _ = pitfall_figures.build_with_method("share", seed=5)
    assert torch.equal(a.embedding.weight, b.embedding.weight)


@pytest.mark.parametrize("call, error, text", [
    (lambda: pitfall_figures.build_with_method("clone"), ValueError,
     r"method must be one of \['share', 'copy', 'new Parameter after optimiser'\]; got 'clone'"),
    (lambda: pitfall_figures.build_with_method("share", tie="yes"), TypeError,
     "tie must be True or False; got 'yes'"),
    (lambda: pitfall_figures.build_with_method("share", lr=math.nan), ValueError, "lr must be a number > 0; got nan"),
    (lambda: pitfall_figures.build_with_method("share", lr=-0.1), ValueError, "lr must be a number > 0; got -0.1"),
    (lambda: pitfall_figures.build_with_method("share", lr="0.1"), ValueError, "lr must be a number > 0; got '0.1'"),
    (lambda: pitfall_figures.build_with_method("share", d_model=0), ValueError, "d_model must be an integer >= 1; got 0"),
    (lambda: pitfall_figures.build_with_method("share", d_model=8.0), TypeError, "use 8 instead of 8.0"),
    (lambda: pitfall_figures.build_with_method("share", vocab_size=10**8), ValueError,
     r"vocab_size must be an integer in \[2, 100,000\]"),
    (lambda: pitfall_figures.build_with_method("share", seed="0"), TypeError, "seed must be an integer >= 0; got '0'"),
    (lambda: pitfall_figures.track_tying("share", steps=0), ValueError, r"steps must be an integer >= 1; got 0"),
    (lambda: pitfall_figures.track_tying("share", steps=2.5), TypeError, "steps must be an integer"),
    (lambda: pitfall_figures.track_tying("share", steps=10**6), ValueError, r"steps must be an integer in \[1, 1,000\]"),
    (lambda: pitfall_figures.track_tying("share", steps=True), TypeError, "steps must be an integer"),
    (lambda: pitfall_figures.track_tying("share", seed=-1), ValueError, "seed must be an integer >= 0; got -1"),
])
def test_panel_experiment_rejects_bad_input(call, error, text):
    with pytest.raises(error, match=text):
        call()


# -- the panel -------------------------------------------------------------------------------------
def test_panel_tie_toggle_changes_numbers_and_figure():
    panel = pitfall_figures.tying_method_panel(method="share")
    png = panel.image.value
    assert panel.result.numbers["one Parameter (E is H)"] is True
    panel.tie.value = False
    assert panel.result.numbers["method"] == "tie off: two independent matrices"
    assert panel.result.numbers["max |E − H| at step 0"] > 0
    assert panel.image.value != png


def test_panel_method_choice_changes_the_result():
    panel = pitfall_figures.tying_method_panel()
    panel.set(method="copy", steps=5)
    assert panel.result.numbers["max |E − H| after 5 steps"] > 0
    panel.set(method="new Parameter after optimiser")
    assert panel.result.numbers["max |E − E₀| after 5 steps"] == 0.0


@pytest.mark.parametrize("values, error, text", [
    ({"method": "clone"}, ValueError, "method must be one of"),
    ({"steps": 41}, ValueError, r"steps must be a value in \[1, 40\]; got 41"),
    ({"steps": 2.5}, TypeError, "steps must be an integer"),
    ({"tie": 1}, TypeError, "tie must be True or False"),
])
def test_panel_rejects_impossible_values(values, error, text):
    panel = pitfall_figures.tying_method_panel()
    with pytest.raises(error, match=text):
        panel.set(**values)


@pytest.mark.parametrize("kwargs, error, text", [
    ({"method": "clone"}, ValueError, "method must be one of"),
    ({"steps": 41}, ValueError, r"steps must be an integer in \[1, 40\] \(the range of the steps slider\); got 41"),
    ({"steps": 0}, ValueError, "steps must be an integer >= 1; got 0"),
    ({"tie": 1}, TypeError, "tie must be True or False; got 1"),
])
def test_panel_factory_rejects_bad_input(kwargs, error, text):
    with pytest.raises(error, match=text):
        pitfall_figures.tying_method_panel(**kwargs)


def test_figure_function_rejects_bad_input():
    with pytest.raises(ValueError, match="method must be one of"):
        pitfall_figures.tying_method_figure(True, ["share"], 3)
    with pytest.raises(TypeError, match="tie must be True or False"):
        pitfall_figures.tying_method_figure("yes", "share", 3)
    with pytest.raises(ValueError, match=r"steps must be an integer in \[1, 1,000\]"):
        pitfall_figures.tying_method_figure(True, "share", 5000)


# -- the fixed batch and the optimiser check --------------------------------------------------------
def test_demo_data_is_fixed_by_its_seed():
    a, b = pitfalls.demo_data(seed=1), pitfalls.demo_data(seed=1)
    assert torch.equal(a[0], b[0]) and torch.equal(a[1], b[1]) and a[0].shape == (198, 2)


@pytest.mark.parametrize("kwargs, error, text", [
    ({"vocab_size": 1}, ValueError, "vocab_size must be an integer >= 2; got 1"),
    ({"vocab_size": "16"}, TypeError, "vocab_size must be an integer >= 2; got '16'"),
    ({"vocab_size": True}, TypeError, "vocab_size must be an integer"),
    ({"length": 10**12}, ValueError, r"length must be an integer in \[2, 1,000,000\]"),
    ({"context": 0}, ValueError, "context must be an integer >= 1; got 0"),
    ({"context": 300}, ValueError, "needs more than context=300 tokens; got 200"),
    ({"seed": -1}, ValueError, "seed must be an integer >= 0; got -1"),
    ({"seed": 0.5}, TypeError, "seed must be an integer >= 0; got 0.5"),
])
def test_demo_data_rejects_bad_input(kwargs, error, text):
    with pytest.raises(error, match=text):
        pitfalls.demo_data(**kwargs)


def test_in_optimiser_uses_identity_not_values():
    p = nn.Parameter(torch.ones(2))
    optimiser = torch.optim.SGD([p], lr=0.1)
    assert pitfalls.in_optimiser(p, optimiser)
    assert not pitfalls.in_optimiser(nn.Parameter(torch.ones(2)), optimiser)


@pytest.mark.parametrize("args, text", [
    (("weight", _optimiser()), "parameter must be a torch.Tensor"),
    ((nn.Parameter(torch.ones(1)), []), "optimiser must be a torch.optim.Optimizer; got list"),
])
def test_in_optimiser_rejects_bad_input(args, text):
    with pytest.raises(TypeError, match=text):
        pitfalls.in_optimiser(*args)


# -- counting each storage once ---------------------------------------------------------------------
def test_count_unique_elements_counts_each_element_of_memory_once():
    base = torch.zeros(4, 3)
    assert checkpoints.count_unique_elements([base, base, base[0], base[1]]) == 12  # rows lie inside base
    assert checkpoints.count_unique_elements([base[:2], base[2:]]) == 12            # two halves of one storage
    assert checkpoints.count_unique_elements([base[:3], base[1:]]) == 12            # overlapping views
    assert checkpoints.count_unique_elements([base, base.t()]) == 12                 # same memory, other shape
    assert checkpoints.count_unique_elements([base[:, 0], base[:, 1]]) == 8          # strided columns
    assert checkpoints.count_unique_elements([base, base.clone()]) == 24             # a copy is other memory


def test_count_unique_elements_on_state_dicts():
    tied, untied = TinyLM(20, 4, tie=True), TinyLM(20, 4, tie=False)
    assert checkpoints.count_unique_elements(tied.state_dict().values()) == sum(p.numel() for p in tied.parameters())
    assert checkpoints.count_unique_elements(untied.state_dict()) == sum(p.numel() for p in untied.parameters())


@pytest.mark.parametrize("tensors, expected", [
    ([], 0),
    ([torch.zeros(0), torch.zeros(0, 3)], 0),                # empty tensors count nothing
    ([torch.tensor([math.nan, math.inf])], 2),               # values do not matter, memory does
    ([torch.zeros(3, dtype=torch.float64)], 3),
])
def test_count_unique_elements_edge_cases(tensors, expected):
    assert checkpoints.count_unique_elements(tensors) == expected


@pytest.mark.parametrize("bad, error, text", [
    (torch.zeros(3), TypeError, "iterable of tensors"),
    (nn.Linear(2, 2), TypeError, "iterable of tensors"),
    ("weights", TypeError, "iterable of tensors"),
    (5, TypeError, "iterable of tensors.*got int"),
    ([torch.zeros(2), "x"], TypeError, "every item must be a torch.Tensor; got str"),
    ([torch.zeros(2, device="meta")], ValueError, "meta tensors"),
])
def test_count_unique_elements_rejects_bad_input(bad, error, text):
    with pytest.raises(error, match=text):
        checkpoints.count_unique_elements(bad)


# -- saving and loading ----------------------------------------------------------------------------
def test_torch_checkpoint_stores_a_tie_once_and_deterministically():
    torch.manual_seed(0)
    tied, untied = TinyLM(200, 16, tie=True), TinyLM(200, 16, tie=False)
    size_tied, loaded = checkpoints.torch_checkpoint(tied.state_dict())
    size_untied, _ = checkpoints.torch_checkpoint(untied.state_dict())
    assert size_untied - size_tied >= 200 * 16 * 4
    assert checkpoints.torch_checkpoint(tied.state_dict())[0] == size_tied
    assert loaded["head.weight"].untyped_storage().data_ptr() == loaded["embedding.weight"].untyped_storage().data_ptr()


def test_torch_checkpoint_keeps_values_and_dtypes():
    state = {"nan": torch.tensor([math.nan, 1.0]), "f64": torch.zeros(2, dtype=torch.float64), "empty": torch.zeros(0)}
    _, loaded = checkpoints.torch_checkpoint(state)
    assert torch.equal(loaded["nan"][1:], state["nan"][1:]) and loaded["nan"][0].isnan()
    assert loaded["f64"].dtype == torch.float64 and loaded["empty"].shape == (0,)
    assert checkpoints.torch_checkpoint({})[1] == {}


def test_safetensors_save_file_refuses_a_tie_and_accepts_untied():
    message = checkpoints.safetensors_save_file_error(TinyLM(10, 4, tie=True).state_dict())
    assert message.startswith("Some tensors share memory") and "[['embedding.weight', 'head.weight']]" in message
    assert checkpoints.safetensors_save_file_error(TinyLM(10, 4, tie=False).state_dict()) is None
    assert checkpoints.safetensors_save_file_error({}) is None


def test_safetensors_checkpoint_keeps_one_copy_that_reloads_into_a_tie():
    torch.manual_seed(0)
    tied = TinyLM(10, 4, tie=True)
    _, stored = checkpoints.safetensors_checkpoint(tied)
    assert "head.weight" not in stored and "embedding.weight" in stored
    restored = TinyLM(10, 4, tie=False)
    missing, unexpected = restored.load_state_dict(stored, strict=False)
    restored.head.weight = restored.embedding.weight
    assert missing == ["head.weight"] and not unexpected and torch.equal(restored.head.weight, tied.head.weight)
    assert checkpoints.safetensors_checkpoint(nn.ReLU())[1] == {}  # a model without parameters saves nothing


@pytest.mark.parametrize("call, error, text", [
    (lambda: checkpoints.torch_checkpoint([1, 2]), TypeError, "state_dict must be a mapping of names to tensors"),
    (lambda: checkpoints.torch_checkpoint({"a": 1}), TypeError, "state_dict must be a mapping of names to tensors"),
    (lambda: checkpoints.torch_checkpoint({1: torch.zeros(2)}), TypeError, "state_dict keys must be strings"),
    (lambda: checkpoints.torch_checkpoint({"a": torch.zeros(2, device="meta")}), ValueError,
     r"meta tensors hold no values to save; got meta tensors for \['a'\]"),
    (lambda: checkpoints.safetensors_save_file_error({"a": 1}), TypeError, "state_dict must be a mapping"),
    (lambda: checkpoints.safetensors_save_file_error({"a": torch.zeros(3, 4).t()}), ValueError,
     r"contiguous tensors only; call .contiguous\(\) on \['a'\]"),
    (lambda: checkpoints.safetensors_save_file_error({"a": torch.zeros(2, device="meta")}), ValueError, "meta tensors"),
    (lambda: checkpoints.safetensors_checkpoint("model"), TypeError, "model must be an nn.Module; got str"),
    (lambda: checkpoints.safetensors_checkpoint(nn.Linear(2, 2, device="meta")), ValueError,
     r"meta tensors hold no values to save; got meta tensors for \['bias', 'weight'\]"),
])
def test_checkpoint_helpers_reject_bad_input(call, error, text):
    with pytest.raises(error, match=text):
        call()


# -- a tiny GPT-2 from a config --------------------------------------------------------------------
def _gpt2_is_tied(model):
    return model.lm_head.weight is model.transformer.wte.weight   # the check the lesson writes in its cell


def test_tiny_gpt2_ties_by_config_and_resize_keeps_it():
    model = pitfalls.tiny_gpt2(vocab_size=40, tie=True)
    assert _gpt2_is_tied(model)
    assert not _gpt2_is_tied(pitfalls.tiny_gpt2(vocab_size=40, tie=False))
    model.resize_token_embeddings(48, mean_resizing=False)
    assert _gpt2_is_tied(model) and model.lm_head.weight.shape == (48, 16)
    model.transformer.wte = nn.Embedding(50, 16)
    assert not _gpt2_is_tied(model)


def test_tiny_gpt2_is_reproducible_from_its_seed():
    a, b = pitfalls.tiny_gpt2(seed=2), pitfalls.tiny_gpt2(seed=2)
    assert torch.equal(a.lm_head.weight, b.lm_head.weight)


@pytest.mark.parametrize("kwargs, error, text", [
    ({"vocab_size": 1}, ValueError, "vocab_size must be an integer >= 2; got 1"),
    ({"vocab_size": 10**9}, ValueError, r"vocab_size must be an integer in \[2, 100,000\]"),
    ({"vocab_size": 64.0}, TypeError, "use 64 instead of 64.0"),
    ({"tie": "yes"}, TypeError, "tie must be True or False"),
    ({"seed": -3}, ValueError, "seed must be an integer >= 0; got -3"),
    ({"seed": 1.5}, TypeError, "seed must be an integer >= 0; got 1.5"),
])
def test_tiny_gpt2_rejects_bad_input(kwargs, error, text):
    with pytest.raises(error, match=text):
        pitfalls.tiny_gpt2(**kwargs)


# -- predict, then run: each question's answer is what the lesson's next cell shows -----------------
def _adam_step(model, optimiser, inputs, targets):
    loss = torch.nn.functional.cross_entropy(model(inputs), targets)
    optimiser.zero_grad(set_to_none=True)
    loss.backward()
    optimiser.step()


def test_prediction_alias_differs_from_a_tie_by_one_adam_step():
    question = predict.aliased_after_one_step
    inputs, targets = pitfalls.demo_data(vocab_size=16, context=2)
    torch.manual_seed(0)
    tied = TinyLM(16, 8, tie=True)
    torch.manual_seed(0)
    aliased = TinyLM(16, 8, tie=False)
    aliased.head.weight.data = aliased.embedding.weight.data
    for model in (tied, aliased):
        _adam_step(model, torch.optim.Adam(model.parameters(), lr=0.05), inputs, targets)
    gap = (aliased.embedding.weight - tied.embedding.weight).abs().max().item()
    sizes = [0.0, 1e-7, 0.05, 0.1]  # the sizes the options name, in order
    nearest = min(range(len(sizes)), key=lambda i: abs(math.log10(gap + 1e-12) - math.log10(sizes[i] + 1e-12)))
    assert question.options[nearest] == question.right and float(f"{gap:.3g}") == 0.05


def test_prediction_a_tie_made_after_the_optimiser_does_not_move():
    inputs, targets = pitfalls.demo_data(vocab_size=16, context=2)
    torch.manual_seed(0)
    model = TinyLM(16, 8, tie=False)
    optimiser = torch.optim.Adam(model.parameters(), lr=0.05)
    shared = nn.Parameter(model.embedding.weight.detach().clone())
    model.embedding.weight = model.head.weight = shared
    before = shared.detach().clone()
    for _ in range(20):
        _adam_step(model, optimiser, inputs, targets)
    question = predict.moved_after_late_tie
    assert (shared - before).abs().max().item() == 0.0 and question.right == question.options[0]


def test_prediction_a_state_dict_lists_the_tied_matrix_twice():
    question = predict.state_dict_count_of_a_tie
    tied = TinyLM(1000, 64, tie=True)
    extra = sum(t.numel() for t in tied.state_dict().values()) - sum(p.numel() for p in tied.parameters())
    assert extra == 1000 * 64
    assert question.right == {0: "the same number", 64_000: "64,000 more", -64_000: "64,000 fewer"}[extra]
    assert question.right in question.options


def test_prediction_untying_adds_two_moments_per_new_number_to_adams_state():
    inputs, targets = pitfalls.demo_data(vocab_size=16, context=2)

    def state_numbers(optimiser):
        return sum(t.numel() for state in optimiser.state.values() for t in state.values() if t.dim() > 0)

    torch.manual_seed(0)
    model = TinyLM(16, 8, tie=True)
    pretrain = torch.optim.Adam(model.parameters(), lr=0.05)
    _adam_step(model, pretrain, inputs, targets)
    model.head.weight = nn.Parameter(model.head.weight.detach().clone())
    optimiser = torch.optim.Adam(model.parameters(), lr=0.05)
    _adam_step(model, optimiser, inputs, targets)
    assert str(state_numbers(optimiser) - state_numbers(pretrain)) == predict.adam_state_after_untie.right
