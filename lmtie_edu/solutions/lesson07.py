"""Reference solutions, lesson 07 (weight tying in practice)."""

from torch import nn


def not_in_optimiser(model, optimiser):
    """Names (as model.named_parameters() gives them) of the Parameters the optimiser will never update."""
    known = {id(p) for group in optimiser.param_groups for p in group["params"]}
    return sorted(name for name, p in model.named_parameters() if id(p) not in known)


def count_checkpoint_parameters(state_dict):
    """Elements of a state dict, each piece of memory counted once (a tied matrix has two keys)."""
    seen, total = set(), 0
    for tensor in state_dict.values():
        key = (tensor.untyped_storage().data_ptr(), tensor.storage_offset(), tuple(tensor.shape))
        if key not in seen:
            seen.add(key)
            total += tensor.numel()
    return total


def untie_and_register(model, optimiser):
    """Give the head its own copy of the tied matrix AND tell the optimiser about the new Parameter."""
    model.head.weight = nn.Parameter(model.head.weight.detach().clone())
    optimiser.add_param_group({"params": [model.head.weight]})
