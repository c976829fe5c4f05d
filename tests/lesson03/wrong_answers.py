"""Lesson 03: one wrong answer per diagnosed mistake, the shortcuts each check must refuse, and the plausible wrong
answers without a name of their own (CAUGHT: each must fail and say where it differs)."""

import torch
import torch.nn.functional as F

# -- head_gradient ----------------------------------------------------------------------------------------------


def _p_minus_y(h, W_out, target):
    p = F.softmax(W_out @ h, dim=0)
    return p - F.one_hot(torch.tensor(target), W_out.shape[0]).to(p.dtype)


def head_gradient_transposed(h, W_out, target):
    return torch.outer(h, _p_minus_y(h, W_out, target))


def head_gradient_without_target(h, W_out, target):
    return torch.outer(F.softmax(W_out @ h, dim=0), h)


def head_gradient_sign_flipped(h, W_out, target):
    return torch.outer(-_p_minus_y(h, W_out, target), h)


def head_gradient_only_target_row(h, W_out, target):
    grad = torch.zeros_like(W_out)                  # "only the target's output vector is updated"
    grad[target] = _p_minus_y(h, W_out, target)[target] * h
    return grad


def head_gradient_minus_h_at_target(h, W_out, target):   # the one-hot alone: the softmax forgotten
    return torch.outer(-F.one_hot(torch.tensor(target), W_out.shape[0]).float(), h)


def head_gradient_target_row_sign_flipped(h, W_out, target):
    grad = torch.zeros_like(W_out)
    grad[target] = (1 - F.softmax(W_out @ h, dim=0)[target]) * h
    return grad


def head_gradient_logits_for_probabilities(h, W_out, target):
    return torch.outer(W_out @ h - F.one_hot(torch.tensor(target), W_out.shape[0]).float(), h)


def head_gradient_log_softmax(h, W_out, target):
    return torch.outer(F.log_softmax(W_out @ h, dim=0) - F.one_hot(torch.tensor(target), W_out.shape[0]).float(), h)


def head_gradient_times_rows_of_W(h, W_out, target):     # ∂z_j/∂h = W_out[j] where ∂z_j/∂W_out[j] = h
    return _p_minus_y(h, W_out, target).unsqueeze(1) * W_out


def head_gradient_absolute(h, W_out, target):            # the row-norm formula |p_j - y_j| ‖h‖ taken literally
    return torch.outer(_p_minus_y(h, W_out, target).abs(), h)


def head_gradient_averaged_over_tokens(h, W_out, target):
    return torch.outer(_p_minus_y(h, W_out, target), h) / W_out.shape[0]


def head_gradient_times_two(h, W_out, target):  # the factor 2 of a squared error
    return torch.outer(2 * _p_minus_y(h, W_out, target), h)


def head_gradient_of_the_logits(h, W_out, target):
    return _p_minus_y(h, W_out, target)


def head_gradient_with_unit_h(h, W_out, target):
    return torch.outer(_p_minus_y(h, W_out, target), h / h.norm())


def head_gradient_target_plus_one(h, W_out, target):
    p = F.softmax(W_out @ h, dim=0)
    y = F.one_hot(torch.tensor((target + 1) % W_out.shape[0]), W_out.shape[0]).to(p.dtype)
    return torch.outer(p - y, h)


def head_gradient_elementwise(h, W_out, target):
    return _p_minus_y(h, W_out, target) * h                       # (V,) * (d,): no outer product


def head_gradient_by_backward(h, W_out, target):
    W = W_out.clone().requires_grad_(True)
    F.cross_entropy((W @ h).unsqueeze(0), torch.tensor([target])).backward()
    return W.grad


def head_gradient_by_autograd_grad(h, W_out, target):
    W = W_out.clone().requires_grad_(True)
    return torch.autograd.grad(F.cross_entropy((W @ h).unsqueeze(0), torch.tensor([target])), W)[0]


def head_gradient_as_list(h, W_out, target):
    return torch.outer(_p_minus_y(h, W_out, target), h).tolist()


# -- lookup_gradient --------------------------------------------------------------------------------------------


def lookup_gradient_by_assignment(ids, upstream, vocab_size):
    grad = torch.zeros(vocab_size, upstream.shape[1])
    grad[ids] = upstream            # repeated ids overwrite instead of adding up
    return grad


def lookup_gradient_averaging_repeats(ids, upstream, vocab_size):
    summed = torch.zeros(vocab_size, upstream.shape[1]).index_add(0, ids, upstream)
    return summed / torch.bincount(ids, minlength=vocab_size).clamp(min=1).unsqueeze(1)


def lookup_gradient_by_plus_equals(ids, upstream, vocab_size):
    grad = torch.zeros(vocab_size, upstream.shape[1])
    grad[ids] += upstream           # reads, adds, writes back: a repeated id keeps one position's row
    return grad


def lookup_gradient_first_write_wins(ids, upstream, vocab_size):
    grad = torch.zeros(vocab_size, upstream.shape[1])
    for position in reversed(range(len(ids))):
        grad[ids[position]] = upstream[position]
    return grad


def lookup_gradient_divided_by_positions(ids, upstream, vocab_size):
    return torch.zeros(vocab_size, upstream.shape[1]).index_add(0, ids, upstream) / len(ids)


def lookup_gradient_grouping_adjacent_repeats(ids, upstream, vocab_size):   # passed before: repeats were adjacent
    unique, inverse = torch.unique_consecutive(ids, return_inverse=True)
    grad = torch.zeros(vocab_size, upstream.shape[1])
    grad[unique] = torch.zeros(len(unique), upstream.shape[1]).index_add(0, inverse, upstream)
    return grad


def lookup_gradient_without_vocab_size(ids, upstream, vocab_size):
    return F.one_hot(ids).T.float() @ upstream      # (max id + 1, d): rows above the largest id are missing


def lookup_gradient_transposed(ids, upstream, vocab_size):
    return upstream.T @ F.one_hot(ids, vocab_size).float()


def lookup_gradient_by_unexpanded_scatter(ids, upstream, vocab_size):
    grad = torch.zeros(vocab_size, upstream.shape[1], dtype=upstream.dtype)
    return grad.scatter_add(0, ids[:, None], upstream)            # fills column 0 only


def lookup_gradient_sorting_the_ids_alone(ids, upstream, vocab_size):
    grad = torch.zeros(vocab_size, upstream.shape[1], dtype=upstream.dtype)
    return grad.index_add(0, ids.sort().values, upstream)


def lookup_gradient_of_the_whole_sum(ids, upstream, vocab_size):
    grad = torch.zeros(vocab_size, upstream.shape[1], dtype=upstream.dtype)
    grad[ids.unique()] = upstream.sum(dim=0)
    return grad


def lookup_gradient_over_the_vocabulary(ids, upstream, vocab_size):
    return torch.zeros(vocab_size, upstream.shape[1]).index_add(0, ids, upstream) / vocab_size


def lookup_gradient_times_the_count(ids, upstream, vocab_size):
    counts = torch.bincount(ids, minlength=vocab_size).float().unsqueeze(1)
    return torch.zeros(vocab_size, upstream.shape[1]).index_add(0, ids, upstream) * counts


def lookup_gradient_of_the_distinct_ids(ids, upstream, vocab_size):
    distinct = ids.unique()
    return torch.zeros(len(distinct), upstream.shape[1]).index_add(0, torch.searchsorted(distinct, ids), upstream)


def lookup_gradient_by_backward(ids, upstream, vocab_size):
    W = torch.zeros(vocab_size, upstream.shape[1], requires_grad=True)
    (F.embedding(ids, W) * upstream).sum().backward()
    return W.grad


def lookup_gradient_as_list(ids, upstream, vocab_size):
    return torch.zeros(vocab_size, upstream.shape[1]).index_add(0, ids, upstream).tolist()


# -- starved_input_rows -----------------------------------------------------------------------------------------


def starved_including_unseen(inputs, targets, vocab_size):
    return sorted(set(range(vocab_size)) - set(inputs.flatten().tolist()))


def starved_by_first_position(inputs, targets, vocab_size):
    return sorted(set(targets.tolist()) - set(inputs[:, 0].tolist()))


def starved_by_two_columns(inputs, targets, vocab_size):   # the lesson's context of 2, hard-coded: passed before
    return sorted(set(targets.tolist()) - (set(inputs[:, 0].tolist()) | set(inputs[:, 1].tolist())))


def starved_swapped(inputs, targets, vocab_size):
    return sorted(set(inputs.flatten().tolist()) - set(targets.tolist()))


def starved_per_window(inputs, targets, vocab_size):
    return sorted({target for row, target in zip(inputs.tolist(), targets.tolist(), strict=True) if target not in row})


def starved_unsorted(inputs, targets, vocab_size):         # a set's order looks sorted for small ids: passed before
    return list(set(targets.tolist()) - set(inputs.flatten().tolist()))


def starved_with_duplicates(inputs, targets, vocab_size):
    read = set(inputs.flatten().tolist())
    return sorted(target for target in targets.tolist() if target not in read)


def starved_as_tensor(inputs, targets, vocab_size):
    return torch.tensor(sorted(set(targets.tolist()) - set(inputs.flatten().tolist())), dtype=torch.long)


def starved_as_set(inputs, targets, vocab_size):
    return set(targets.tolist()) - set(inputs.flatten().tolist())


# -- answers of the mistakes named since the fresh student's review (issue 36) ------------------------------------


def _p_minus_y(h, W_out, target, probabilities=None):
    p = F.softmax(W_out @ h, dim=0) if probabilities is None else probabilities
    return p - F.one_hot(torch.tensor(target), W_out.shape[0]).to(p.dtype)


def head_gradient_divided_by_width(h, W_out, target):
    return torch.outer(_p_minus_y(h, W_out, target), h) / h.shape[0]


def head_gradient_of_h(h, W_out, target):
    return W_out.T @ _p_minus_y(h, W_out, target)


def head_gradient_with_sigmoid(h, W_out, target):
    return torch.outer(_p_minus_y(h, W_out, target, torch.sigmoid(W_out @ h)), h)


def head_gradient_softmax_over_one_logit(h, W_out, target):
    p = F.softmax((W_out @ h).unsqueeze(0), dim=0).squeeze(0)
    return torch.outer(_p_minus_y(h, W_out, target, p), h)


def head_gradient_with_target_row(h, W_out, target):
    return torch.outer(_p_minus_y(h, W_out, target), W_out[target])


def lookup_gradient_of_mean_upstream(ids, upstream, vocab_size):
    return torch.bincount(ids, minlength=vocab_size).to(upstream.dtype).unsqueeze(1) * upstream.mean(dim=0)


def lookup_gradient_negated(ids, upstream, vocab_size):
    return -torch.zeros(vocab_size, upstream.shape[1]).index_add(0, ids, upstream)


def lookup_gradient_by_position(ids, upstream, vocab_size):
    return torch.zeros(vocab_size, upstream.shape[1]).index_add(0, torch.arange(len(ids)), upstream)


def lookup_gradient_shifted(ids, upstream, vocab_size):
    return torch.zeros(vocab_size, upstream.shape[1]).index_add(0, ids[1:], upstream[:-1])


def starved_against_the_first_window(inputs, targets, vocab_size):
    return sorted(set(targets.tolist()) - set(inputs[0].tolist()))


def starved_by_intersection(inputs, targets, vocab_size):
    return sorted(set(targets.tolist()) & set(inputs.flatten().tolist()))


def starved_never_predicted(inputs, targets, vocab_size):
    return sorted(set(range(vocab_size)) - set(targets.tolist()))


def starved_without_the_last_window(inputs, targets, vocab_size):
    return sorted(set(targets.tolist()) - set(inputs[:-1].flatten().tolist()))


def starved_without_the_first_window(inputs, targets, vocab_size):
    return sorted(set(targets.tolist()) - set(inputs[1:].flatten().tolist()))


def starved_by_a_set_of_tensors(inputs, targets, vocab_size):
    read = set(inputs.flatten())                                  # 0-d tensors, hashed by identity
    return sorted({int(t) for t in targets} - read)


def starved_absent_tokens(inputs, targets, vocab_size):
    return sorted(set(range(vocab_size)) - set(inputs.flatten().tolist()) - set(targets.tolist()))


def starved_by_symmetric_difference(inputs, targets, vocab_size):
    return sorted(set(targets.tolist()) ^ set(inputs.flatten().tolist()))


def starved_against_the_last_window(inputs, targets, vocab_size):
    return sorted(set(targets.tolist()) - set(inputs[-1].tolist()))


def starved_read_at_most_once(inputs, targets, vocab_size):
    read = torch.bincount(inputs.flatten(), minlength=vocab_size)
    return sorted(t for t in set(targets.tolist()) if read[t] <= 1)


def starved_without_the_first_target(inputs, targets, vocab_size):
    return sorted(set(targets[1:].tolist()) - set(inputs.flatten().tolist()))


def starved_by_counts(inputs, targets, vocab_size):  # predicted more often than read
    predicted = torch.bincount(targets.flatten(), minlength=vocab_size)
    read = torch.bincount(inputs.flatten(), minlength=vocab_size)
    return [j for j in range(vocab_size) if predicted[j] > read[j]]


WRONG = {
    "head_gradient": {"transposed": head_gradient_transposed, "no_target_term": head_gradient_without_target,
                      "sign_flipped": head_gradient_sign_flipped, "only_target_row": head_gradient_only_target_row,
                      "divided_by_width": head_gradient_divided_by_width, "gradient_of_h": head_gradient_of_h,
                      "sigmoid_not_softmax": head_gradient_with_sigmoid,
                      "softmax_of_one_logit": head_gradient_softmax_over_one_logit,
                      "target_row_for_h": head_gradient_with_target_row, "factor_two": head_gradient_times_two,
                      "log_probabilities": head_gradient_log_softmax, "gradient_of_logits": head_gradient_of_the_logits,
                      "divided_by_vocab": head_gradient_averaged_over_tokens,
                      "logits_for_probabilities": head_gradient_logits_for_probabilities,
                      "own_row_for_h": head_gradient_times_rows_of_W, "absolute_difference": head_gradient_absolute,
                      "h_normalised": head_gradient_with_unit_h, "target_shifted": head_gradient_target_plus_one,
                      "elementwise_not_outer": head_gradient_elementwise},
    "lookup_gradient": {"overwrite": lookup_gradient_by_assignment, "mean_of_repeats": lookup_gradient_averaging_repeats,
                        "divided_by_positions": lookup_gradient_divided_by_positions,
                        "mean_upstream": lookup_gradient_of_mean_upstream, "sign_flipped": lookup_gradient_negated,
                        "rows_by_position": lookup_gradient_by_position, "shifted_by_one": lookup_gradient_shifted,
                        "first_column_only": lookup_gradient_by_unexpanded_scatter,
                        "ids_sorted_alone": lookup_gradient_sorting_the_ids_alone,
                        "whole_sum_per_row": lookup_gradient_of_the_whole_sum, "transposed": lookup_gradient_transposed,
                        "divided_by_vocab": lookup_gradient_over_the_vocabulary,
                        "times_count": lookup_gradient_times_the_count,
                        "rows_up_to_largest_id": lookup_gradient_without_vocab_size,
                        "unique_rows_only": lookup_gradient_of_the_distinct_ids},
    "starved_input_rows": {"never_seen_included": starved_including_unseen,
                           "missed_context_positions": starved_by_first_position, "swapped": starved_swapped,
                           "per_window": starved_per_window, "first_window_only": starved_against_the_first_window,
                           "intersection": starved_by_intersection, "never_predicted": starved_never_predicted,
                           "compared_counts": starved_by_counts, "last_window_skipped": starved_without_the_last_window,
                           "first_window_skipped": starved_without_the_first_window,
                           "nothing_removed": starved_by_a_set_of_tensors,
                           "neither_read_nor_predicted": starved_absent_tokens,
                           "symmetric_difference": starved_by_symmetric_difference,
                           "last_window_only": starved_against_the_last_window,
                           "read_at_most_once": starved_read_at_most_once,
                           "first_target_dropped": starved_without_the_first_target},
}

# further answers that must be diagnosed as a named mistake (not one per key, so not in WRONG)
ALSO = {
    "head_gradient": {"only_target_row": [head_gradient_minus_h_at_target, head_gradient_target_row_sign_flipped]},
    "lookup_gradient": {"overwrite": [lookup_gradient_by_plus_equals, lookup_gradient_first_write_wins,
                                      lookup_gradient_grouping_adjacent_repeats]},
    "starved_input_rows": {"missed_context_positions": [starved_by_two_columns]},
}

SHORTCUTS = {
    "head_gradient": [head_gradient_by_backward, head_gradient_by_autograd_grad, head_gradient_as_list],
    "lookup_gradient": [lookup_gradient_by_backward, lookup_gradient_as_list],
    "starved_input_rows": [starved_as_tensor, starved_as_set],
}

CAUGHT = {
    "starved_input_rows": [starved_unsorted, starved_with_duplicates],
}
