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


WRONG = {
    "not_in_optimiser": {"compared_values": optimiser_compared_by_values,
                         "compared_memory": optimiser_compared_by_memory,
                         "tensor_in_list": optimiser_checked_with_in},
    "count_checkpoint_parameters": {"counted_tie_twice": count_every_entry,
                                    "same_storage_once": count_once_per_storage,
                                    "same_start_once": count_once_per_start_address},
    "untie_and_register": {"still_shared": untie_without_a_copy,
                           "not_registered": untie_and_forget_the_optimiser,
                           "default_settings": untie_and_add_a_default_group},
}

SHORTCUTS = {
    "not_in_optimiser": [optimiser_answer_from_the_lessons_helper, optimiser_answer_as_one_string,
                         optimiser_answer_as_parameters],
    "count_checkpoint_parameters": [count_with_the_lessons_helper, count_once_per_view, count_as_a_float,
                                    count_as_a_tensor],
    "untie_and_register": [untie_the_embedding_instead, untie_into_a_new_optimiser, untie_into_the_group_twice,
                           untie_with_a_frozen_head],
}
