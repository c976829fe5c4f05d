"""Lesson 07 helpers: tying methods, counting, checkpoints, decay groups, untying, transformers, compile, the panel."""

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from lmtie_edu import pitfalls
from lmtie_edu.models import TinyLM


# -- tying methods and the optimiser ----------------------------------------------------------------
def test_share_is_one_trained_parameter():
    out = pitfalls.track_tying("share", steps=3)
    assert out["one Parameter"] and out["embedding in optimiser"]
    assert max(out["max_difference"]) == 0.0 and out["moved"][-1] > 0


def test_copy_starts_equal_and_drifts_apart():
    out = pitfalls.track_tying("copy", steps=3)
    assert not out["one Parameter"]
    assert out["max_difference"][0] == 0.0 and out["max_difference"][1] > 0
    assert torch.equal(out["embedding"][0], out["head"][0]) and not torch.equal(out["embedding"][-1], out["head"][-1])


def test_new_parameter_after_optimiser_is_tied_but_frozen():
    model, optimiser = pitfalls.build_with_method("new Parameter after optimiser")
    assert model.tied and not pitfalls.in_optimiser(model.embedding.weight, optimiser)
    out = pitfalls.track_tying("new Parameter after optimiser", steps=3)
    assert out["moved"] == [0.0] * 4 and max(out["max_difference"]) == 0.0


def test_tie_off_is_two_independent_matrices_whatever_the_method():
    for method in pitfalls.METHODS:
        model, optimiser = pitfalls.build_with_method(method, tie_weights=False)
        assert not model.tied and not torch.equal(model.embedding.weight, model.head.weight)
        assert pitfalls.in_optimiser(model.head.weight, optimiser)


def test_tracked_values_follow_the_model():
    out = pitfalls.track_tying("share", steps=2)
    model, _ = pitfalls.build_with_method("share")
    row, col = pitfalls.TRACKED[0]
    assert out["embedding"][0, 0] == model.embedding.weight[row, col]
    assert out["embedding"].shape == (3, len(pitfalls.TRACKED))


@pytest.mark.parametrize("kwargs, error, text", [
    ({"method": "clone"}, ValueError, r"method must be one of \['share', 'copy', 'new Parameter after optimiser'\]; got 'clone'"),
    ({"method": "share", "tie_weights": "yes"}, TypeError, "tie_weights must be True or False; got 'yes'"),
])
def test_build_with_method_rejects_bad_input(kwargs, error, text):
    with pytest.raises(error, match=text):
        pitfalls.build_with_method(**kwargs)


def test_track_tying_rejects_bad_steps():
    with pytest.raises(ValueError, match="steps must be an integer >= 1; got 0"):
        pitfalls.track_tying("share", steps=0)
    with pytest.raises(TypeError, match="steps must be an integer"):
        pitfalls.track_tying("share", steps=2.5)


def test_demo_data_rejects_tiny_vocabulary():
    with pytest.raises(ValueError, match="vocab_size must be an integer >= 2; got 1"):
        pitfalls.demo_data(vocab_size=1)


# -- the panel -------------------------------------------------------------------------------------
def test_panel_tie_toggle_changes_numbers_and_figure():
    panel = pitfalls.tying_method_panel(method="share")
    png = panel.image.value
    assert panel.result.numbers["one Parameter (E is H)"] is True
    panel.tie.value = False
    assert panel.result.numbers["method"] == "tie off: two independent matrices"
    assert panel.result.numbers["max |E − H| at step 0"] > 0
    assert panel.image.value != png


def test_panel_method_choice_changes_the_result():
    panel = pitfalls.tying_method_panel()
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
    panel = pitfalls.tying_method_panel()
    with pytest.raises(error, match=text):
        panel.set(**values)


def test_figure_function_rejects_bad_input():
    with pytest.raises(ValueError, match="method must be one of"):
        pitfalls.tying_method_figure(True, ["share"], 3)
    with pytest.raises(TypeError, match="tie must be True or False"):
        pitfalls.tying_method_figure("yes", "share", 3)


# -- counting --------------------------------------------------------------------------------------
def test_parameter_counts_tied_and_untied():
    tied, untied = TinyLM(20, 4, tie=True), TinyLM(20, 4, tie=False)
    t, u = pitfalls.parameter_counts(tied), pitfalls.parameter_counts(untied)
    assert u["parameters()"] - t["parameters()"] == 20 * 4
    assert t["state_dict()"] == t["named_parameters(remove_duplicate=False)"] == u["state_dict()"]
    assert t["state_dict(), each storage once"] == t["parameters()"]
    assert u["state_dict(), each storage once"] == u["parameters()"]


def test_count_unique_elements_counts_views_of_one_storage_separately_when_they_differ():
    base = torch.zeros(4, 3)
    assert pitfalls.count_unique_elements([base, base, base[0], base[1]]) == 12 + 3 + 3


@pytest.mark.parametrize("bad, text", [
    (torch.zeros(3), "iterable of tensors"),
    ([torch.zeros(2), "x"], "every item must be a torch.Tensor; got str"),
    ([torch.zeros(2, device="meta")], "meta tensors"),
])
def test_count_unique_elements_rejects_bad_input(bad, text):
    with pytest.raises((TypeError, ValueError), match=text):
        pitfalls.count_unique_elements(bad)


def test_parameter_counts_rejects_non_module():
    with pytest.raises(TypeError, match="model must be an nn.Module; got dict"):
        pitfalls.parameter_counts({})


# -- saving and loading ----------------------------------------------------------------------------
def test_torch_checkpoint_stores_a_tie_once_and_deterministically():
    torch.manual_seed(0)
    tied, untied = TinyLM(200, 16, tie=True), TinyLM(200, 16, tie=False)
    size_tied, loaded = pitfalls.torch_checkpoint(tied.state_dict())
    size_untied, _ = pitfalls.torch_checkpoint(untied.state_dict())
    assert size_untied - size_tied >= 200 * 16 * 4
    assert pitfalls.torch_checkpoint(tied.state_dict())[0] == size_tied
    assert loaded["head.weight"].untyped_storage().data_ptr() == loaded["embedding.weight"].untyped_storage().data_ptr()


def test_safetensors_save_file_refuses_a_tie_and_accepts_untied():
    message = pitfalls.safetensors_save_file_error(TinyLM(10, 4, tie=True).state_dict())
    assert message.startswith("Some tensors share memory") and "[['embedding.weight', 'head.weight']]" in message
    assert pitfalls.safetensors_save_file_error(TinyLM(10, 4, tie=False).state_dict()) is None


def test_safetensors_checkpoint_keeps_one_copy_and_retie_restores_the_tie():
    torch.manual_seed(0)
    tied = TinyLM(10, 4, tie=True)
    _, stored = pitfalls.safetensors_checkpoint(tied)
    assert "head.weight" not in stored and "embedding.weight" in stored
    restored = pitfalls.load_untied_checkpoint_and_retie(TinyLM(10, 4, tie=False), stored)
    assert restored.tied and torch.equal(restored.head.weight, tied.head.weight)


@pytest.mark.parametrize("call, error, text", [
    (lambda: pitfalls.torch_checkpoint([1, 2]), TypeError, "state_dict must be a mapping of names to tensors"),
    (lambda: pitfalls.safetensors_save_file_error({"a": 1}), TypeError, "state_dict must be a mapping"),
    (lambda: pitfalls.safetensors_checkpoint("model"), TypeError, "model must be an nn.Module; got str"),
    (lambda: pitfalls.load_untied_checkpoint_and_retie(nn.Linear(2, 2), {}), TypeError, "model must be a TinyLM"),
    (lambda: pitfalls.load_untied_checkpoint_and_retie(TinyLM(10, 4), {"x": torch.zeros(1)}), ValueError,
     "checkpoint does not match the model"),
])
def test_checkpoint_helpers_reject_bad_input(call, error, text):
    with pytest.raises(error, match=text):
        call()


# -- decay groups, untying -------------------------------------------------------------------------
def test_decay_groups_put_the_tied_matrix_in_exactly_one_group():
    model = TinyLM(10, 4, tie=True)
    groups = pitfalls.decay_groups(model, 0.1)
    torch.optim.AdamW(groups)  # would raise if a Parameter were in two groups
    hits = [sum(p is model.embedding.weight for p in g["params"]) for g in groups]
    assert hits == [1, 0]
    assert sum(len(g["params"]) for g in groups) == len(list(model.parameters()))
    assert all(p.dim() < 2 for p in groups[1]["params"])


@pytest.mark.parametrize("args, error, text", [
    (("model", 0.1), TypeError, "model must be an nn.Module"),
    ((None, -1.0), ValueError, r"weight_decay must be a number >= 0; got -1.0"),
    ((None, True), ValueError, "weight_decay must be a number >= 0; got True"),
])
def test_decay_groups_reject_bad_input(args, error, text):
    model = TinyLM(10, 4) if args[0] is None else args[0]
    with pytest.raises(error, match=text):
        pitfalls.decay_groups(model, args[1])


def test_untie_for_finetuning_reports_the_cost_and_unties():
    model = TinyLM(30, 4, tie=True)
    out = pitfalls.untie_for_finetuning(model)
    assert out["parameters after"] - out["parameters before"] == 30 * 4
    assert out["weight bytes after"] - out["weight bytes before"] == 30 * 4 * 4
    assert out["values still equal"] and not out["one Parameter"] and not out["one storage"]
    assert not model.tied


def test_untie_for_finetuning_rejects_bad_input():
    with pytest.raises(ValueError, match="nothing to untie"):
        pitfalls.untie_for_finetuning(TinyLM(10, 4, tie=False))
    with pytest.raises(TypeError, match="model must be a TinyLM"):
        pitfalls.untie_for_finetuning(nn.Linear(2, 2))


def test_in_optimiser_uses_identity_not_values():
    p = nn.Parameter(torch.ones(2))
    optimiser = torch.optim.SGD([p], lr=0.1)
    assert pitfalls.in_optimiser(p, optimiser)
    assert not pitfalls.in_optimiser(nn.Parameter(torch.ones(2)), optimiser)


# -- transformers and compile ----------------------------------------------------------------------
def test_tiny_gpt2_ties_by_config_and_resize_keeps_it():
    model = pitfalls.tiny_gpt2(vocab_size=40, tie=True)
    assert pitfalls.gpt2_is_tied(model)
    assert not pitfalls.gpt2_is_tied(pitfalls.tiny_gpt2(vocab_size=40, tie=False))
    model.resize_token_embeddings(48, mean_resizing=False)
    assert pitfalls.gpt2_is_tied(model) and model.lm_head.weight.shape == (48, 16)
    model.transformer.wte = nn.Embedding(50, 16)
    assert not pitfalls.gpt2_is_tied(model)


@pytest.mark.parametrize("kwargs, error, text", [
    ({"vocab_size": 1}, ValueError, "vocab_size must be an integer >= 2; got 1"),
    ({"tie": "yes"}, TypeError, "tie must be True or False"),
])
def test_tiny_gpt2_rejects_bad_input(kwargs, error, text):
    with pytest.raises(error, match=text):
        pitfalls.tiny_gpt2(**kwargs)


def test_compiled_step_check_eager_backend_matches_and_keeps_tie():
    out = pitfalls.compiled_step_check(backend="eager", steps=2)
    assert out["tie holds after compiled steps"] and out["max |compiled − eager| weight"] < 1e-6


def test_compiled_step_check_rejects_bad_input():
    with pytest.raises(ValueError, match=r"backend must be one of \['eager', 'aot_eager', 'inductor'\]; got 'tvm'"):
        pitfalls.compiled_step_check(backend="tvm")
    with pytest.raises(ValueError, match="steps must be an integer >= 1"):
        pitfalls.compiled_step_check(steps=0)


def test_tied_bigram_is_tied_and_trains():
    model = pitfalls.TiedBigram(8, 4)
    assert model.head.weight is model.embedding.weight
    loss = F.cross_entropy(model(torch.tensor([1, 2])), torch.tensor([2, 3]))
    loss.backward()
    assert model.embedding.weight.grad is not None
