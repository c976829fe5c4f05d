"""Reference solutions, lesson 03 (gradient flow through a tied matrix)."""

import torch
import torch.nn.functional as F


def head_gradient(h, W_out, target):
    """∂/∂W_out of cross_entropy(W_out @ h, target) for one hidden state h (d,): (p - y) ⊗ h, shape (V, d)."""
    p = F.softmax(W_out @ h, dim=0)
    y = F.one_hot(torch.tensor(target), W_out.shape[0]).to(p.dtype)
    return torch.outer(p - y, h)


def lookup_gradient(ids, upstream, vocab_size):
    """Gradient reaching the embedding matrix through the lookup: row ids[t] receives upstream[t].

    ``ids`` (n,), ``upstream`` (n, d) = ∂L/∂(looked-up vectors); a repeated id adds up its gradients.
    """
    grad = torch.zeros(vocab_size, upstream.shape[1], dtype=upstream.dtype)
    return grad.index_add(0, ids, upstream)


def starved_input_rows(inputs, targets, vocab_size):
    """Token ids that are predicted (appear among the targets) but never read (never in the inputs):
    untied, their input rows never receive a gradient."""
    seen_in_inputs = set(inputs.flatten().tolist())
    return sorted({int(t) for t in targets.flatten().tolist()} - seen_in_inputs)
