"""Checks for the lesson 05 exercises (tied autoencoders)."""

import torch
import torch.nn.functional as F
from torch import nn

from lmtie_edu.kit.exercises import Mismatch, exercise, expect_close, expect_type, forbid_autograd, hint
from lmtie_edu.shared.language import N_, tr

from . import mistakes, solutions

__all__ = ["hint", "pca_reconstruction_mse", "tie_status", "tied_gradient"]  # the lesson calls ex.hint("name")

STATUSES = ("tied", "detached", "copy", "untied")


class _Transposed:
    """A model's ``decoder_matrix`` that gives ``source.t()``, detached first if asked (an object, not a lambda,
    so that the model can be sent to the process that grades an answer)."""

    def __init__(self, source: torch.Tensor, *, detach: bool):
        self.source, self.detach = source, detach

    def __call__(self) -> torch.Tensor:
        return (self.source.detach() if self.detach else self.source).t()


def model_that_ties_by(how: str, n_inputs: int, n_hidden: int, seed: int) -> nn.Module:
    """An autoencoder whose decoder matrix is built ``how``: 'view' (the real tie), 'detached view',
    'new Parameter' (nn.Parameter around Wᵀ), 'view of a detached leaf' (W.detach().requires_grad_() viewed
    as its transpose), 'copy' (a Parameter holding a clone of Wᵀ), 'untied', or 'frozen copy' / 'frozen untied'
    (those two with a decoder that does not require grad)."""
    from .model import Autoencoder

    tie = how in ("view", "detached view", "view of a detached leaf")
    model = Autoencoder(n_inputs, n_hidden, tie=tie, activation="linear", seed=seed)
    if how == "detached view":
        model.decoder_matrix = _Transposed(model.W, detach=True)  # shadows the method for this model only
    elif how == "new Parameter":
        model.decoder_weight = nn.Parameter(model.W.t())  # wraps W's own memory, as a leaf of its own
    elif how == "view of a detached leaf":
        leaf = model.W.detach().requires_grad_(True)  # W's memory, a new leaf: requires grad, but is not W
        model.decoder_matrix = _Transposed(leaf, detach=False)  # a view with a grad_fn, whose gradient stops at leaf
    elif how == "copy":
        model.decoder_weight = nn.Parameter(model.W.detach().t().clone())
    elif how == "frozen copy":
        model.decoder_weight = nn.Parameter(model.W.detach().t().clone(), requires_grad=False)
    elif how == "frozen untied":
        model.decoder_weight.requires_grad_(False)
    elif how not in ("view", "untied"):
        raise ValueError(f"unknown way to build the decoder: {how!r}")
    return model


TIE_CASES = [("view", "tied"), ("copy", "copy"), ("detached view", "detached"), ("new Parameter", "detached"),
             ("untied", "untied"), ("view of a detached leaf", "detached"), ("frozen copy", "copy"),
             ("frozen untied", "untied")]
CALLED_TIED = {"copy": "copy_called_tied", "detached view": "detached_called_tied",
               "new Parameter": "new_parameter_called_tied", "view of a detached leaf": "detached_leaf_called_tied"}
SHARED = ("view", "detached view", "new Parameter", "view of a detached leaf")  # decoders that read W's memory


@exercise(solutions.tie_status, hints=[
    N_("A real tie needs two things at once: the decoder must read the very memory of W (so the two can never "
    "drift apart), and a gradient computed through the decoder must arrive at W (so W learns from both paths). "
    "Test each property separately; equal values prove neither."),
    N_("First compare where the two tensors' storage lives (section 2 has a helper that does it). If the memory "
    "differs, equal values mean a copy, different values an untied model. If it is shared, ask autograd "
    "whether anything computed from the decoder matrix reaches W — a tensor that does not require grad, or a "
    "separate leaf Parameter, stops the gradient on its way.")],
    mistakes={
        "copy_called_tied": N_("equal values are not a tie: this decoder holds its own copy of Wᵀ in its own memory. "
                            "It starts equal, and the first optimiser step moves the two apart."),
        "detached_called_tied": N_("sharing memory is only half of a tie: this decoder is a detached view of W, so "
                                "no gradient flows from it to W — W would learn from the encoder path alone."),
        "new_parameter_called_tied": N_("a new nn.Parameter made from Wᵀ is detached, not tied: it wraps W's own "
                                     "memory (no copy is made), but it is a leaf of its own, so the decoder-path "
                                     "gradient stops at it and never reaches W."),
        "detached_leaf_called_tied": N_("requires_grad, grad_fn and is_leaf describe the decoder tensor, not where "
                                     "its gradient goes: this one is a view of W.detach().requires_grad_(), a new "
                                     "leaf over W's memory, so the decoder-path gradient stops at that leaf and "
                                     "never reaches W. Ask autograd whether a gradient arrives at W itself."),
        "frozen_called_detached": N_("this decoder has memory of its own (its storage is not W's), so it is a copy or "
                                  "untied whatever requires_grad says: a frozen decoder is still not W. Compare "
                                  "memory first; ask about the gradient only when the memory is W's."),
        "shared_called_copy": N_("this decoder is not a copy: it reads W's own memory (its storage is W's storage). "
                              "W.detach(), nn.Parameter(W.t()) and W.detach().requires_grad_() make new tensor "
                              "objects over the same memory, not new memory. Decide copy or not by comparing "
                              "storages (section 2's same_memory), not tensor objects or gradients."),
        "copy_untied_swapped": N_("your two own-memory labels are swapped: you call a decoder equal to Wᵀ "
                               "'untied' and one with different values 'copy'. A copy holds the same values as "
                               "Wᵀ in memory of its own; an untied decoder has its own values."),
        "copy_called_untied": N_("you called 'untied' a decoder that holds exactly the values of Wᵀ in memory of "
                              "its own: that is a copy. Compare its values with Wᵀ (W.t()), not with W, whose "
                              "shape (h, d) differs from the decoder's (d, h) so that torch.equal is always "
                              "False."),
        "grad_of_detached": N_("you asked autograd for a gradient through a decoder matrix that does not require "
                            "grad, and autograd raises instead of answering. Such a decoder cannot send a gradient "
                            "to W: when it shares W's memory it is 'detached', so check requires_grad before "
                            "asking autograd (and pass allow_unused=True, so that an unconnected decoder gives "
                            "None)."),
    }, on_error=lambda error: "grad_of_detached" if "does not require grad and does not have a grad_fn" in str(error)
    else None)
def tie_status(answer, solution):
    checked = 0
    for n_inputs, n_hidden, seed in ((64, 16, 0), (6, 3, 1)):
        for how, status in TIE_CASES:
            # the reference first, on a model of its own: the answer's model is built for the answer alone
            assert solution(model_that_ties_by(how, n_inputs, n_hidden, seed)) == status  # the reference agrees
            got = answer(model_that_ties_by(how, n_inputs, n_hidden, seed))
            what = tr("tie_status(a {n_inputs}→{n_hidden} autoencoder whose decoder is {how!r})", n_inputs=n_inputs,
                      n_hidden=n_hidden, how=how)
            expect_type(got, str, what)
            if got not in STATUSES:
                raise Mismatch(tr("{what} must return one of {statuses}", what=what,
                                  statuses=", ".join(map(repr, STATUSES))), status, got)
            if got != status:
                mistake = CALLED_TIED.get(how) if got == "tied" else None
                if got == "copy" and how in SHARED:
                    mistake = "shared_called_copy"
                if got == "detached" and how.startswith("frozen"):
                    mistake = "frozen_called_detached"
                if got == "untied" and how in ("copy", "frozen copy") and mistakes.says_copy_for_untied(
                        answer, model_that_ties_by("untied", n_inputs, n_hidden, seed)):
                    mistake = "copy_untied_swapped"
                elif got == "untied" and how in ("copy", "frozen copy"):
                    mistake = "copy_called_untied"
                raise Mismatch(tr("{what}: wrong answer", what=what), status, got, mistake=mistake)
            checked += 1
    return checked


def _gradient_paths(W, b, c, x):
    """(decoder-path, encoder-path) gradients of the mean squared error, each computed by autograd alone."""
    W_enc, W_dec = W.clone().requires_grad_(True), W.clone().requires_grad_(True)
    F.mse_loss((x @ W_enc.T + b) @ W_dec + c, x).backward()
    return W_dec.grad, W_enc.grad


@exercise(solutions.tied_gradient, hints=[
    N_("W is used twice, so its gradient is the sum of two gradients: the one it would get as the decoder alone "
    "and the one it would get as the encoder alone (section 2 checked this with autograd). Derive each with "
    "the chain rule, as if they were two different matrices."),
    N_("Start from the gradient at the reconstruction (the loss is a mean over all n·d entries). The decoder part "
    "is the codes (transposed) times that output gradient. For the encoder part, send the output gradient back "
    "through the decoder to get the gradient at the codes, then multiply its transpose by the inputs. Check "
    "that both parts have W's shape (h, d).")],
    mistakes={
        "decoder_path_only": N_("this is the gradient W gets as the decoder only; as the encoder it gets a second "
                             "term, and a tied matrix receives the sum of both."),
        "encoder_path_only": N_("this is the gradient W gets as the encoder only; as the decoder it gets a second "
                             "term, and a tied matrix receives the sum of both."),
        "sum_not_mean": N_("your gradient is n·d times too large: the loss is the mean of the squared errors over "
                        "all entries (n images × d pixels), not their sum."),
        "missing_two": N_("your gradient is exactly half the right one. Two slips give that: dropping the 2 of "
                       "the derivative of (x̂ − x)², which is 2(x̂ − x) (F.mse_loss has no ½ in front to cancel "
                       "it), or averaging the decoder and encoder paths instead of adding them (a tied matrix "
                       "receives their sum)."),
        "mean_over_images": N_("your gradient is d times too large: you divided by the number of images n only, "
                            "but F.mse_loss averages over all n·d entries (images × pixels)."),
        "mean_over_codes": N_("your gradient is d/h times the right one: you divided by n·h (images × code "
                           "units), but the loss averages over the n·d entries of the reconstruction (images × "
                           "pixels)."),
        "encoder_path_times_reconstruction": N_("your encoder part multiplies the gradient at the codes by the "
                                             "reconstructions x̂; the encoder reads the inputs (z = x Wᵀ + b), so its "
                                             "part is that gradient (transposed) times x."),
        "output_bias_forgotten": N_("your residual leaves out the output bias c: the reconstruction is z W + c, "
                                 "so the gradient at it is 2(z W + c − x) over n·d."),
        "decoder_path_without_code_bias": N_("your decoder part multiplies by x Wᵀ, the codes without their bias "
                                          "b: the decoder reads the codes z = x Wᵀ + b, so its part is zᵀ times the "
                                          "gradient at the reconstruction."),
        "mean_residual": N_("you averaged the residual into one number and spread it over every entry: the "
                         "gradient of a mean of squares has one entry per reconstructed value, 2(x̂ − x)/(n·d), "
                         "each with its own residual."),
        "encoder_path_subtracted": N_("you subtracted the encoder part from the decoder part: a tied matrix receives "
                                   "the sum of its two paths' gradients. Transposing W on its way into the encoder "
                                   "changes the shape of its part (transpose it back), not its sign."),
        "two_in_decoder_path_only": N_("the factor 2 of the squared error is in your decoder part only: your encoder "
                                    "part is half what it should be. Both parts start from the same output "
                                    "gradient, 2(x̂ − x)/(n·d)."),
        "two_in_encoder_path_only": N_("the factor 2 of the squared error is in your encoder part only: your decoder "
                                    "part is half what it should be. Both parts start from the same output "
                                    "gradient, 2(x̂ − x)/(n·d)."),
        "sign_flipped": N_("your gradient is the right one with its sign flipped: the derivative of (x̂ − x)² "
                        "with respect to x̂ is 2(x̂ − x), not 2(x − x̂). A step against your gradient would raise "
                        "the loss."),
        "mean_over_pixels": N_("your gradient is n times too large: you divided by the number of pixels d only, "
                            "but F.mse_loss averages over all n·d entries (images × pixels)."),
        "code_bias_forgotten": N_("you computed the codes without their bias b (z = x Wᵀ instead of x Wᵀ + b), "
                               "in the reconstruction and in the decoder part: the codes the decoder reads include "
                               "b."),
        "encoder_path_twice": N_("you doubled the encoder part instead of adding the decoder part: the two paths "
                              "give different gradients (one multiplies by the codes, the other by the inputs), "
                              "so compute both and add them."),
        "decoder_path_twice": N_("you doubled the decoder part instead of adding the encoder part: the two paths "
                              "give different gradients (one multiplies by the codes, the other by the inputs), "
                              "so compute both and add them."),
    })
def tied_gradient(answer, solution):
    generator = torch.Generator().manual_seed(5)
    shapes = [(3, 5, 4), (2, 6, 7)]  # (h, d, n)
    cases = [tuple(torch.randn(*shape, generator=generator, dtype=torch.float64)
                   for shape in ((h, d), (h,), (d,), (n, d))) for h, d, n in shapes]
    for W, b, c, x in cases:
        (h, d), n = W.shape, len(x)
        decoder_path, encoder_path = _gradient_paths(W, b, c, x)
        expected = solution(W, b, c, x)
        assert torch.allclose(expected, decoder_path + encoder_path)  # the reference agrees with autograd
        with forbid_autograd():
            got = answer(W.clone(), b.clone(), c.clone(), x.clone())
        what = f"tied_gradient(W {(h, d)}, b {(h,)}, c {(d,)}, x {(n, d)})"
        expect_type(got, torch.Tensor, what)
        try:
            expect_close(got, expected, what, atol=1e-9, wrong={
                "decoder_path_only": decoder_path, "encoder_path_only": encoder_path,
                "sum_not_mean": expected * x.numel(), "missing_two": expected / 2, "mean_over_images": expected * d,
                "mean_over_codes": expected * d / h, **mistakes.gradient_slips(W, b, c, x)})
        except Mismatch as wrong:
            with forbid_autograd():
                mistakes.name_if_always(wrong, got, answer, cases, mistakes.GRADIENT_MISTAKES, (W, b, c, x), 1e-9)
            raise
    return len(shapes)


@exercise(solutions.pca_reconstruction_mse, hints=[
    N_("PCA's reconstruction is the closest point in an affine subspace fitted to the training rows: through "
    "their mean, along their k directions of largest variance. Project each test row onto it, then average "
    "the squared errors."),
    N_("Subtract the training mean (also from the test rows), take the top-k right singular vectors of the "
    "centred training matrix, project the centred test rows onto their span and add the mean back. The "
    "average runs over every entry (images × pixels); return it as a Python float.")],
    mistakes={
        "uncentred": N_("the subspace must pass through the training mean: without centring, the top directions "
                     "mostly describe the mean digit and the floor comes out too high."),
        "test_mean": N_("centre the test rows with the training mean: the model is fitted on the training set, and "
                     "the test set's own mean is information a model could not have."),
        "per_image_sum": N_("your error is d times too large: it sums the squared error over the pixels of each "
                         "image; the lesson's error is the mean per pixel."),
        "scalar_mean": N_("you centred with one number, the mean of all pixels (train.mean() without dim=0): the "
                       "subspace must pass through the mean image, one mean per pixel, train.mean(dim=0) of "
                       "shape (d,)."),
        "test_directions": N_("you took the principal directions from the test rows: the subspace is fitted to "
                           "the training rows alone (the top-k right singular vectors of the centred training "
                           "matrix); the test rows are only projected onto it."),
        "smallest_directions": N_("you kept the k directions of least variance: the reconstruction keeps the k of "
                               "largest variance. svd sorts its singular values in descending order (take the "
                               "first k rows of Vᴴ); torch.linalg.eigh sorts its eigenvalues in ascending order "
                               "(take its last k eigenvectors)."),
        "one_direction_short": N_("you kept k − 1 directions: vh[:k] already stops before index k and holds "
                               "exactly k rows, the first k directions."),
        "root_of_mse": N_("you returned the square root of the mean squared error (an RMSE); the exercise asks "
                       "for the mean squared error itself."),
        "standardised_units": N_("you divided each pixel by its standard deviation and measured the error in "
                              "those units: the error is asked in the pixels' own units. Centre only (PCA here "
                              "does not standardise)."),
        "test_mean_added_back": N_("you projected with the training mean but added the test rows' own mean back: "
                                "the reconstruction is the training mean plus the projection, the same mean on "
                                "the way out as on the way in."),
        "test_not_centred": N_("you projected the test rows as they are, without subtracting the training mean "
                            "first: the subspace passes through that mean, so project x − mean, then add the "
                            "mean back."),
        "mean_not_added_back": N_("you compared the projection of the centred rows with the rows themselves: the "
                               "reconstruction is that projection plus the training mean (or compare it with the "
                               "centred rows)."),
        "unbiased_denominator": N_("you divided the summed squared error by n·d − 1: that correction is for "
                                "estimating a variance from a sample; the error asked for is the plain mean over "
                                "all n·d entries."),
        "summed": N_("you returned the sum of the squared errors over every entry: the exercise asks for their mean "
                  "(divide by n·d, or use .mean())."),
        "one_direction_too_many": N_("you kept k + 1 directions: vh[:k] already holds the first k rows (indices 0 "
                                  "to k − 1); vh[:k + 1] takes one more."),
        "columns_of_vh": N_("you took the columns of Vᴴ (vh[:, :k]) as the directions: torch.linalg.svd returns Vᴴ, "
                         "whose rows are the right singular vectors, so the first k directions are vh[:k]."),
        "training_error": N_("you computed the error on the training rows (the squared singular values left out, "
                          "over the training matrix's size): the exercise asks for the error of the test rows "
                          "projected onto the training subspace."),
        "absolute_error": N_("you averaged the absolute errors |x̂ − x| (or took the square root of each squared "
                          "error): the exercise asks for the mean of the squared errors, (x̂ − x)²."),
    })
def pca_reconstruction_mse(answer, solution):
    generator = torch.Generator().manual_seed(5)
    low_rank = torch.randn(80, 3, generator=generator, dtype=torch.float64) @ torch.randn(
        3, 6, generator=generator, dtype=torch.float64)
    offset = 3.0 + torch.linspace(-2.0, 2.0, 6, dtype=torch.float64)  # a mean that differs from pixel to pixel
    data = low_rank + 0.1 * torch.randn(80, 6, generator=generator, dtype=torch.float64) + offset
    train, test = data[:60], data[60:]
    cases = [(train, test, 1), (train, test, 3), (train, train, 2)]
    for rows, held_out, k in cases:
        what = f"pca_reconstruction_mse(train {tuple(rows.shape)}, test {tuple(held_out.shape)}, k={k})"
        expected, wrong = solution(rows.clone(), held_out.clone(), k), mistakes.pca_slips(rows, held_out, k)  # before the answer runs
        got = answer(rows.clone(), held_out.clone(), k)  # copies: the answer may change them
        expect_type(got, float, what)
        try:
            expect_close(got, expected, what, atol=1e-8, wrong=wrong)
        except Mismatch as mismatch:
            mistakes.name_if_always(mismatch, got, answer, cases, mistakes.PCA_MISTAKES, (rows, held_out, k), 1e-8)
            raise
    return len(cases)
