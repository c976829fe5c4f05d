"""Checks for the lesson 05 exercises (tied autoencoders)."""

import torch

from ..solutions import lesson05 as solutions
from ..tying import shares_storage
from . import Mismatch, exercise, expect_close, expect_equal


@exercise(solutions.tied_decoder_weight, hint="the decoder must *be* W, read transposed: W.t() (or W.T) is a view "
          "of the same memory; .clone(), .detach() or a new nn.Parameter breaks the tie.")
def tied_decoder_weight(answer, solution):
    shapes = [(16, 64), (3, 5)]
    for rows, cols in shapes:
        W = torch.nn.Parameter(torch.randn(rows, cols, generator=torch.Generator().manual_seed(rows)))
        got = answer(W)
        what = f"tied_decoder_weight(W of shape {(rows, cols)})"
        if not isinstance(got, torch.Tensor):
            raise Mismatch(f"{what} must return a tensor", "a (d, h) tensor", type(got).__name__)
        expect_close(got.detach(), solution(W).detach(), what, atol=0)
        if not shares_storage(got, W):
            raise Mismatch(f"{what}: your decoder is a copy — it does not share storage with W, so the two "
                           "would drift apart after one optimiser step", "shares storage: True", "shares storage: False")
        if not got.requires_grad:
            raise Mismatch(f"{what}: no gradient can reach W through your decoder (it was detached)",
                           "requires_grad: True", "requires_grad: False")
        upstream = torch.randn(cols, rows, generator=torch.Generator().manual_seed(7))
        (got * upstream).sum().backward()
        expect_close(W.grad, upstream.T, f"{what}: the gradient that reaches W")
    return len(shapes)


@exercise(solutions.autoencoder_parameter_count, hint="count W (h×d) once when tied, twice (W and a d×h decoder) "
          "when untied — and do not forget the encoder bias (h) and the decoder bias (d).")
def autoencoder_parameter_count(answer, solution):
    from ..autoencoder_model import Autoencoder
    from ..models import count_parameters

    cases = [(64, 16, True), (64, 16, False), (784, 128, True), (784, 128, False), (10, 3, True)]
    for n_inputs, n_hidden, tie in cases:
        expected = count_parameters(Autoencoder(n_inputs, n_hidden, tie=tie))  # what PyTorch itself counts
        assert expected == solution(n_inputs, n_hidden, tie)
        expect_equal(answer(n_inputs, n_hidden, tie), expected,
                     f"autoencoder_parameter_count({n_inputs}, {n_hidden}, tie={tie})")
    return len(cases)


@exercise(solutions.pca_reconstruction_mse, hint="centre with the *training* mean, take the top-k right singular "
          "vectors of the centred training matrix (torch.linalg.svd), project the centred test rows onto them, "
          "add the mean back, then average the squared differences over all entries.")
def pca_reconstruction_mse(answer, solution):
    generator = torch.Generator().manual_seed(5)
    low_rank = torch.randn(80, 3, generator=generator, dtype=torch.float64) @ torch.randn(
        3, 6, generator=generator, dtype=torch.float64)
    data = low_rank + 0.1 * torch.randn(80, 6, generator=generator, dtype=torch.float64) + 3.0  # an offset mean
    train, test = data[:60], data[60:]
    cases = [(train, test, 1), (train, test, 3), (train, train, 2)]
    for tr, te, k in cases:
        got = answer(tr, te, k)
        if isinstance(got, torch.Tensor) and got.numel() == 1:
            got = got.item()
        if not isinstance(got, float):
            raise Mismatch(f"pca_reconstruction_mse(..., k={k}) must return one number", "a float", repr(got))
        expect_close(got, solution(tr, te, k), f"pca_reconstruction_mse(train {tuple(tr.shape)}, "
                     f"test {tuple(te.shape)}, k={k})", atol=1e-8)
    return len(cases)
