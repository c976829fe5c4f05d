"""Reference solutions, lesson 05 (tied autoencoders)."""

import torch


def tie_status(model):
    """'tied', 'detached', 'copy' or 'untied': does the decoder read W's memory, and does its gradient reach W?"""
    decoder, W = model.decoder_matrix(), model.W
    if decoder.untyped_storage().data_ptr() != W.untyped_storage().data_ptr():  # its own memory
        return "copy" if torch.equal(decoder.detach(), W.detach().t()) else "untied"
    if not decoder.requires_grad:
        return "detached"
    (to_W,) = torch.autograd.grad(decoder.sum(), W, allow_unused=True)  # the decoder path's gradient, if any
    return "tied" if to_W is not None else "detached"


def tied_gradient(W, b, c, x):
    """dL/dW of L = mean((Wᵀ(Wx + b) + c − x)²) for a tied linear autoencoder: decoder path + encoder path."""
    z = x @ W.T + b                           # codes, (n, h)
    x_hat = z @ W + c                         # reconstructions, (n, d)
    grad_out = 2 * (x_hat - x) / x.numel()    # dL/dx̂: the mean runs over all n·d entries
    decoder_path = z.T @ grad_out             # W used as the decoder (x̂ = z W + c)
    grad_code = grad_out @ W.T                # dL/dz, sent back through the decoder
    encoder_path = grad_code.T @ x            # W used as the encoder (z = x Wᵀ + b)
    return decoder_path + encoder_path


def pca_reconstruction_mse(train, test, k):
    """Mean squared error per entry of test rows projected onto train's top-k principal affine subspace."""
    mean = train.mean(dim=0)
    _, _, vh = torch.linalg.svd(train - mean, full_matrices=False)
    basis = vh[:k]  # (k, d), orthonormal rows
    reconstruction = (test - mean) @ basis.T @ basis + mean
    return (reconstruction - test).square().mean().item()
