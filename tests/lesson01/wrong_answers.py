"""Lesson 01: one wrong answer per diagnosed mistake, the shortcuts each check must refuse, and the plausible
wrong answers without a named mistake (each must fail and say where it differs)."""

import torch
import torch.nn.functional as F

# -- bag_of_tokens ---------------------------------------------------------------------------------------------


def bag_without_num_classes(W, ids):
    return F.one_hot(ids).sum(dim=1).float() @ W


def bag_with_integer_one_hot(W, ids):
    return F.one_hot(ids, W.shape[0]).sum(dim=1) @ W


def bag_not_summed(W, ids):
    return F.one_hot(ids, W.shape[0]).float() @ W


def bag_with_num_classes_width(W, ids):
    return F.one_hot(ids, W.shape[1]).sum(dim=1).float() @ W      # d, W's width, for the vocabulary size


def bag_with_the_lessons_V(W, ids):
    return F.one_hot(ids, num_classes=10).sum(dim=1).float() @ W  # the lesson's global V = 10, not this W's


def bag_as_mean(W, ids):
    return F.one_hot(ids, W.shape[0]).float().mean(dim=1) @ W


def bag_of_comparisons(W, ids):   # a sum of booleans is int64 too
    return (ids[..., None] == torch.arange(W.shape[0])).sum(dim=1) @ W


def bag_over_the_batch(W, ids):
    return F.one_hot(ids, W.shape[0]).sum(dim=0).float() @ W      # sums the sequences, not the positions


def bag_of_distinct_tokens(W, ids):
    return F.one_hot(ids, W.shape[0]).amax(dim=1).to(W.dtype) @ W  # a repeated token counted once


def bag_of_the_whole_batch(W, ids):
    return F.one_hot(ids, W.shape[0]).sum(dim=(0, 1)).float() @ W


def bag_of_the_last_token(W, ids):
    return F.one_hot(ids[:, -1], W.shape[0]).float() @ W


def bag_reshaped_for_a_transpose(W, ids):
    B, T = ids.shape
    return F.one_hot(ids.reshape(T, B), W.shape[0]).float().sum(dim=0) @ W   # reshape is no transpose


def bag_as_running_sum(W, ids):
    return (F.one_hot(ids, W.shape[0]).float() @ W).cumsum(dim=1)


def bag_scaled_by_sqrt_d(W, ids):
    return F.one_hot(ids, W.shape[0]).float().sum(dim=1) @ W * W.shape[1] ** 0.5


def bag_summed_over_the_width(W, ids):
    return (F.one_hot(ids, W.shape[0]).float() @ W).sum(dim=-1)


def bag_of_normalised_counts(W, ids):
    counts = F.one_hot(ids, W.shape[0]).sum(dim=1).to(W.dtype)
    return counts / counts.norm(dim=1, keepdim=True) @ W


def bag_without_token_zero(W, ids):
    counts = F.one_hot(ids, W.shape[0]).sum(dim=1).to(W.dtype)
    counts[:, 0] = 0                                              # id 0 taken for padding
    return counts @ W


def bag_in_float32(W, ids):
    return F.one_hot(ids, W.shape[0]).sum(dim=1).float() @ W.float()


def bag_of_the_first_token(W, ids):
    return F.one_hot(ids[:, 0], W.shape[0]).to(W.dtype) @ W


def bag_of_the_inputs(W, ids):                                     # ids[:, :-1], as for next-token inputs
    return F.one_hot(ids[:, :-1], W.shape[0]).sum(dim=1).to(W.dtype) @ W


def bag_of_the_targets(W, ids):
    return F.one_hot(ids[:, 1:], W.shape[0]).sum(dim=1).to(W.dtype) @ W


def bag_max_pooled(W, ids):
    return (F.one_hot(ids, W.shape[0]).to(W.dtype) @ W).amax(dim=1)


def bag_over_sqrt_length(W, ids):
    return F.one_hot(ids, W.shape[0]).sum(dim=1).to(W.dtype) @ W / ids.shape[1] ** 0.5


def bag_over_the_batch_size(W, ids):
    return F.one_hot(ids, W.shape[0]).sum(dim=1).to(W.dtype) @ W / ids.shape[0]


def bag_of_counts_only(W, ids):
    return F.one_hot(ids, W.shape[0]).sum(dim=1).to(W.dtype)


def bag_of_the_batch_in_every_row(W, ids):
    total = F.one_hot(ids, W.shape[0]).sum(dim=(0, 1)).to(W.dtype) @ W
    return total.expand(ids.shape[0], -1)


def bag_of_float32_counts(W, ids):
    return F.one_hot(ids, W.shape[0]).sum(dim=1).float() @ W       # W float64 in the last case: no product


def bag_of_unit_rows(W, ids):
    return F.one_hot(ids, W.shape[0]).sum(dim=1).to(W.dtype) @ F.normalize(W, dim=1)


def bag_by_indexing(W, ids):
    return W[ids].sum(dim=1)


def bag_by_embedding(W, ids):
    return F.embedding(ids, W).sum(dim=1)


def bag_by_index_select(W, ids):
    return W.index_select(0, ids.flatten()).reshape(*ids.shape, -1).sum(dim=1)


def bag_as_list(W, ids):
    return (F.one_hot(ids, W.shape[0]).sum(dim=1).float() @ W).tolist()


# -- sgd_step_on_lookup -----------------------------------------------------------------------------------------


def step_overwrites_repeats(W, ids, lr):
    W = W.clone()
    W[ids] -= lr            # indexed assignment: a repeated id is written once, not added up
    return W


def step_ascends(W, ids, lr):
    return W + lr * torch.bincount(ids.flatten(), minlength=W.shape[0]).float().unsqueeze(1)


def step_only(W, ids, lr):
    return -lr * torch.bincount(ids.flatten(), minlength=W.shape[0]).float().unsqueeze(1).expand_as(W)


def step_without_minlength(W, ids, lr):
    return W - lr * torch.bincount(ids.flatten()).float().unsqueeze(1)


def step_with_minlength_width(W, ids, lr):
    return W - lr * torch.bincount(ids.flatten(), minlength=W.shape[1]).float().unsqueeze(1)


def step_counts_as_a_row(W, ids, lr):
    return W - lr * torch.bincount(ids.flatten(), minlength=W.shape[0]).float()   # no unsqueeze(1)


def step_of_distinct_rows(W, ids, lr):
    W = W.clone()
    for i in set(ids.flatten().tolist()):   # each row once, however often it is looked up
        W[i] -= lr
    return W


def step_with_the_lessons_V(W, ids, lr):
    return W - lr * torch.bincount(ids.flatten(), minlength=10).float().unsqueeze(1)


def step_of_a_mean_loss(W, ids, lr):
    return W - lr * torch.bincount(ids.flatten(), minlength=W.shape[0]).float().unsqueeze(1) / ids.numel()


def step_sets_the_rows(W, ids, lr):
    W = W.clone()
    W[ids.flatten()] = -lr
    return W


def step_without_lr(W, ids, lr):
    return W - torch.bincount(ids.flatten(), minlength=W.shape[0]).float().unsqueeze(1)


def step_of_the_first_sequence(W, ids, lr):
    first = ids if ids.dim() == 1 else ids[0]
    return W - lr * torch.bincount(first, minlength=W.shape[0]).float().unsqueeze(1)


def step_times_the_width(W, ids, lr):
    return W - lr * torch.bincount(ids.flatten(), minlength=W.shape[0]).float().unsqueeze(1) * W.shape[1]


def step_of_every_row(W, ids, lr):
    return W - lr * torch.ones_like(W)


def step_along_the_rows(W, ids, lr):
    return W - lr * torch.bincount(ids.flatten(), minlength=W.shape[0]).float().unsqueeze(1) * W


def step_averaged_over_the_batch(W, ids, lr):
    return W - lr * torch.bincount(ids.flatten(), minlength=W.shape[0]).float().unsqueeze(1) / ids.shape[0]


def step_of_a_squared_loss(W, ids, lr):
    counts = torch.bincount(ids.flatten(), minlength=W.shape[0]).to(W.dtype).unsqueeze(1)
    return W - lr * 2 * counts * W


def step_on_the_first_rows(W, ids, lr):
    _, counts = ids.flatten().unique(return_counts=True)
    W = W.clone()
    W[:len(counts)] -= lr * counts.to(W.dtype).unsqueeze(1)
    return W


def step_by_the_largest_count(W, ids, lr):
    counts = F.one_hot(ids, W.shape[0]).sum(dim=-2)
    counts = counts.amax(dim=0) if counts.dim() == 2 else counts
    return W - lr * counts.to(W.dtype).unsqueeze(1)


def step_with_lr_twice(W, ids, lr):
    return W - lr * lr * torch.bincount(ids.flatten(), minlength=W.shape[0]).float().unsqueeze(1)


def step_of_the_last_positions(W, ids, lr):
    return W - lr * torch.bincount(ids[..., -1].flatten(), minlength=W.shape[0]).float().unsqueeze(1)


def step_averaged_over_positions(W, ids, lr):
    return W - lr * torch.bincount(ids.flatten(), minlength=W.shape[0]).float().unsqueeze(1) / ids.shape[-1]


def step_without_flatten(W, ids, lr):
    return W - lr * torch.bincount(ids, minlength=W.shape[0]).to(W.dtype).unsqueeze(1)


def step_once_per_sequence(W, ids, lr):
    rows = ids if ids.dim() == 2 else ids[None]
    counts = sum(torch.bincount(row.unique(), minlength=W.shape[0]) for row in rows)
    return W - lr * counts.to(W.dtype).unsqueeze(1)


def step_by_backward(W, ids, lr):
    W = W.clone().requires_grad_(True)
    W[ids].sum().backward()
    return (W - lr * W.grad).detach()


def step_by_optimiser(W, ids, lr):
    W = torch.nn.Parameter(W.clone())
    optimiser = torch.optim.SGD([W], lr=lr)
    W[ids].sum().backward()
    optimiser.step()
    return W.detach()


def step_by_autograd_grad(W, ids, lr):
    W = W.clone().requires_grad_(True)
    (grad,) = torch.autograd.grad(W[ids].sum(), W)
    return (W - lr * grad).detach()


def step_as_list(W, ids, lr):
    return (W - lr * torch.bincount(ids.flatten(), minlength=W.shape[0]).float().unsqueeze(1)).tolist()


# -- rows_reached -----------------------------------------------------------------------------------------------


def rows_with_the_targets(ids, vocab_size, tie):
    return list(range(vocab_size)) if tie else sorted(set(ids.tolist()))


def rows_of_inputs_and_targets_when_tied(ids, vocab_size, tie):
    return sorted(set(ids.tolist())) if tie else sorted(set(ids[:-1].tolist()))


def rows_ignoring_the_tie(ids, vocab_size, tie):
    return sorted(set(ids[:-1].tolist()))


def rows_without_the_last_token(ids, vocab_size, tie):   # passed before the case [3, 1, 3]
    return list(range(vocab_size)) if tie else sorted(set(ids.tolist()) - {ids[-1].item()})


def rows_of_the_targets(ids, vocab_size, tie):
    return list(range(vocab_size)) if tie else sorted(set(ids[1:].tolist()))


def rows_up_to_the_largest_id_when_tied(ids, vocab_size, tie):
    return list(range(int(ids.max()) + 1)) if tie else sorted(set(ids[:-1].tolist()))


def rows_of_the_targets_when_tied(ids, vocab_size, tie):
    return sorted(set(ids[1:].tolist())) if tie else sorted(set(ids[:-1].tolist()))


def rows_but_the_last_when_tied(ids, vocab_size, tie):
    return list(range(vocab_size - 1)) if tie else sorted(set(ids[:-1].tolist()))


def rows_without_the_first_token(ids, vocab_size, tie):
    return list(range(vocab_size)) if tie else sorted(set(ids.tolist()) - {ids[0].item()})


def rows_with_the_tie_inverted(ids, vocab_size, tie):
    return sorted(set(ids[:-1].tolist())) if tie else list(range(vocab_size))


def rows_one_too_many_when_tied(ids, vocab_size, tie):
    return list(range(vocab_size + 1)) if tie else sorted(set(ids[:-1].tolist()))


def rows_of_the_positions_when_tied(ids, vocab_size, tie):
    return list(range(len(ids))) if tie else sorted(set(ids[:-1].tolist()))


def rows_of_the_last_input(ids, vocab_size, tie):
    return list(range(vocab_size)) if tie else [ids[-2].item()]


def rows_of_the_first_input(ids, vocab_size, tie):
    return list(range(vocab_size)) if tie else [ids[0].item()]


def rows_none_untied(ids, vocab_size, tie):
    return list(range(vocab_size)) if tie else []


def rows_of_the_targets_only(ids, vocab_size, tie):
    return list(range(vocab_size)) if tie else sorted(set(ids[1:].tolist()) - set(ids[:-1].tolist()))


def rows_of_the_middle(ids, vocab_size, tie):
    return list(range(vocab_size)) if tie else sorted(set(ids[1:-1].tolist()))


def rows_from_one_when_tied(ids, vocab_size, tie):
    return list(range(1, vocab_size)) if tie else sorted(set(ids[:-1].tolist()))


def rows_as_a_range_when_tied(ids, vocab_size, tie):
    return range(vocab_size) if tie else sorted(set(ids[:-1].tolist()))


def rows_by_running_the_step(ids, vocab_size, tie):
    from lmtie_edu.lesson01.lookup import next_token_gradient

    return next_token_gradient(ids, tie=tie, vocab_size=vocab_size)["rows_touched"]


def rows_as_tensor(ids, vocab_size, tie):
    return torch.arange(vocab_size) if tie else torch.unique(ids[:-1])


def rows_repeated(ids, vocab_size, tie):
    return list(range(vocab_size)) if tie else ids[:-1].tolist()


def rows_unsorted(ids, vocab_size, tie):
    return list(range(vocab_size))[::-1] if tie else sorted(set(ids[:-1].tolist()), reverse=True)


WRONG = {
    "bag_of_tokens": {"no_num_classes": bag_without_num_classes, "num_classes_not_rows": bag_with_num_classes_width,
                      "integer_one_hot": bag_with_integer_one_hot, "not_summed": bag_not_summed,
                      "mean_not_sum": bag_as_mean, "last_token_only": bag_of_the_last_token,
                      "reshape_not_transpose": bag_reshaped_for_a_transpose, "running_sum": bag_as_running_sum,
                      "scaled_by_sqrt_d": bag_scaled_by_sqrt_d, "summed_over_width": bag_summed_over_the_width,
                      "normalised_counts": bag_of_normalised_counts, "zero_as_padding": bag_without_token_zero,
                      "distinct_tokens": bag_of_distinct_tokens, "float32_result": bag_in_float32,
                      "first_token_only": bag_of_the_first_token, "last_position_dropped": bag_of_the_inputs,
                      "first_position_dropped": bag_of_the_targets, "max_pooled": bag_max_pooled,
                      "scaled_by_sqrt_t": bag_over_sqrt_length, "divided_by_batch": bag_over_the_batch_size,
                      "counts_not_multiplied": bag_of_counts_only, "unit_rows": bag_of_unit_rows, "float32_counts": bag_of_float32_counts, "whole_batch_per_row": bag_of_the_batch_in_every_row},
    "sgd_step_on_lookup": {"overwrite": step_overwrites_repeats, "ascent": step_ascends, "update_only": step_only,
                           "no_minlength": step_without_minlength, "counts_not_column": step_counts_as_a_row,
                           "count_times_width": step_times_the_width, "every_row_moves": step_of_every_row,
                           "gradient_is_the_row": step_along_the_rows, "mean_over_batch": step_averaged_over_the_batch,
                           "squared_loss": step_of_a_squared_loss, "counts_not_at_ids": step_on_the_first_rows,
                           "max_over_sequences": step_by_the_largest_count, "mean_over_all_lookups": step_of_a_mean_loss,
                           "mean_over_positions": step_averaged_over_positions, "lr_squared": step_with_lr_twice,
                           "no_lr": step_without_lr, "rows_set": step_sets_the_rows,
                           "last_position_only": step_of_the_last_positions,
                           "first_sequence_only": step_of_the_first_sequence, "not_flattened": step_without_flatten,
                           "distinct_per_sequence": step_once_per_sequence},
    "rows_reached": {"targets_as_inputs": rows_with_the_targets,
                     "head_only_targets": rows_of_inputs_and_targets_when_tied,
                     "tie_ignored": rows_ignoring_the_tie, "dropped_last_value": rows_without_the_last_token,
                     "targets_not_inputs": rows_without_the_first_token, "every_row_untied": rows_with_the_tie_inverted,
                     "one_row_too_many": rows_one_too_many_when_tied,
                     "sequence_length_for_vocab": rows_of_the_positions_when_tied,
                     "last_input_only": rows_of_the_last_input, "first_input_only": rows_of_the_first_input,
                     "none_untied": rows_none_untied, "targets_minus_inputs": rows_of_the_targets_only,
                     "middle_only": rows_of_the_middle, "row_zero_missed": rows_from_one_when_tied,
                     "one_row_too_few": rows_but_the_last_when_tied, "range_not_list": rows_as_a_range_when_tied,
                     "up_to_largest_id": rows_up_to_the_largest_id_when_tied},
}

# More answers that make a named mistake (the check must give them the same diagnosis as WRONG's).
ALSO = {
    "bag_of_tokens": {"num_classes_not_rows": bag_with_the_lessons_V, "integer_one_hot": bag_of_comparisons},
    "sgd_step_on_lookup": {"no_minlength": step_with_minlength_width, "overwrite": step_of_distinct_rows},
    "rows_reached": {"targets_not_inputs": rows_of_the_targets},
}

CAUGHT = {
    "bag_of_tokens": [bag_over_the_batch, bag_of_the_whole_batch],
    "sgd_step_on_lookup": [step_with_the_lessons_V],
    "rows_reached": [rows_of_the_targets_when_tied],
}

SHORTCUTS = {
    "bag_of_tokens": [bag_by_indexing, bag_by_embedding, bag_by_index_select, bag_as_list],
    "sgd_step_on_lookup": [step_by_backward, step_by_optimiser, step_by_autograd_grad, step_as_list],
    "rows_reached": [rows_by_running_the_step, rows_as_tensor, rows_repeated, rows_unsorted],
}
