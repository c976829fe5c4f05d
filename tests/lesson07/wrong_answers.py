"""Lesson 07: answers that make each known mistake, and answers that take a forbidden route."""

import torch
from torch import nn

from lmtie_edu.lesson07 import checkpoints, pitfalls


# -- not_in_optimiser ---------------------------------------------------------------------------------
def _held(optimiser):
    return [p for group in optimiser.param_groups for p in group["params"]]


def optimiser_compared_by_values(model, optimiser):
    held = _held(optimiser)
    return sorted(n for n, p in model.named_parameters()
                  if not any(p.shape == q.shape and bool((p == q).all()) for q in held))


def optimiser_compared_by_memory(model, optimiser):
    held = {q.data_ptr() for q in _held(optimiser)}
    return sorted(n for n, p in model.named_parameters() if p.data_ptr() not in held)


def optimiser_checked_with_in(model, optimiser):
    held = _held(optimiser)
    return sorted(n for n, p in model.named_parameters() if p not in held)


def optimiser_looked_in_the_first_group_only(model, optimiser):
    held = {id(p) for p in optimiser.param_groups[0]["params"]}
    return sorted(n for n, p in model.named_parameters() if id(p) not in held)


def optimiser_names_in_model_order(model, optimiser):  # right names, not sorted
    held = {id(p) for p in _held(optimiser)}
    return [n for n, p in model.named_parameters() if id(p) not in held]


def optimiser_listed_tied_names_twice(model, optimiser):
    held = {id(p) for p in _held(optimiser)}
    return sorted(n for n, p in model.named_parameters(remove_duplicate=False) if id(p) not in held)


def optimiser_looked_at_the_state_dict(model, optimiser):  # its tensors are detached: never the Parameters
    held = {id(p) for p in _held(optimiser)}
    return sorted(n for n, p in model.state_dict().items() if id(p) not in held)


def optimiser_looked_in_its_state(model, optimiser):  # optimiser.state is filled at the first step
    return sorted(n for n, p in model.named_parameters() if p not in optimiser.state)


def optimiser_compared_positions(model, optimiser):
    held = len(_held(optimiser))
    return sorted(n for i, (n, _) in enumerate(model.named_parameters()) if i >= held)


def optimiser_fixed_instead_of_reporting(model, optimiser):  # issue 24: it used to get ✅
    held = {id(p) for p in _held(optimiser)}
    missing = [p for _, p in model.named_parameters() if id(p) not in held]
    if missing:
        optimiser.add_param_group({"params": missing})
    return []


def optimiser_right_then_cleared(model, optimiser):  # issue 24: right names, then the optimiser emptied
    held = {id(p) for p in _held(optimiser)}
    names = sorted(n for n, p in model.named_parameters() if id(p) not in held)
    optimiser.param_groups.clear()
    return names


def optimiser_answer_from_the_lessons_helper(model, optimiser):
    return sorted(n for n, p in model.named_parameters() if not pitfalls.in_optimiser(p, optimiser))


def optimiser_answer_as_one_string(model, optimiser):
    known = {id(p) for group in optimiser.param_groups for p in group["params"]}
    return ", ".join(sorted(n for n, p in model.named_parameters() if id(p) not in known))


def optimiser_answer_as_parameters(model, optimiser):
    known = {id(p) for group in optimiser.param_groups for p in group["params"]}
    return [p for _, p in model.named_parameters() if id(p) not in known]


# -- count_checkpoint_parameters ----------------------------------------------------------------------
def count_every_entry(state_dict):
    return sum(t.numel() for t in state_dict.values())


def _count_once_per(key):
    def count(state_dict):
        seen, total = set(), 0
        for t in state_dict.values():
            if key(t) not in seen:
                seen.add(key(t))
                total += t.numel()
        return total
    return count


count_once_per_storage = _count_once_per(lambda t: t.untyped_storage().data_ptr())
count_once_per_start_address = _count_once_per(lambda t: t.data_ptr())
count_once_per_view = _count_once_per(lambda t: (t.untyped_storage().data_ptr(), t.storage_offset(), t.shape))


def count_whole_storages(state_dict):  # issue 23: it used to pass (40 for {"part": big[:2]}, not 8)
    sizes = {t.untyped_storage().data_ptr(): t.untyped_storage().nbytes() // t.element_size()
             for t in state_dict.values()}
    return sum(sizes.values())


def count_bytes_as_elements(state_dict):
    read = set()
    for t in state_dict.values():
        read.update(range(t.data_ptr(), t.data_ptr() + t.numel()))
    return len(read)


def count_first_to_last(state_dict):  # from the first element read to the last, per storage
    low, high = {}, {}
    for t in state_dict.values():
        key, start = t.untyped_storage().data_ptr(), t.storage_offset()
        low[key] = min(low.get(key, start), start)
        high[key] = max(high.get(key, start), start + t.numel())
    return sum(high[key] - low[key] for key in low)


def count_up_to_the_last(state_dict):  # from the storage's start to the last element read
    high = {}
    for t in state_dict.values():
        key = t.untyped_storage().data_ptr()
        high[key] = max(high.get(key, 0), t.storage_offset() + t.numel())
    return sum(high.values())


def count_from_offset_to_numel(state_dict):
    read = {}
    for t in state_dict.values():
        read.setdefault(t.untyped_storage().data_ptr(), set()).update(range(t.storage_offset(), t.numel()))
    return sum(len(positions) for positions in read.values())


def count_equal_values_once(state_dict):
    kept = []
    for t in state_dict.values():
        if not any(t.shape == u.shape and torch.equal(t, u) for u in kept):
            kept.append(t)
    return sum(t.numel() for t in kept)


def count_once_per_tensor_object(state_dict):  # a model's state_dict() detaches each key on its own
    return sum({id(t): t.numel() for t in state_dict.values()}.values())


def count_with_the_lessons_helper(state_dict):
    return checkpoints.count_unique_elements(state_dict)


def _count_exactly(state_dict):
    read = set()
    for t in state_dict.values():
        read.update((t.untyped_storage().data_ptr(), i) for i in range(t.storage_offset(), t.storage_offset() + t.numel()))
    return len(read)


def count_as_a_float(state_dict):
    return float(_count_exactly(state_dict))


def count_as_a_tensor(state_dict):
    return torch.tensor(_count_exactly(state_dict))


# -- untie_and_register -------------------------------------------------------------------------------
def _group_of(parameter, optimiser):
    return next(g for g in optimiser.param_groups if any(p is parameter for p in g["params"]))


def untie_without_a_copy(model, optimiser):
    settings = {k: v for k, v in _group_of(model.head.weight, optimiser).items() if k != "params"}
    model.head.weight = nn.Parameter(model.head.weight.detach())  # new object, same memory
    optimiser.add_param_group({"params": [model.head.weight], **settings})


def untie_and_forget_the_optimiser(model, optimiser):
    model.head.weight = nn.Parameter(model.head.weight.detach().clone())


def untie_and_add_a_default_group(model, optimiser):
    model.head.weight = nn.Parameter(model.head.weight.detach().clone())
    optimiser.add_param_group({"params": [model.head.weight]})


def untie_into_the_first_group(model, optimiser):  # right only when the matrices' group comes first
    model.head.weight = nn.Parameter(model.head.weight.detach().clone())
    optimiser.param_groups[0]["params"].append(model.head.weight)


def untie_with_settings_copied_from_the_check(model, optimiser):  # the first case's numbers, hard-coded
    model.head.weight = nn.Parameter(model.head.weight.detach().clone())
    optimiser.add_param_group({"params": [model.head.weight], "lr": 0.02, "weight_decay": 0.1})


def untie_with_only_the_learning_rate(model, optimiser):
    group = _group_of(model.head.weight, optimiser)
    model.head.weight = nn.Parameter(model.head.weight.detach().clone())
    optimiser.add_param_group({"params": [model.head.weight], "lr": group["lr"]})


def untie_over_data(model, optimiser):  # .data is the same memory, like .detach()
    group = _group_of(model.head.weight, optimiser)
    model.head.weight = nn.Parameter(model.head.weight.data)
    group["params"].append(model.head.weight)


def untie_into_a_local_new_optimiser(model, optimiser):  # rebinding the name leaves the caller's optimiser
    model.head.weight = nn.Parameter(model.head.weight.detach().clone())
    optimiser = torch.optim.AdamW(model.parameters(), lr=0.02)  # noqa: F841


def untie_both_matrices(model, optimiser):
    settings = {k: v for k, v in _group_of(model.head.weight, optimiser).items() if k != "params"}
    model.embedding.weight = nn.Parameter(model.embedding.weight.detach().clone())
    model.head.weight = nn.Parameter(model.head.weight.detach().clone())
    optimiser.add_param_group({"params": [model.embedding.weight, model.head.weight], **settings})


def untie_with_a_new_linear(model, optimiser):  # a fresh nn.Linear: new random values
    settings = {k: v for k, v in _group_of(model.head.weight, optimiser).items() if k != "params"}
    model.head = nn.Linear(model.head.in_features, model.head.out_features, bias=False)
    optimiser.add_param_group({"params": [model.head.weight], **settings})


def untie_and_match_the_old_group_to_the_defaults(model, optimiser):
    group = _group_of(model.head.weight, optimiser)
    model.head.weight = nn.Parameter(model.head.weight.detach().clone())
    optimiser.add_param_group({"params": [model.head.weight]})
    group.update({k: v for k, v in optimiser.defaults.items() if k in ("lr", "weight_decay")})


def untie_the_embedding_instead(model, optimiser):
    group = _group_of(model.embedding.weight, optimiser)
    model.embedding.weight = nn.Parameter(model.embedding.weight.detach().clone())
    group["params"].append(model.embedding.weight)


def untie_into_a_new_optimiser(model, optimiser):
    model.head.weight = nn.Parameter(model.head.weight.detach().clone())
    return type(optimiser)(model.parameters(), lr=0.02, weight_decay=0.1)  # a new optimiser the caller ignores


def untie_into_the_group_twice(model, optimiser):
    model.head.weight = nn.Parameter(model.head.weight.detach().clone())
    for group in optimiser.param_groups:
        group["params"].append(model.head.weight)


def untie_with_a_frozen_head(model, optimiser):
    group = _group_of(model.head.weight, optimiser)
    model.head.weight = nn.Parameter(model.head.weight.detach().clone(), requires_grad=False)
    group["params"].append(model.head.weight)


def optimiser_inverted(model, optimiser):  # the names the optimiser does hold
    held = {id(p) for p in _held(optimiser)}
    return sorted(n for n, p in model.named_parameters() if id(p) in held)


def optimiser_looked_in_the_last_group_only(model, optimiser):
    held = {id(p) for p in optimiser.param_groups[-1]["params"]}
    return sorted(n for n, p in model.named_parameters() if id(p) not in held)


def count_positions_without_storage(state_dict):  # positions pooled across storages
    read = set()
    for t in state_dict.values():
        read.update(range(t.storage_offset(), t.storage_offset() + t.numel()))
    return len(read)


def count_skipping_the_head_key(state_dict):  # the tie hard-coded as a key name
    return sum(t.numel() for key, t in state_dict.items() if key != "head.weight")


def count_distinct_values(state_dict):
    return int(torch.cat([t.flatten().float() for t in state_dict.values()]).unique().numel())


def untie_with_a_group_copied_with_its_params(model, optimiser):  # old Parameters in the new group too
    tied = model.head.weight
    group = _group_of(tied, optimiser)
    model.head.weight = nn.Parameter(tied.detach().clone())
    optimiser.add_param_group({**group, "params": [*group["params"], model.head.weight]})


def untie_transposed(model, optimiser):  # "the head is Eᵀ"
    tied = model.head.weight
    settings = {k: v for k, v in _group_of(tied, optimiser).items() if k != "params"}
    model.head.weight = nn.Parameter(tied.detach().clone().T)
    optimiser.add_param_group({"params": [model.head.weight], **settings})


def untie_by_replacing_data(model, optimiser):  # still one Parameter, now over new memory
    model.head.weight.data = model.head.weight.detach().clone()


def optimiser_compared_by_shape(model, optimiser):
    known = {tuple(p.shape) for group in optimiser.param_groups for p in group["params"]}
    return sorted(name for name, p in model.named_parameters() if tuple(p.shape) not in known)


def optimiser_names_zipped_with_the_state_dict(model, optimiser):  # a tied key shifts the names
    known = {id(p) for group in optimiser.param_groups for p in group["params"]}
    names = zip(model.state_dict().keys(), model.parameters(), strict=False)
    return sorted(name for name, p in names if id(p) not in known)


def count_each_view_once(state_dict):  # overlapping views still counted whole
    seen = {}
    for t in state_dict.values():
        seen[(t.untyped_storage().data_ptr(), t.storage_offset(), tuple(t.shape))] = t.numel()
    return sum(seen.values())


def count_once_per_shape(state_dict):
    seen = {}
    for t in state_dict.values():
        seen[tuple(t.shape)] = t.numel()
    return sum(seen.values())


def count_bytes(state_dict):  # the memory in bytes, each storage position once
    read = {}
    for t in state_dict.values():
        start = t.storage_offset() * t.element_size()
        read.setdefault(t.untyped_storage().data_ptr(), set()).update(range(start, start + t.nbytes))
    return sum(len(positions) for positions in read.values())


WRONG = {
    "not_in_optimiser": {"compared_values": optimiser_compared_by_values,
                         "compared_memory": optimiser_compared_by_memory,
                         "tensor_in_list": optimiser_checked_with_in,
                         "first_group_only": optimiser_looked_in_the_first_group_only,
                         "unsorted": optimiser_names_in_model_order, "inverted": optimiser_inverted,
                         "last_group_only": optimiser_looked_in_the_last_group_only,
                         "compared_shapes": optimiser_compared_by_shape,
                         "names_zipped_with_state_dict": optimiser_names_zipped_with_the_state_dict},
    "count_checkpoint_parameters": {"counted_tie_twice": count_every_entry,
                                    "same_storage_once": count_once_per_storage,
                                    "same_start_once": count_once_per_start_address,
                                    "whole_storage": count_whole_storages,
                                    "bytes_as_elements": count_bytes_as_elements,
                                    "positions_without_storage": count_positions_without_storage,
                                    "skipped_head_key": count_skipping_the_head_key,
                                    "counted_distinct_values": count_distinct_values,
                                    "same_view_once": count_each_view_once, "same_shape_once": count_once_per_shape,
                                    "counted_bytes": count_bytes},
    "untie_and_register": {"still_shared": untie_without_a_copy,
                           "not_registered": untie_and_forget_the_optimiser,
                           "default_settings": untie_and_add_a_default_group,
                           "group_with_old_params": untie_with_a_group_copied_with_its_params,
                           "transposed_head": untie_transposed, "replaced_data": untie_by_replacing_data},
}

SHORTCUTS = {
    "not_in_optimiser": [optimiser_answer_from_the_lessons_helper, optimiser_answer_as_one_string,
                         optimiser_answer_as_parameters],
    "count_checkpoint_parameters": [count_with_the_lessons_helper, count_once_per_view, count_as_a_float,
                                    count_as_a_tensor],
    "untie_and_register": [untie_the_embedding_instead, untie_into_a_new_optimiser, untie_into_the_group_twice,
                           untie_with_a_frozen_head],
}

# Wrong answers without a mistake of their own: each must fail and say what differs (and get no diagnosis,
# tests/lesson07/test_exercise_diagnoses.py).
CAUGHT = {
    "not_in_optimiser": [optimiser_listed_tied_names_twice, optimiser_looked_at_the_state_dict,
                         optimiser_looked_in_its_state, optimiser_compared_positions,
                         optimiser_fixed_instead_of_reporting, optimiser_right_then_cleared],
    "count_checkpoint_parameters": [count_first_to_last, count_up_to_the_last,
                                    count_from_offset_to_numel, count_equal_values_once],
    "untie_and_register": [untie_both_matrices, untie_with_a_new_linear,
                           untie_and_match_the_old_group_to_the_defaults],
}

# More wrong answers that make a named mistake (WRONG holds one per mistake).
ALSO = {
    "not_in_optimiser": [],
    "count_checkpoint_parameters": [(count_once_per_tensor_object, "counted_tie_twice")],
    "untie_and_register": [(untie_into_the_first_group, "default_settings"),
                           (untie_with_settings_copied_from_the_check, "default_settings"),
                           (untie_with_only_the_learning_rate, "default_settings"),
                           (untie_over_data, "still_shared"),
                           (untie_into_a_local_new_optimiser, "not_registered")],
}
