"""Reference solutions, lesson 07 (weight tying in practice)."""

from torch import nn


def not_in_optimiser(model, optimiser):
    """Names (as model.named_parameters() gives them) of the Parameters the optimiser will never update."""
    known = {id(p) for group in optimiser.param_groups for p in group["params"]}
    return sorted(name for name, p in model.named_parameters() if id(p) not in known)


def count_checkpoint_parameters(state_dict):
    """Numbers a state dict holds in memory: an element read under several keys (a tied matrix, or views
    into one buffer) is counted once."""
    read = {}  # storage address -> positions in that storage that some tensor reads
    for tensor in state_dict.values():
        start = tensor.storage_offset()  # a contiguous tensor reads numel() positions from its start
        read.setdefault(tensor.untyped_storage().data_ptr(), set()).update(range(start, start + tensor.numel()))
    return sum(len(positions) for positions in read.values())


def untie_and_register(model, optimiser):
    """Give the head its own copy of the tied matrix, trained with the settings the tied matrix had."""
    tied = model.head.weight
    model.head.weight = nn.Parameter(tied.detach().clone())  # same values, memory of its own
    group = next(g for g in optimiser.param_groups if any(p is tied for p in g["params"]))
    settings = {key: value for key, value in group.items() if key != "params"}
    optimiser.add_param_group({"params": [model.head.weight], **settings})
