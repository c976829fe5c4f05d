"""Lesson 05: one wrong answer per diagnosed mistake, and the shortcuts each check must refuse."""

import torch
import torch.nn.functional as F

# -- tie_status ------------------------------------------------------------------------------------------------


def status_by_values(model):  # equal values taken for a tie: a copy passes as "tied"
    decoder, W = model.decoder_matrix().detach(), model.W.detach()
    if decoder.untyped_storage().data_ptr() == W.untyped_storage().data_ptr():
        return "tied" if model.decoder_matrix().requires_grad else "detached"
    return "tied" if torch.equal(decoder, W.t()) else "untied"


def status_by_memory(model):  # shared memory taken for a tie: a detached view passes as "tied"
    decoder, W = model.decoder_matrix(), model.W
    if decoder.untyped_storage().data_ptr() == W.untyped_storage().data_ptr():
        return "tied"
    return "copy" if torch.equal(decoder.detach(), W.detach().t()) else "untied"


def status_by_requires_grad(model):  # memory + requires_grad: a new Parameter around Wᵀ passes as "tied"
    decoder, W = model.decoder_matrix(), model.W
    if decoder.untyped_storage().data_ptr() == W.untyped_storage().data_ptr():
        return "tied" if decoder.requires_grad else "detached"
    return "copy" if torch.equal(decoder.detach(), W.detach().t()) else "untied"


def status_by_attribute(model):  # reads the structure, not the behaviour: no decoder matrix means "tied"
    return "tied" if model.decoder_weight is None else "untied"


def status_always_tied(model):
    return "tied"


def status_as_bool(model):
    return True


def status_unknown_word(model):
    return "shared"


# -- tied_gradient ---------------------------------------------------------------------------------------------


def _paths(W, b, c, x):
    z = x @ W.T + b
    grad_out = 2 * (z @ W + c - x) / x.numel()
    return z.T @ grad_out, (grad_out @ W.T).T @ x


def gradient_decoder_path_only(W, b, c, x):
    return _paths(W, b, c, x)[0]


def gradient_encoder_path_only(W, b, c, x):
    return _paths(W, b, c, x)[1]


def gradient_of_the_sum(W, b, c, x):
    decoder_path, encoder_path = _paths(W, b, c, x)
    return (decoder_path + encoder_path) * x.numel()


def gradient_by_autograd(W, b, c, x):
    W = W.clone().requires_grad_(True)
    F.mse_loss((x @ W.T + b) @ W + c, x).backward()
    return W.grad


def gradient_by_autograd_grad(W, b, c, x):
    W = W.clone().requires_grad_(True)
    return torch.autograd.grad(F.mse_loss((x @ W.T + b) @ W + c, x), W)[0]


def gradient_as_list(W, b, c, x):
    decoder_path, encoder_path = _paths(W, b, c, x)
    return (decoder_path + encoder_path).tolist()


def gradient_transposed(W, b, c, x):
    decoder_path, encoder_path = _paths(W, b, c, x)
    return (decoder_path + encoder_path).T


# -- pca_reconstruction_mse ------------------------------------------------------------------------------------


def pca_uncentred(train, test, k):
    _, _, vh = torch.linalg.svd(train, full_matrices=False)
    return (test @ vh[:k].T @ vh[:k] - test).square().mean().item()


def pca_centred_with_test_mean(train, test, k):
    _, _, vh = torch.linalg.svd(train - train.mean(dim=0), full_matrices=False)
    mean = test.mean(dim=0)
    return ((test - mean) @ vh[:k].T @ vh[:k] + mean - test).square().mean().item()


def pca_summed_per_image(train, test, k):
    mean = train.mean(dim=0)
    _, _, vh = torch.linalg.svd(train - mean, full_matrices=False)
    return ((test - mean) @ vh[:k].T @ vh[:k] + mean - test).square().sum(dim=1).mean().item()


def pca_as_tensor(train, test, k):
    mean = train.mean(dim=0)
    _, _, vh = torch.linalg.svd(train - mean, full_matrices=False)
    return ((test - mean) @ vh[:k].T @ vh[:k] + mean - test).square().mean()


WRONG = {
    "tie_status": {"copy_called_tied": status_by_values, "detached_called_tied": status_by_memory,
                   "new_parameter_called_tied": status_by_requires_grad},
    "tied_gradient": {"decoder_path_only": gradient_decoder_path_only, "encoder_path_only": gradient_encoder_path_only,
                      "sum_not_mean": gradient_of_the_sum},
    "pca_reconstruction_mse": {"uncentred": pca_uncentred, "test_mean": pca_centred_with_test_mean,
                               "per_image_sum": pca_summed_per_image},
}

SHORTCUTS = {
    "tie_status": [status_by_attribute, status_always_tied, status_as_bool, status_unknown_word],
    "tied_gradient": [gradient_by_autograd, gradient_by_autograd_grad, gradient_as_list, gradient_transposed],
    "pca_reconstruction_mse": [pca_as_tensor],
}
