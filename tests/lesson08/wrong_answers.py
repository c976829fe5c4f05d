"""Lesson 08: one wrong answer per diagnosed mistake, the shortcuts each check must refuse, plausible wrong answers
caught without a named mistake (each must say where it differs), and more answers that make a named mistake (ALSO)."""

import torch
from torch import nn

# -- linear_only_groups ------------------------------------------------------------------------------------------


def _groups(decay, no_decay, weight_decay):
    return [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]


def groups_module_by_module(model, weight_decay):  # §4's module-type rule: the shared matrix gets two verdicts
    decay, no_decay = [], []
    for module in model.modules():
        for name, p in module.named_parameters(recurse=False):
            (decay if isinstance(module, nn.Linear) and name == "weight" else no_decay).append(p)
    return _groups(decay, no_decay, weight_decay)


def groups_shared_listed_twice(model, weight_decay):  # tables first, then Linear weights not already decayed
    decay, no_decay = [], []
    for module in model.modules():
        for name, p in module.named_parameters(recurse=False):
            if isinstance(module, nn.Linear) and name == "weight" and p is not model.embedding.weight:
                decay.append(p)
            else:
                no_decay.append(p)
    return _groups(decay, no_decay, weight_decay)


def groups_by_dimension(model, weight_decay):  # §4's rule, not this exercise's
    params = list(model.parameters())
    return _groups([p for p in params if p.dim() >= 2], [p for p in params if p.dim() < 2], weight_decay)


def groups_linear_wins(model, weight_decay):  # every Linear weight decayed, the shared one included
    linear = {id(m.weight) for m in model.modules() if isinstance(m, nn.Linear)}
    params = list(model.parameters())
    return _groups([p for p in params if id(p) in linear], [p for p in params if id(p) not in linear], weight_decay)


def groups_linear_biases_too(model, weight_decay):  # every parameter of a Linear decayed
    tables = {id(m.weight) for m in model.modules() if isinstance(m, nn.Embedding)}
    linear = {id(p) for m in model.modules() if isinstance(m, nn.Linear) for p in m.parameters()} - tables
    params = list(model.parameters())
    return _groups([p for p in params if id(p) in linear], [p for p in params if id(p) not in linear], weight_decay)


def groups_by_name(model, weight_decay):  # decay names ending in "weight" except "embedding": LayerNorm gains too
    named = list(model.named_parameters())
    decay = [p for n, p in named if n.endswith("weight") and "embedding" not in n and "positions" not in n]
    return _groups(decay, [p for p in model.parameters() if not any(p is q for q in decay)], weight_decay)


def groups_forgetting_positions(model, weight_decay):  # the position table is in neither group
    decay = [m.weight for m in model.modules() if isinstance(m, nn.Linear) and m.weight is not model.embedding.weight]
    no_decay = [model.embedding.weight] + [p for p in model.parameters() if p.dim() < 2]
    return _groups(decay, no_decay, weight_decay)


def groups_swapped(model, weight_decay):
    decay, no_decay = (g["params"] for g in groups_linear_biases_too(model, weight_decay))
    return [{"params": no_decay, "weight_decay": 0.0}, {"params": decay, "weight_decay": weight_decay}]


def groups_as_tuple(model, weight_decay):
    return tuple(groups_by_dimension(model, weight_decay))


# -- load_shared_checkpoint ----------------------------------------------------------------------------------------


def load_strict(model, tensors):  # the file has no "head.weight"
    model.load_state_dict(tensors)
    return model


def load_not_strict(model, tensors):  # the untied head keeps its random values
    model.load_state_dict(tensors, strict=False)
    return model


def load_and_retie(model, tensors):
    model.load_state_dict(tensors, strict=False)
    model.head.weight = model.embedding.weight
    return model


def load_by_new_parameters(model, tensors):  # replaces the embedding's Parameter: the tied head keeps the old one
    model.load_state_dict(tensors, strict=False)
    model.embedding.weight = nn.Parameter(tensors["embedding.weight"].clone())
    model.head.weight = nn.Parameter(tensors["embedding.weight"].clone())
    return model


def load_sharing_memory(model, tensors):  # untied: two Parameters over one storage
    state = dict(tensors)
    model.load_state_dict(state, strict=False)
    if model.head.weight is not model.embedding.weight:
        model.head.weight = nn.Parameter(model.embedding.weight.data)
    return model


def load_returns_nothing(model, tensors):
    state = dict(tensors)
    state["head.weight"] = state["embedding.weight"]
    model.load_state_dict(state)


def load_copies_into_a_new_model(model, tensors):
    import copy

    other = copy.deepcopy(model)
    state = dict(tensors)
    state["head.weight"] = state["embedding.weight"]
    other.load_state_dict(state)
    return other


def load_only_the_embedding(model, tensors):  # loads one tensor by hand; the untied head stays random
    with torch.no_grad():
        model.embedding.weight.copy_(tensors["embedding.weight"])
    model.load_state_dict(tensors, strict=False)
    return model


# -- widest_tied -----------------------------------------------------------------------------------------------------


def _size(vocab_size, d, n_layers, context, tie, state_dict=False, positions=True, final_norm=True):
    shared = 2 if (state_dict or not tie) else 1
    return (shared * vocab_size * d + (context * d if positions else 0) + n_layers * (12 * d * d + 13 * d)
            + (2 * d if final_norm else 0))


def _widest(vocab_size, d_model, n_layers, n_heads, context, *, step, state_dict=False, over=False, strict=False,
            **parts):
    budget = _size(vocab_size, d_model, n_layers, context, False, **parts)
    d = step
    while True:
        size = _size(vocab_size, d + step, n_layers, context, True, state_dict, **parts)
        if size > budget or (strict and size == budget):
            return d + step if over else d
        d += step


def width_counting_state_dict(vocab_size, d_model, n_layers, n_heads, context):
    return _widest(vocab_size, d_model, n_layers, n_heads, context, step=n_heads, state_dict=True)


def width_any_integer(vocab_size, d_model, n_layers, n_heads, context):
    return _widest(vocab_size, d_model, n_layers, n_heads, context, step=1)


def width_one_step_over(vocab_size, d_model, n_layers, n_heads, context):
    return _widest(vocab_size, d_model, n_layers, n_heads, context, step=n_heads, over=True)


def width_without_positions(vocab_size, d_model, n_layers, n_heads, context):
    return _widest(vocab_size, d_model, n_layers, n_heads, context, step=n_heads, positions=False)


def width_without_final_norm(vocab_size, d_model, n_layers, n_heads, context):
    return _widest(vocab_size, d_model, n_layers, n_heads, context, step=n_heads, final_norm=False)


def width_doubled(vocab_size, d_model, n_layers, n_heads, context):
    return 2 * d_model


def width_without_blocks(vocab_size, d_model, n_layers, n_heads, context):  # only the V·d terms: far too wide
    return (2 * vocab_size * d_model) // vocab_size // n_heads * n_heads


def width_linear_only(vocab_size, d_model, n_layers, n_heads, context):  # forgot the d² terms of the blocks
    budget = 2 * vocab_size * d_model + context * d_model + n_layers * 13 * d_model
    d = n_heads
    while vocab_size * (d + n_heads) + context * (d + n_heads) + n_layers * 13 * (d + n_heads) <= budget:
        d += n_heads
    return d


def width_as_float(vocab_size, d_model, n_layers, n_heads, context):
    return float(_widest(vocab_size, d_model, n_layers, n_heads, context, step=n_heads))



def groups_by_equal_values(model, weight_decay):  # "the same matrix" decided by torch.equal, not identity
    linear = [m.weight for m in model.modules() if isinstance(m, nn.Linear)]
    tables = [m.weight for m in model.modules() if isinstance(m, nn.Embedding)]
    decay, no_decay = [], []
    for p in model.parameters():
        is_linear = any(p.shape == q.shape and torch.equal(p, q) for q in linear)
        is_table = any(p.shape == q.shape and torch.equal(p, q) for q in tables)
        (decay if is_linear and not is_table else no_decay).append(p)
    return [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]


def groups_head_excluded_by_name(model, weight_decay):  # the module named "head" left out, tied or not
    linear = {id(m.weight) for name, m in model.named_modules() if isinstance(m, nn.Linear) and name != "head"}
    decay = [p for p in model.parameters() if id(p) in linear]
    return _groups(decay, [p for p in model.parameters() if id(p) not in linear], weight_decay)


def groups_under_another_key(model, weight_decay):  # the right split, the key spelled "wd"
    linear = {id(m.weight) for m in model.modules() if isinstance(m, nn.Linear)}
    tables = {id(m.weight) for m in model.modules() if isinstance(m, nn.Embedding)}
    decay = [p for p in model.parameters() if id(p) in linear and id(p) not in tables]
    return [{"params": decay, "wd": weight_decay},
            {"params": [p for p in model.parameters() if not any(p is q for q in decay)], "wd": 0.0}]


def groups_from_children(model, weight_decay):  # model.children(): the Linears inside the blocks are missed
    linear = {id(m.weight) for m in model.children() if isinstance(m, nn.Linear)}
    tables = {id(m.weight) for m in model.children() if isinstance(m, nn.Embedding)}
    decay = [p for p in model.parameters() if id(p) in linear and id(p) not in tables]
    return _groups(decay, [p for p in model.parameters() if not any(p is q for q in decay)], weight_decay)


def load_transposed_head(model, tensors):  # "the head is Eᵀ"
    state = dict(tensors)
    state["head.weight"] = state["embedding.weight"].T
    model.load_state_dict(state)
    return model


def load_returns_its_report(model, tensors):
    state = dict(tensors)
    state["head.weight"] = state["embedding.weight"]
    return model.load_state_dict(state)


def width_stepping_by_head_size(vocab_size, d_model, n_layers, n_heads, context):
    return _widest(vocab_size, d_model, n_layers, n_heads, context, step=d_model // n_heads)


def groups_in_the_other_order(model, weight_decay):  # the right split, the no-decay group first
    decay, no_decay = (g["params"] for g in _right_groups(model, weight_decay))
    return [{"params": no_decay, "weight_decay": 0.0}, {"params": decay, "weight_decay": weight_decay}]


def _right_groups(model, weight_decay):
    linear = {id(m.weight) for m in model.modules() if isinstance(m, nn.Linear)}
    tables = {id(m.weight) for m in model.modules() if isinstance(m, nn.Embedding)}
    decay = [p for p in model.parameters() if id(p) in linear and id(p) not in tables]
    return _groups(decay, [p for p in model.parameters() if not any(p is q for q in decay)], weight_decay)


def groups_tables_in_neither(model, weight_decay):  # "no decay" taken for "the vectors"
    linear = {id(m.weight) for m in model.modules() if isinstance(m, nn.Linear)}
    tables = {id(m.weight) for m in model.modules() if isinstance(m, nn.Embedding)}
    decay = [p for p in model.parameters() if id(p) in linear and id(p) not in tables]
    return _groups(decay, [p for p in model.parameters() if p.dim() == 1], weight_decay)


def _widest_with_block(vocab_size, d_model, n_layers, n_heads, context, block, layers=None):
    def size(d, tie):
        return (1 if tie else 2) * vocab_size * d + context * d + (layers or n_layers) * block(d) + 2 * d

    budget, d = size(d_model, False), n_heads
    while size(d + n_heads, True) <= budget:
        d += n_heads
    return d


def width_attention_only_block(vocab_size, d_model, n_layers, n_heads, context):
    return _widest_with_block(vocab_size, d_model, n_layers, n_heads, context, lambda d: 4 * d * d + 4 * d)


def width_mlp_of_width_d(vocab_size, d_model, n_layers, n_heads, context):  # d → d → d
    return _widest_with_block(vocab_size, d_model, n_layers, n_heads, context, lambda d: 6 * d * d + 10 * d)


def width_one_block(vocab_size, d_model, n_layers, n_heads, context):  # n_layers forgotten
    return _widest_with_block(vocab_size, d_model, n_layers, n_heads, context, lambda d: 12 * d * d + 13 * d, layers=1)


WRONG = {
    "linear_only_groups": {"in_both_groups": groups_module_by_module,
                           "listed_twice": groups_shared_listed_twice,
                           "dim_rule": groups_by_dimension,
                           "shared_decayed": groups_linear_wins,
                           "decayed_vectors": groups_linear_biases_too,
                           "compared_values": groups_by_equal_values,
                           "head_left_undecayed": groups_head_excluded_by_name,
                           "other_key": groups_under_another_key, "top_level_only": groups_from_children,
                           "swapped_groups": groups_in_the_other_order, "in_neither_group": groups_tables_in_neither},
    "load_shared_checkpoint": {"missing_head_key": load_strict,
                               "head_left_random": load_not_strict,
                               "tied_the_untied": load_and_retie,
                               "broke_the_tie": load_by_new_parameters,
                               "transposed_head": load_transposed_head,
                               "returned_load_result": load_returns_its_report},
    "widest_tied": {"counted_tie_twice": width_counting_state_dict,
                    "ignored_heads": width_any_integer,
                    "over_budget": width_one_step_over,
                    "doubled": width_doubled,
                    "no_positions": width_without_positions,
                    "step_of_head_size": width_stepping_by_head_size,
                    "attention_only_block": width_attention_only_block,
                    "mlp_as_wide_as_the_model": width_mlp_of_width_d, "one_block": width_one_block},
}

SHORTCUTS = {
    "linear_only_groups": [groups_as_tuple],
    "load_shared_checkpoint": [load_returns_nothing],
    "widest_tied": [width_as_float],
}

CAUGHT = {
    "linear_only_groups": [groups_swapped],
    "load_shared_checkpoint": [load_sharing_memory, load_copies_into_a_new_model],
    "widest_tied": [width_without_blocks, width_linear_only],
}

ALSO = {  # more answers that make a named mistake: exercise -> {mistake: answer}
    "linear_only_groups": {"decayed_vectors": groups_by_name, "in_neither_group": groups_forgetting_positions},
    "load_shared_checkpoint": {"head_left_random": load_only_the_embedding},
    "widest_tied": {"over_budget": width_without_final_norm},   # 2·d short: one step too wide in the fifth case
}
