"""Reference solutions of the lesson 08 exercises (used by the checks, the tests and ``make solutions``)."""

from torch import nn


def linear_only_groups(model, weight_decay):
    linear = {id(m.weight) for m in model.modules() if isinstance(m, nn.Linear)}
    tables = {id(m.weight) for m in model.modules() if isinstance(m, nn.Embedding)}
    decay, no_decay = [], []
    for p in model.parameters():                       # each Parameter once, a shared one included
        if id(p) in linear and id(p) not in tables:    # a Linear weight that is not also a lookup table
            decay.append(p)
        else:
            no_decay.append(p)
    return [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]


def load_shared_checkpoint(model, tensors):
    state = dict(tensors)
    state["head.weight"] = state["embedding.weight"]   # the key save_model left out is the same matrix
    model.load_state_dict(state)                       # copies values into the model's own Parameters
    return model


def widest_tied(vocab_size, d_model, n_layers, n_heads, context):
    def size(d, tie):
        block = 12 * d * d + 13 * d                    # two LayerNorms, qkv, proj, the MLP's two layers
        return (1 if tie else 2) * vocab_size * d + context * d + n_layers * block + 2 * d

    budget = size(d_model, tie=False)
    d = n_heads
    while size(d + n_heads, tie=True) <= budget:
        d += n_heads
    return d
