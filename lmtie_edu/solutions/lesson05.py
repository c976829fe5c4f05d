"""Reference solutions, lesson 05 (tied autoencoders)."""

import torch


def tied_decoder_weight(W):
    """The decoder matrix of a tied autoencoder: Wᵀ as a view of W (same storage, gradients flow to W)."""
    return W.t()


def autoencoder_parameter_count(n_inputs, n_hidden, tie):
    """W (h×d) once, plus the decoder matrix (d×h) when untied, plus the two biases (h and d)."""
    matrices = 1 if tie else 2
    return matrices * n_inputs * n_hidden + n_hidden + n_inputs


def pca_reconstruction_mse(train, test, k):
    """Mean squared error per entry of test rows projected onto train's top-k principal affine subspace."""
    mean = train.mean(dim=0)
    _, _, vh = torch.linalg.svd(train - mean, full_matrices=False)
    basis = vh[:k]  # (k, d), orthonormal rows
    reconstruction = (test - mean) @ basis.T @ basis + mean
    return (reconstruction - test).square().mean().item()
