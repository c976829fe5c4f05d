"""Lesson 03: one wrong answer per diagnosed mistake, and the shortcuts each check must refuse."""

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


def starved_as_tensor(inputs, targets, vocab_size):
    return torch.tensor(sorted(set(targets.tolist()) - set(inputs.flatten().tolist())), dtype=torch.long)


def starved_as_set(inputs, targets, vocab_size):
    return set(targets.tolist()) - set(inputs.flatten().tolist())


WRONG = {
    "head_gradient": {"transposed": head_gradient_transposed, "no_target_term": head_gradient_without_target,
                      "sign_flipped": head_gradient_sign_flipped},
    "lookup_gradient": {"overwrite": lookup_gradient_by_assignment, "mean_of_repeats": lookup_gradient_averaging_repeats},
    "starved_input_rows": {"never_seen_included": starved_including_unseen,
                           "one_context_position": starved_by_first_position},
}

SHORTCUTS = {
    "head_gradient": [head_gradient_by_backward, head_gradient_by_autograd_grad, head_gradient_as_list],
    "lookup_gradient": [lookup_gradient_by_backward, lookup_gradient_as_list],
    "starved_input_rows": [starved_as_tensor, starved_as_set],
}
