"""What the known mistakes of the lesson 05 exercises give on a case, so that the checks can recognise them
(``exercises`` names a mistake when the answer's value is the one computed here)."""

import torch

from lmtie_edu.kit.feedback import LearnerCrash


def _close(got, value, atol: float) -> bool:
    try:
        got = torch.as_tensor(got).detach().double()
    except (TypeError, ValueError, RuntimeError):
        return False
    value = torch.as_tensor(value).double()
    return got.shape == value.shape and bool(torch.allclose(got, value, atol=atol, rtol=1e-5))


def always_gives(answer, cases, model, atol: float) -> bool:
    """Does the answer return ``model(*case)`` on every one of ``cases`` (each called with fresh copies)? A
    crash: no. One case alone could be chance; every case is the mistake."""
    try:
        return all(_close(answer(*(a.clone() if isinstance(a, torch.Tensor) else a for a in case)), model(*case), atol)
                   for case in cases)
    except LearnerCrash:
        return False


def name_if_always(mismatch, got, answer, cases, models: dict, case: tuple, atol: float) -> None:
    """Give an unnamed ``mismatch`` the first of ``models`` whose value the answer gives on ``case`` and on every
    one of ``cases``."""
    if mismatch.mistake is None:
        for key, model in models.items():
            if _close(got, model(*case), atol) and always_gives(answer, cases, model, atol):
                mismatch.mistake = key
                return


def says_copy_for_untied(answer, untied_model) -> bool:
    """Does the answer call an untied decoder (own memory, other values) a 'copy'? (a crash there: no)"""
    try:
        return answer(untied_model) == "copy"
    except LearnerCrash:
        return False


# -- tied_gradient -------------------------------------------------------------------------------------------------
def _paths(W, b, c, x, scale=None):
    z = x @ W.T + b
    grad_out = 2 * (z @ W + c - x) * (1 / x.numel() if scale is None else scale)
    return z.T @ grad_out, (grad_out @ W.T).T @ x


def gradient_slips(W, b, c, x):
    """What four slips of the chain rule return: the encoder part times x̂, the output bias c left out of the
    residual, the decoder part times the codes without b, and the mean residual spread over every entry."""
    z = x @ W.T + b
    x_hat = z @ W + c
    grad_out = 2 * (x_hat - x) / x.numel()
    without_c = 2 * (z @ W - x) / x.numel()
    spread = 2 * (x_hat - x).mean() * torch.ones_like(x)
    return {"encoder_path_times_reconstruction": z.T @ grad_out + (grad_out @ W.T).T @ x_hat,
            "output_bias_forgotten": z.T @ without_c + (without_c @ W.T).T @ x,
            "decoder_path_without_code_bias": (x @ W.T).T @ grad_out + (grad_out @ W.T).T @ x,
            "mean_residual": z.T @ spread + (spread @ W.T).T @ x}


# named only when the answer gives the value in every case
GRADIENT_MISTAKES = {
    "encoder_path_subtracted": lambda W, b, c, x: _paths(W, b, c, x)[0] - _paths(W, b, c, x)[1],
    "two_in_decoder_path_only": lambda W, b, c, x: _paths(W, b, c, x)[0] + _paths(W, b, c, x)[1] / 2,
    "two_in_encoder_path_only": lambda W, b, c, x: _paths(W, b, c, x)[0] / 2 + _paths(W, b, c, x)[1],
    "sign_flipped": lambda W, b, c, x: -sum(_paths(W, b, c, x)),
    "mean_over_pixels": lambda W, b, c, x: sum(_paths(W, b, c, x, 1 / x.shape[1])),
    "code_bias_forgotten": lambda W, b, c, x: sum(_paths(W, torch.zeros_like(b), c, x)),
    "encoder_path_twice": lambda W, b, c, x: 2 * _paths(W, b, c, x)[1],
    "decoder_path_twice": lambda W, b, c, x: 2 * _paths(W, b, c, x)[0],
}


# -- pca_reconstruction_mse ----------------------------------------------------------------------------------------
def pca_slips(train, test, k):
    """What common slips return: no centring, centring the test rows with their own mean, the mean over images
    of the squared error summed over pixels, centring with the one-number mean of all pixels, and more."""
    _, _, vh = torch.linalg.svd(train, full_matrices=False)
    uncentred = (test @ vh[:k].T @ vh[:k] - test).square().mean().item()
    mean = train.mean(dim=0)
    _, _, vh = torch.linalg.svd(train - mean, full_matrices=False)
    own_mean = test.mean(dim=0)
    test_mean = ((test - own_mean) @ vh[:k].T @ vh[:k] + own_mean - test).square().mean().item()
    per_image = ((test - mean) @ vh[:k].T @ vh[:k] + mean - test).square().sum(dim=1).mean().item()
    scalar = train.mean()
    _, _, vh = torch.linalg.svd(train - scalar, full_matrices=False)
    scalar_mean = ((test - scalar) @ vh[:k].T @ vh[:k] + scalar - test).square().mean().item()
    _, _, vh = torch.linalg.svd(train - mean, full_matrices=False)

    def error(basis, rows=test):
        return ((rows - mean) @ basis.T @ basis + mean - rows).square().mean().item()

    _, _, test_vh = torch.linalg.svd(test - own_mean, full_matrices=False)
    std = train.std(dim=0)
    _, _, standard_vh = torch.linalg.svd((train - mean) / std, full_matrices=False)
    standard = (test - mean) / std
    return {"uncentred": uncentred, "test_mean": test_mean, "per_image_sum": per_image, "scalar_mean": scalar_mean,
            "test_directions": error(test_vh[:k]), "smallest_directions": error(vh[vh.shape[0] - k:]),
            "one_direction_short": error(vh[:k - 1]), "root_of_mse": error(vh[:k]) ** 0.5,
            "standardised_units": (standard @ standard_vh[:k].T @ standard_vh[:k] - standard).square().mean().item()}


def _squared_errors(train, test, k, *, centre_test=True, added_back=None, basis_of=None):
    mean = train.mean(dim=0)
    _, s, vh = torch.linalg.svd(train - mean, full_matrices=False)
    basis = vh[:k] if basis_of is None else basis_of(vh)
    projected = ((test - mean) if centre_test else test) @ basis.T @ basis
    return (projected + (mean if added_back is None else added_back) - test).square()


def _training_error(train, test, k):
    _, s, _ = torch.linalg.svd(train - train.mean(dim=0), full_matrices=False)
    return (s[k:].square().sum() / train.numel()).item()


# named only when the answer gives the value in every case
PCA_MISTAKES = {
    "test_mean_added_back": lambda train, test, k: _squared_errors(train, test, k,
                                                                   added_back=test.mean(dim=0)).mean().item(),
    "test_not_centred": lambda train, test, k: _squared_errors(train, test, k, centre_test=False).mean().item(),
    "mean_not_added_back": lambda train, test, k: _squared_errors(train, test, k, added_back=0.0).mean().item(),
    "unbiased_denominator": lambda train, test, k: (_squared_errors(train, test, k).sum() / (test.numel() - 1)).item(),
    "summed": lambda train, test, k: _squared_errors(train, test, k).sum().item(),
    "one_direction_too_many": lambda train, test, k: _squared_errors(train, test, k,
                                                                     basis_of=lambda vh: vh[:k + 1]).mean().item(),
    "columns_of_vh": lambda train, test, k: _squared_errors(train, test, k,
                                                            basis_of=lambda vh: vh[:, :k].T).mean().item(),
    "training_error": _training_error,
    "absolute_error": lambda train, test, k: _squared_errors(train, test, k).sqrt().mean().item(),
}
