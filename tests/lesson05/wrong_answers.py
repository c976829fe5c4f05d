"""Lesson 05: one wrong answer per diagnosed mistake, the shortcuts each check must refuse, and the plausible
wrong answers that get no diagnosis of their own (CAUGHT)."""

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


def status_by_grad_fn(model):  # memory + "has a grad_fn": a view of a detached leaf passes as "tied"
    decoder, W = model.decoder_matrix(), model.W
    if decoder.untyped_storage().data_ptr() == W.untyped_storage().data_ptr():
        return "tied" if decoder.grad_fn is not None else "detached"
    return "copy" if torch.equal(decoder.detach(), W.detach().t()) else "untied"


def status_by_is_leaf(model):  # memory + "not a leaf": the same slip, read from is_leaf
    decoder, W = model.decoder_matrix(), model.W
    if decoder.untyped_storage().data_ptr() == W.untyped_storage().data_ptr():
        return "detached" if decoder.is_leaf else "tied"
    return "copy" if torch.equal(decoder.detach(), W.detach().t()) else "untied"


def status_by_identity(model):  # "is it W's view object?": W.detach().t() is a new object, taken for a copy
    decoder, W = model.decoder_matrix(), model.W
    if decoder._base is W:
        return "tied"
    return "copy" if torch.equal(decoder.detach(), W.detach().t()) else "untied"


def status_by_gradient_only(model):  # gradient, then values: any shared-memory decoder without W's gradient is a "copy"
    decoder, W = model.decoder_matrix(), model.W
    if decoder.requires_grad and torch.autograd.grad(decoder.sum(), W, allow_unused=True)[0] is not None:
        return "tied"
    return "copy" if torch.equal(decoder.detach(), W.detach().t()) else "untied"


def status_compares_with_W(model):  # equal values tested against W, not Wᵀ: a copy passes as "untied"
    decoder, W = model.decoder_matrix(), model.W
    if decoder.untyped_storage().data_ptr() == W.untyped_storage().data_ptr():
        return "tied" if torch.autograd.grad(decoder.sum(), W, allow_unused=True)[0] is not None else "detached"
    return "copy" if torch.equal(decoder.detach(), W.detach()) else "untied"


def status_own_memory_is_untied(model):  # own memory taken for "untied", whatever the values
    decoder, W = model.decoder_matrix(), model.W
    if decoder.untyped_storage().data_ptr() != W.untyped_storage().data_ptr():
        return "untied"
    return "tied" if torch.autograd.grad(decoder.sum(), W, allow_unused=True)[0] is not None else "detached"


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


def _summed(W, b, c, x, scale):  # both paths, with the output gradient 2(x̂ − x) times `scale` instead of 1/(n·d)
    z = x @ W.T + b
    grad_out = 2 * (z @ W + c - x) * scale
    return z.T @ grad_out + (grad_out @ W.T).T @ x


def gradient_without_the_two(W, b, c, x):
    return _summed(W, b, c, x, 1 / (2 * x.numel()))  # (x̂ − x) / (n·d): the 2 of the square is lost


def gradient_averaging_the_paths(W, b, c, x):  # (decoder path + encoder path) / 2: also exactly half
    z = x @ W.T + b
    grad_out = 2 * (z @ W + c - x) / x.numel()
    return (z.T @ grad_out + (grad_out @ W.T).T @ x) / 2


def gradient_mean_over_images(W, b, c, x):
    return _summed(W, b, c, x, 1 / len(x))  # divided by n only


def gradient_mean_over_pixels(W, b, c, x):
    return _summed(W, b, c, x, 1 / x.shape[1])  # divided by d only


def gradient_sign_flipped(W, b, c, x):
    return -_summed(W, b, c, x, 1 / x.numel())  # 2(x − x̂): the residual the wrong way round


def gradient_without_the_code_bias(W, b, c, x):
    return _summed(W, b.zero_(), c, x, 1 / x.numel())  # z = W x, forgetting b


def gradient_encoder_path_twice(W, b, c, x):  # "the two paths are the same": the encoder part doubled
    return 2 * _paths(W, b, c, x)[1]


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


def pca_centred_with_one_number(train, test, k):
    mean = train.mean()  # dim=0 forgotten: the mean of all pixels
    _, _, vh = torch.linalg.svd(train - mean, full_matrices=False)
    return ((test - mean) @ vh[:k].T @ vh[:k] + mean - test).square().mean().item()


def _pca_with(train, test, basis_of):
    mean = train.mean(dim=0)
    u, _, vh = torch.linalg.svd(train - mean, full_matrices=False)
    basis = basis_of(u, vh)
    return ((test - mean) @ basis.T @ basis + mean - test).square().mean().item()


def pca_columns_of_vh(train, test, k):
    return _pca_with(train, test, lambda u, vh: vh[:, :k].T)  # columns of Vᴴ taken for the directions


def pca_smallest_directions(train, test, k):
    return _pca_with(train, test, lambda u, vh: vh[-k:])  # the k directions of least variance


def pca_one_direction_too_many(train, test, k):
    return _pca_with(train, test, lambda u, vh: vh[:k + 1])


def pca_left_singular_vectors(train, test, k):
    return _pca_with(train, test, lambda u, vh: u[:, :k].T)  # U (n, k) instead of V: a crash, named as such


def pca_mean_not_added_back(train, test, k):
    mean = train.mean(dim=0)
    _, _, vh = torch.linalg.svd(train - mean, full_matrices=False)
    return ((test - mean) @ vh[:k].T @ vh[:k] - test).square().mean().item()


def pca_training_error_formula(train, test, k):  # the discarded singular values: the error on train, not test
    _, s, _ = torch.linalg.svd(train - train.mean(dim=0), full_matrices=False)
    return (s[k:].square().sum() / train.numel()).item()


def pca_as_tensor(train, test, k):
    mean = train.mean(dim=0)
    _, _, vh = torch.linalg.svd(train - mean, full_matrices=False)
    return ((test - mean) @ vh[:k].T @ vh[:k] + mean - test).square().mean()



def status_requires_grad_first(model):  # a decoder that does not require grad is called detached, memory unasked
    decoder, W = model.decoder_matrix(), model.W
    if not decoder.requires_grad:
        return "detached"
    if decoder.untyped_storage().data_ptr() != W.untyped_storage().data_ptr():
        return "copy" if torch.equal(decoder.detach(), W.detach().t()) else "untied"
    (to_W,) = torch.autograd.grad(decoder.sum(), W, allow_unused=True)
    return "tied" if to_W is not None else "detached"


def status_copy_and_untied_swapped(model):  # the right tests, the two own-memory labels swapped
    decoder, W = model.decoder_matrix(), model.W
    if decoder.untyped_storage().data_ptr() != W.untyped_storage().data_ptr():
        return "untied" if torch.equal(decoder.detach(), W.detach().t()) else "copy"
    if not decoder.requires_grad:
        return "detached"
    return "tied" if torch.autograd.grad(decoder.sum(), W, allow_unused=True)[0] is not None else "detached"


def status_grad_of_detached(model):  # autograd asked through every shared-memory decoder: a detached view raises
    decoder, W = model.decoder_matrix(), model.W
    if decoder.untyped_storage().data_ptr() != W.untyped_storage().data_ptr():
        return "copy" if torch.equal(decoder.detach(), W.detach().t()) else "untied"
    return "tied" if torch.autograd.grad(decoder.sum(), W)[0] is not None else "detached"


def gradient_mean_over_codes(W, b, c, x):
    return _summed(W, b, c, x, 1 / (len(x) * len(W)))  # divided by n·h (code units), not n·d


def gradient_encoder_path_times_reconstruction(W, b, c, x):
    z = x @ W.T + b
    x_hat = z @ W + c
    grad_out = 2 * (x_hat - x) / x.numel()
    return z.T @ grad_out + (grad_out @ W.T).T @ x_hat  # the encoder part reads x̂, not x


def gradient_without_the_output_bias(W, b, c, x):
    z = x @ W.T + b
    grad_out = 2 * (z @ W - x) / x.numel()  # c left out of the residual
    return z.T @ grad_out + (grad_out @ W.T).T @ x


def gradient_decoder_path_without_code_bias(W, b, c, x):
    z = x @ W.T + b
    grad_out = 2 * (z @ W + c - x) / x.numel()
    return (x @ W.T).T @ grad_out + (grad_out @ W.T).T @ x  # the decoder part times W x, not z


def gradient_mean_residual(W, b, c, x):
    z = x @ W.T + b
    grad_out = 2 * (z @ W + c - x).mean() * torch.ones_like(x)  # one number for every entry
    return z.T @ grad_out + (grad_out @ W.T).T @ x


def pca_test_directions(train, test, k):
    mean = train.mean(dim=0)
    _, _, vh = torch.linalg.svd(test - test.mean(dim=0), full_matrices=False)  # fitted to the test rows
    return ((test - mean) @ vh[:k].T @ vh[:k] + mean - test).square().mean().item()


def pca_one_direction_short(train, test, k):
    return _pca_with(train, test, lambda u, vh: vh[:k - 1])  # "indices start at 0, so stop at k − 1"


def pca_root_of_mse(train, test, k):
    mean = train.mean(dim=0)
    _, _, vh = torch.linalg.svd(train - mean, full_matrices=False)
    return ((test - mean) @ vh[:k].T @ vh[:k] + mean - test).square().mean().sqrt().item()


def pca_standardised(train, test, k):  # divided by the std before the SVD, never undone
    mean, std = train.mean(dim=0), train.std(dim=0)
    _, _, vh = torch.linalg.svd((train - mean) / std, full_matrices=False)
    z = (test - mean) / std
    return (z @ vh[:k].T @ vh[:k] - z).square().mean().item()


def pca_smallest_by_eigh(train, test, k):  # eigh sorts ascending: its first k eigenvectors are the smallest
    mean = train.mean(dim=0)
    _, vectors = torch.linalg.eigh((train - mean).T @ (train - mean))
    basis = vectors[:, :k].T
    return ((test - mean) @ basis.T @ basis + mean - test).square().mean().item()


def gradient_encoder_path_subtracted(W, b, c, x):  # the transpose taken for a change of sign
    decoder_path, encoder_path = _paths(W, b, c, x)
    return decoder_path - encoder_path


def gradient_two_in_decoder_path_only(W, b, c, x):
    z = x @ W.T + b
    residual = (z @ W + c - x) / x.numel()
    return z.T @ (2 * residual) + (residual @ W.T).T @ x


def gradient_two_in_encoder_path_only(W, b, c, x):
    z = x @ W.T + b
    residual = (z @ W + c - x) / x.numel()
    return z.T @ residual + (2 * residual @ W.T).T @ x


def gradient_decoder_path_twice(W, b, c, x):  # "the two paths are the same": the decoder part doubled
    return 2 * _paths(W, b, c, x)[0]


def pca_test_mean_added_back(train, test, k):
    mean = train.mean(dim=0)
    _, _, vh = torch.linalg.svd(train - mean, full_matrices=False)
    return ((test - mean) @ vh[:k].T @ vh[:k] + test.mean(dim=0) - test).square().mean().item()


def pca_test_not_centred(train, test, k):
    mean = train.mean(dim=0)
    _, _, vh = torch.linalg.svd(train - mean, full_matrices=False)
    return (test @ vh[:k].T @ vh[:k] + mean - test).square().mean().item()


def pca_unbiased_denominator(train, test, k):
    mean = train.mean(dim=0)
    _, _, vh = torch.linalg.svd(train - mean, full_matrices=False)
    return (((test - mean) @ vh[:k].T @ vh[:k] + mean - test).square().sum() / (test.numel() - 1)).item()


def pca_summed(train, test, k):
    mean = train.mean(dim=0)
    _, _, vh = torch.linalg.svd(train - mean, full_matrices=False)
    return ((test - mean) @ vh[:k].T @ vh[:k] + mean - test).square().sum().item()


def pca_absolute_error(train, test, k):
    mean = train.mean(dim=0)
    _, _, vh = torch.linalg.svd(train - mean, full_matrices=False)
    return ((test - mean) @ vh[:k].T @ vh[:k] + mean - test).abs().mean().item()


WRONG = {
    "tie_status": {"copy_called_tied": status_by_values, "detached_called_tied": status_by_memory,
                   "new_parameter_called_tied": status_by_requires_grad,
                   "detached_leaf_called_tied": status_by_grad_fn, "shared_called_copy": status_by_identity,
                   "frozen_called_detached": status_requires_grad_first,
                   "copy_untied_swapped": status_copy_and_untied_swapped, "grad_of_detached": status_grad_of_detached,
                   "copy_called_untied": status_compares_with_W},
    "tied_gradient": {"decoder_path_only": gradient_decoder_path_only, "encoder_path_only": gradient_encoder_path_only,
                      "sum_not_mean": gradient_of_the_sum, "missing_two": gradient_without_the_two,
                      "mean_over_images": gradient_mean_over_images, "mean_over_codes": gradient_mean_over_codes,
                      "encoder_path_times_reconstruction": gradient_encoder_path_times_reconstruction,
                      "output_bias_forgotten": gradient_without_the_output_bias,
                      "decoder_path_without_code_bias": gradient_decoder_path_without_code_bias,
                      "mean_residual": gradient_mean_residual,
                      "encoder_path_subtracted": gradient_encoder_path_subtracted,
                      "two_in_decoder_path_only": gradient_two_in_decoder_path_only,
                      "two_in_encoder_path_only": gradient_two_in_encoder_path_only,
                      "sign_flipped": gradient_sign_flipped, "mean_over_pixels": gradient_mean_over_pixels,
                      "code_bias_forgotten": gradient_without_the_code_bias,
                      "encoder_path_twice": gradient_encoder_path_twice, "decoder_path_twice": gradient_decoder_path_twice},
    "pca_reconstruction_mse": {"uncentred": pca_uncentred, "test_mean": pca_centred_with_test_mean,
                               "per_image_sum": pca_summed_per_image, "scalar_mean": pca_centred_with_one_number,
                               "test_directions": pca_test_directions, "smallest_directions": pca_smallest_directions,
                               "one_direction_short": pca_one_direction_short, "root_of_mse": pca_root_of_mse,
                               "standardised_units": pca_standardised,
                               "test_mean_added_back": pca_test_mean_added_back, "test_not_centred": pca_test_not_centred,
                               "mean_not_added_back": pca_mean_not_added_back,
                               "unbiased_denominator": pca_unbiased_denominator, "summed": pca_summed,
                               "one_direction_too_many": pca_one_direction_too_many, "columns_of_vh": pca_columns_of_vh,
                               "training_error": pca_training_error_formula, "absolute_error": pca_absolute_error},
}

SHORTCUTS = {
    "tie_status": [status_by_attribute, status_always_tied, status_as_bool, status_unknown_word],
    "tied_gradient": [gradient_by_autograd, gradient_by_autograd_grad, gradient_as_list, gradient_transposed],
    "pca_reconstruction_mse": [pca_as_tensor],
}

# Plausible wrong answers without a named mistake: each must fail and say what differs (tests/course).
CAUGHT = {
    "pca_reconstruction_mse": [pca_left_singular_vectors],
}

# Further wrong answers that a named mistake also covers (tests/lesson05 checks each gets that diagnosis).
ALSO_DIAGNOSED = {
    "tie_status": {"detached_leaf_called_tied": [status_by_is_leaf], "shared_called_copy": [status_by_gradient_only],
                   "copy_called_untied": [status_own_memory_is_untied]},
    "tied_gradient": {"missing_two": [gradient_averaging_the_paths]},
    "pca_reconstruction_mse": {"smallest_directions": [pca_smallest_by_eigh]},
}
