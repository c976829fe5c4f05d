"""Lesson 02: one wrong answer per diagnosed mistake, the shortcuts each check must refuse, and plausible wrong
answers without a named mistake (CAUGHT: each must fail and say what differs)."""

import copy

import torch
from torch import nn

# -- cosine_head -----------------------------------------------------------------------------------------------


def cosine_by_columns(W):
    return W / W.norm(dim=0, keepdim=True)


def cosine_in_place(W):
    W /= W.norm(dim=1, keepdim=True)
    return W


def cosine_without_keepdim(W):
    return W / W.norm(dim=1)


def cosine_as_list(W):
    return (W / W.norm(dim=1, keepdim=True)).tolist()


def cosine_as_numpy(W):
    return (W / W.norm(dim=1, keepdim=True)).numpy()


def cosine_by_matrix_norm(W):  # one number for the whole matrix: the rows keep their relative lengths
    return W / W.norm()


def cosine_unchanged(W):  # the plain head: still favours long vectors
    return W.clone()


def cosine_by_squared_norm(W):  # the square root forgotten: rows of length 1/|w_i|
    return W / (W**2).sum(dim=1, keepdim=True)


def cosine_by_l1_norm(W):
    return W / W.abs().sum(dim=1, keepdim=True)


def cosine_by_max_entry(W):
    return W / W.abs().max(dim=1, keepdim=True).values


def cosine_token_matrix(W):  # the token-token cosines, not the head
    unit = W / W.norm(dim=1, keepdim=True)
    return unit @ unit.T


def cosine_by_sqrt_of_norm(W):
    return W / W.norm(dim=1, keepdim=True).sqrt()


def cosine_by_row_sum(W):
    return W / W.sum(dim=1, keepdim=True)


def cosine_transposed(W):
    return (W / W.norm(dim=1, keepdim=True)).T


def cosine_by_row_std(W):
    return W / W.std(dim=1, keepdim=True)


def cosine_with_the_norm_clamped(W):
    return W / W.norm(dim=1, keepdim=True).clamp(min=1)


def cosine_centred(W):  # subtracts the common direction first: other angles
    centred = W - W.mean(dim=0)
    return centred / centred.norm(dim=1, keepdim=True)


# -- tokens_beating_self ----------------------------------------------------------------------------------------


def beating_including_self(W, i):
    logits = W @ W[i]
    return [j for j in range(len(W)) if logits[j] >= logits[i]]


def beating_by_norm(W, i):
    norms = W.norm(dim=1)
    return [j for j in range(len(W)) if norms[j] > norms[i]]


def beating_ties_included(W, i):  # excludes i, but ">=" keeps the tokens that only tie
    logits = W @ W[i]
    return [j for j in range(len(W)) if j != i and logits[j] >= logits[i]]


def beating_norm_not_squared(W, i):
    logits = W @ W[i]
    return [j for j in range(len(W)) if logits[j] > W[i].norm()]


def beating_by_logit_order(W, i):  # the right tokens, largest logit first
    logits = W @ W[i]
    return [int(j) for j in logits.argsort(descending=True) if logits[j] > logits[i]]


def beating_by_cosine(W, i):  # no token's cosine with e_i exceeds 1
    cosines = (W / W.norm(dim=1, keepdim=True)) @ (W[i] / W[i].norm())
    return [j for j in range(len(W)) if cosines[j] > cosines[i]]


def beating_by_distance(W, i):  # the nearest-vector reading: nothing is nearer to e_i than e_i
    distances = (W - W[i]).norm(dim=1)
    return [j for j in range(len(W)) if distances[j] < distances[i]]


def beating_by_absolute_logits(W, i):
    logits = (W @ W[i]).abs()
    return [int(j) for j in torch.nonzero(logits > logits[i]).flatten()]


def beating_own_norm(W, i):  # each logit against |e_j|², not |e_i|²
    logits = W @ W[i]
    return [int(j) for j in torch.nonzero(logits > (W * W).sum(dim=1)).flatten()]


def beating_by_positive_logit(W, i):
    logits = W @ W[i]
    return [j for j in range(len(W)) if j != i and logits[j] > 0]


def beating_counted_from_one(W, i):
    logits = W @ W[i]
    return [j + 1 for j in range(len(W)) if logits[j] > logits[i]]


def beating_squeezed(W, i):
    logits = W @ W[i]
    return torch.nonzero(logits > logits[i]).squeeze().tolist()   # an int when one token wins


def beating_as_tensor(W, i):
    logits = W @ W[i]
    return torch.nonzero(logits > logits[i]).flatten()


def beating_as_tensor_elements(W, i):
    logits = W @ W[i]
    return list(torch.nonzero(logits > logits[i]).flatten())


# -- tied_head_with_bias ----------------------------------------------------------------------------------------


def _head(embedding, *, transposed=False, bias=True, zero_bias=True, copy=False):
    V, d = embedding.weight.shape
    head = nn.Linear(V, d, bias=bias) if transposed else nn.Linear(d, V, bias=bias)
    head.weight = nn.Parameter(embedding.weight.detach().clone()) if copy else embedding.weight
    if bias and zero_bias:
        nn.init.zeros_(head.bias)
    return head


def head_by_copy(embedding):
    return _head(embedding, copy=True)


def head_by_data(embedding):  # one storage, two Parameters
    V, d = embedding.weight.shape
    head = nn.Linear(d, V)
    head.weight.data = embedding.weight.data
    nn.init.zeros_(head.bias)
    return head


def head_by_new_parameter(embedding):  # nn.Parameter(tensor) reads the tensor's memory: one storage, two Parameters
    head = _head(embedding)
    head.weight = nn.Parameter(embedding.weight)
    return head


def head_by_copy_(embedding):
    V, d = embedding.weight.shape
    head = nn.Linear(d, V)
    with torch.no_grad():
        head.weight.copy_(embedding.weight)
        head.bias.zero_()
    return head


def head_by_deepcopy(embedding):
    head = _head(embedding)
    head.weight = copy.deepcopy(embedding.weight)
    return head


def head_reversed(embedding):  # embedding.weight = head.weight: tied, but to the head's random matrix
    V, d = embedding.weight.shape
    head = nn.Linear(d, V)
    embedding.weight = head.weight
    nn.init.zeros_(head.bias)
    return head


def head_untied(embedding):  # the tie forgotten
    V, d = embedding.weight.shape
    head = nn.Linear(d, V)
    nn.init.zeros_(head.bias)
    return head


def head_zeroes_weight(embedding):  # zeros_ on the weight instead of the bias: the embedding is zeroed
    head = _head(embedding, zero_bias=False)
    nn.init.zeros_(head.weight)
    return head


def head_reinitialised(embedding):  # TinyLM's init after the tie: re-initialises the embedding
    head = _head(embedding)
    nn.init.normal_(head.weight, std=embedding.weight.shape[1] ** -0.5)
    return head


def head_transposed_parameter(embedding):
    head = _head(embedding)
    head.weight = nn.Parameter(embedding.weight.T)
    return head


def head_bias_per_feature(embedding):
    head = _head(embedding, bias=False)
    head.bias = nn.Parameter(torch.zeros(embedding.weight.shape[1]))
    return head


def head_with_a_bias_column(embedding):
    head = _head(embedding, bias=False)
    head.bias = nn.Parameter(torch.zeros(embedding.weight.shape[0], 1))
    return head


def head_with_one_bias(embedding):
    head = _head(embedding, bias=False)
    head.bias = nn.Parameter(torch.zeros(1))
    return head


def head_with_a_tensor_bias(embedding):
    head = _head(embedding, bias=False)
    head.bias = torch.zeros(embedding.weight.shape[0])
    return head


def head_of_the_transpose(embedding):
    head = _head(embedding)
    head.weight = embedding.weight.T
    return head


def head_frozen_bias(embedding):
    head = _head(embedding, bias=False)
    head.bias = nn.Parameter(torch.zeros(embedding.weight.shape[0]), requires_grad=False)
    return head


def head_transposed(embedding):
    return _head(embedding, transposed=True)


def head_with_random_bias(embedding):
    return _head(embedding, zero_bias=False)


class _HandWrittenHead(nn.Module):
    def __init__(self, embedding):
        super().__init__()
        self.embedding = embedding
        self.bias = nn.Parameter(torch.zeros(embedding.weight.shape[0]))

    def forward(self, h):
        return h @ self.embedding.weight.T + self.bias


def head_of_its_own_kind(embedding):  # the right logits, but no nn.Linear
    return _HandWrittenHead(embedding)


def head_with_a_float64_bias(embedding):
    V, d = embedding.weight.shape
    head = nn.Linear(d, V)
    head.weight = embedding.weight
    head.bias = nn.Parameter(torch.zeros(V, dtype=torch.float64))
    return head


def cosine_by_softmax(W):
    return torch.softmax(W, dim=1)


def cosine_standardised(W):
    return (W - W.mean(dim=1, keepdim=True)) / W.std(dim=1, keepdim=True)


def cosine_times_norm(W):
    return W * W.norm(dim=1, keepdim=True)


def beating_the_mean_logit(W, i):
    logits = W @ W[i]
    return [j for j in range(W.shape[0]) if j != i and logits[j] > logits.mean()]


def beaten_by_i(W, i):
    logits = W @ W[i]
    return [j for j in range(W.shape[0]) if logits[j] < logits[i]]


def beating_after_removing_i(W, i):   # positions in the logits without i's
    logits = W @ W[i]
    others = torch.cat([logits[:i], logits[i + 1:]])
    return [int(j) for j in torch.nonzero(others > logits[i]).flatten()]


def beating_longer_and_positive(W, i):
    norms, logits = W.norm(dim=1), W @ W[i]
    return [j for j in range(W.shape[0]) if norms[j] > norms[i] and logits[j] > 0]


def beating_only_the_winner(W, i):
    top = int((W @ W[i]).argmax())
    return [] if top == i else [top]


def head_is_embedding(embedding):  # not a head at all
    return embedding


def head_without_bias(embedding):
    return _head(embedding, bias=False)



def head_freezing_the_shared_weight(embedding):  # "only the bias is the head's own" — freezes the embedding too
    V, d = embedding.weight.shape
    head = nn.Linear(d, V)
    head.weight = embedding.weight
    nn.init.zeros_(head.bias)
    head.weight.requires_grad_(False)
    return head


WRONG = {
    "cosine_head": {"columns": cosine_by_columns, "in_place": cosine_in_place, "no_keepdim": cosine_without_keepdim,
                    "lengths_kept": cosine_by_matrix_norm, "softmax_rows": cosine_by_softmax,
                    "standardised_rows": cosine_standardised, "times_norm": cosine_times_norm,
                    "token_cosines": cosine_token_matrix, "sqrt_of_norm": cosine_by_sqrt_of_norm,
                    "squared_norm": cosine_by_squared_norm, "l1_norm": cosine_by_l1_norm,
                    "max_entry": cosine_by_max_entry, "signed_sum": cosine_by_row_sum,
                    "transposed_head": cosine_transposed, "std_only": cosine_by_row_std,
                    "norm_clamped_at_one": cosine_with_the_norm_clamped},
    "tokens_beating_self": {"includes_self": beating_including_self, "by_norm": beating_by_norm,
                            "ties_included": beating_ties_included, "norm_not_squared": beating_norm_not_squared,
                            "above_mean_logit": beating_the_mean_logit, "beaten_by_i": beaten_by_i,
                            "index_shift": beating_after_removing_i, "longer_and_positive": beating_longer_and_positive,
                            "only_the_winner": beating_only_the_winner,
                            "absolute_logits": beating_by_absolute_logits, "own_norm": beating_own_norm,
                            "never_any": beating_by_cosine, "unsorted": beating_by_logit_order,
                            "positive_logits": beating_by_positive_logit, "one_based": beating_counted_from_one,
                            "squeezed": beating_squeezed},
    "tied_head_with_bias": {"copy_not_share": head_by_copy, "second_parameter": head_by_data,
                            "reversed_tie": head_reversed, "transposed_layer": head_transposed,
                            "bias_not_zero": head_with_random_bias, "froze_shared": head_freezing_the_shared_weight,
                            "not_a_linear": head_of_its_own_kind, "bias_dtype": head_with_a_float64_bias,
                            "no_bias": head_without_bias, "bias_column": head_with_a_bias_column,
                            "one_bias": head_with_one_bias, "bias_per_feature": head_bias_per_feature,
                            "frozen_bias": head_frozen_bias, "bias_not_parameter": head_with_a_tensor_bias,
                            "weight_not_parameter": head_of_the_transpose},
}

SHORTCUTS = {
    "cosine_head": [cosine_as_list, cosine_as_numpy],
    "tokens_beating_self": [beating_as_tensor, beating_as_tensor_elements],
    "tied_head_with_bias": [head_is_embedding],
}

ALSO_DIAGNOSED = {  # more wrong answers that make a named mistake: exercise -> [(mistake key, answer)]
    "cosine_head": [("lengths_kept", cosine_unchanged)],
    "tokens_beating_self": [("never_any", beating_by_distance)],
    "tied_head_with_bias": [("second_parameter", head_by_new_parameter), ("copy_not_share", head_by_copy_),
                            ("copy_not_share", head_by_deepcopy)],
}

CAUGHT = {
    "cosine_head": [cosine_centred],
    "tied_head_with_bias": [head_untied, head_zeroes_weight, head_reinitialised, head_transposed_parameter],
}
