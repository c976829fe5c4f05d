"""Lesson 05 — the tied autoencoder and its training loop, exactly as the lesson's cells write them.

The lesson shows this code in its cells (the tie is the line ``return self.W.t()``); the panel, the
exercise checks and the tests need it too, so this module keeps an identical copy:
``tests/lesson05/test_autoencoders.py`` fails as soon as a definition here and its cell differ (comments and
docstrings aside). Change both together.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

from lmtie_edu.shared.validation import check_positive_int

from .experiment import (
    ACTIVATIONS,
    N_PIXELS,
    OUTPUTS,
    Run,
    check_images,
    check_model_args,
    check_training_args,
)

DEFAULT_SEEDS = (0, 1, 2, 3, 4)
STEPS, BATCH_SIZE, LR, EVAL_EVERY = 300, 128, 1e-2, 20  # ≈ 28.5 passes over the 1,347 training digits


def glorot_std(n_in, n_out):
    """Glorot/Xavier normal std, symmetric in the two sizes, as a matrix used as W and as Wᵀ needs."""
    return math.sqrt(2.0 / (check_positive_int(n_in, "n_in") + check_positive_int(n_out, "n_out")))


class Autoencoder(nn.Module):
    """z = f(W x + b), x̂ = g(D z + c), where the tied model has no D of its own: D = Wᵀ."""

    def __init__(self, n_inputs=64, n_hidden=16, *, tie=True, activation="sigmoid", output="linear",
                 init_std=None, seed=0):
        super().__init__()
        check_model_args(n_inputs, n_hidden, tie, activation, output, init_std, seed)
        self.n_inputs, self.f, self.g = n_inputs, ACTIVATIONS[activation], OUTPUTS[output]
        std = glorot_std(n_inputs, n_hidden) if init_std is None else init_std
        generator = torch.Generator().manual_seed(seed)  # this model's own random numbers
        self.encoder = nn.Linear(n_inputs, n_hidden)  # W: (h, d) and b: (h,)
        self.decoder_bias = nn.Parameter(torch.zeros(n_inputs))  # c: (d,), never tied
        with torch.no_grad():
            self.encoder.weight.copy_(torch.randn(n_hidden, n_inputs, generator=generator) * std)
            self.encoder.bias.zero_()
        if tie:
            self.decoder_weight = None  # no decoder matrix of its own
        else:
            self.decoder_weight = nn.Parameter(torch.randn(n_inputs, n_hidden, generator=generator) * std)

    @property
    def W(self):  # noqa: N802 (the lesson's notation)
        return self.encoder.weight

    def decoder_matrix(self):
        if self.decoder_weight is None:
            return self.W.t()  # the tie: Wᵀ is a view of W (same memory), not a copy
        return self.decoder_weight

    def forward(self, x):
        z = self.f(self.encoder(check_images(x, "x", self.n_inputs)))  # z = f(W x + b)
        return self.g(F.linear(z, self.decoder_matrix(), self.decoder_bias))  # x̂ = g(Wᵀ z + c)


def mse(model, x):
    """Mean squared reconstruction error per pixel (pixels in [0, 1])."""
    with torch.no_grad():
        return F.mse_loss(model(x), x).item()


def train_seeds(n_hidden=16, *, tie=True, activation="sigmoid", output="linear", seeds=DEFAULT_SEEDS,
                steps=STEPS, batch_size=BATCH_SIZE, lr=LR, init_std=None, data=None, eval_every=EVAL_EVERY):
    """One model per seed, the same budget for each: Adam on random mini-batches of the training digits.

    The seeds' models are trained side by side in one loop: one loss (the sum of their losses), one
    backward pass, one optimiser step. A model's gradient depends on its own loss only and Adam updates
    every weight on its own, so each run is exactly the run it would be alone — just cheaper.
    """
    seeds, data = check_training_args(seeds, steps, batch_size, lr, eval_every, data)
    runs = [Run(Autoencoder(N_PIXELS, n_hidden, tie=tie, activation=activation, output=output,
                            init_std=init_std, seed=seed), seed) for seed in seeds]
    batch_orders = [torch.Generator().manual_seed(seed + 10_000) for seed in seeds]  # each run's own mini-batches
    weights = [p for run in runs for p in run.model.parameters()]  # a tied W is one Parameter: listed once
    optimiser = torch.optim.Adam(weights, lr=lr, fused=True)  # fused: one kernel call updates every tensor
    for step in range(steps + 1):
        if step % eval_every == 0 or step == steps:  # a point of the learning curves
            for run in runs:
                run.record(step, mse(run.model, data.train), mse(run.model, data.test))
        if step == steps:
            return runs
        loss = 0.0
        for run, batches in zip(runs, batch_orders, strict=True):
            batch = data.train[torch.randint(len(data.train), (batch_size,), generator=batches)]
            loss = loss + F.mse_loss(run.model(batch), batch)
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
