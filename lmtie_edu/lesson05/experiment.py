"""Lesson 05 — tied autoencoders: an encoder W and a decoder Wᵀ on scikit-learn's 8×8 digits.

The lesson writes the idea in its cells: ``glorot_std``, the ``Autoencoder`` (the tie is the line
``self.W.t()``), ``mse`` and the training loop ``train_seeds`` (their copies for the panel and the tests
are in :mod:`lmtie_edu.lesson05.model`). This module holds what a learner would skip: the data split,
the argument checks, the record of a run, the summary over seeds and the PCA floor. Figures and the
panel live in :mod:`lmtie_edu.lesson05.figures`.

scikit-learn is imported inside :func:`load_digits_split` only, so ``import lmtie_edu`` stays light.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from lmtie_edu.shared.language import N_, tr
from lmtie_edu.shared.spread import mean_and_spread
from lmtie_edu.shared.validation import (
    check_bool,
    check_choice,
    check_matrix,
    check_number,
    check_positive_int,
    check_seed,
)

N_PIXELS = 64  # 8 × 8 images


def identity(t: torch.Tensor) -> torch.Tensor:
    """The linear activation (a named function, not a lambda, so that a model can be pickled)."""
    return t


ACTIVATIONS = {"linear": identity, "sigmoid": torch.sigmoid, "tanh": torch.tanh, "relu": torch.relu}
OUTPUTS = {"linear": identity, "sigmoid": torch.sigmoid}  # linear = affine decoder: the PCA floor applies
PANEL_SEEDS = (0, 1, 2)
MAX_WEIGHTS = 50_000_000  # one matrix of more entries (200 MB of float32) is a typo, not an 8×8-digit model
MAX_STEPS, MAX_SEEDS = 20_000, 20  # the lesson trains 3 seeds × 300 steps; 20,000 steps already take minutes


# -- data ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class DigitsSplit:
    """Pixels scaled to [0, 1] (the raw values are 0..16), one row per image, plus the digit labels."""

    train: torch.Tensor
    test: torch.Tensor
    train_labels: torch.Tensor
    test_labels: torch.Tensor


def load_digits_split(test_fraction: float = 0.25, seed: int = 0) -> DigitsSplit:
    """The 1,797 bundled 8×8 digits (no download), split once into train/test, stratified by digit.

    The split is computed once per setting; each call returns its own copy, which the learner may change.
    """
    test_fraction = check_number(test_fraction, "test_fraction", minimum=0.01, maximum=0.99,
                                 expected=tr("a number in [0.01, 0.99] (both sides need every digit)"))
    seed = check_seed(seed)  # scikit-learn's random_state stops at 2**32 - 1
    cached = _split(test_fraction, seed)
    return DigitsSplit(*(t.clone() for t in (cached.train, cached.test, cached.train_labels, cached.test_labels)))


@functools.lru_cache(maxsize=4)
def _split(test_fraction: float, seed: int) -> DigitsSplit:
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    digits = load_digits()
    x_train, x_test, y_train, y_test = train_test_split(
        digits.data / 16.0, digits.target, test_size=test_fraction, random_state=seed, stratify=digits.target)
    as_float = functools.partial(torch.tensor, dtype=torch.float32)
    return DigitsSplit(as_float(x_train), as_float(x_test), torch.tensor(y_train), torch.tensor(y_test))


# -- argument checks (one line each in the lesson's cells) ----------------------------------------
def check_images(x, name: str = "images", n_pixels: int | None = N_PIXELS,
                 dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """A float matrix (n_images, n_pixels) of finite values, returned in ``dtype``.

    float64 or float16 images are converted (the models hold float32); ``n_pixels=None`` takes any width.
    """
    check_matrix(x, name, shape=(None, n_pixels))  # also rejects meta, empty and NaN/inf matrices
    return x.to(dtype)  # no copy when x already has this dtype


def check_model_args(n_inputs, n_hidden, tie, activation, output, init_std, seed) -> None:
    """The arguments of :class:`Autoencoder`; raises TypeError/ValueError naming the expected value."""
    check_positive_int(n_inputs, "n_inputs")
    check_positive_int(n_hidden, "n_hidden")
    if n_inputs * n_hidden > MAX_WEIGHTS:
        raise ValueError(tr("n_inputs × n_hidden must be at most {limit:,} weights; got {n_inputs} × {n_hidden}",
                            limit=MAX_WEIGHTS, n_inputs=n_inputs, n_hidden=n_hidden))
    check_bool(tie, "tie")
    check_choice(activation, "activation", ACTIVATIONS)
    check_choice(output, "output", OUTPUTS)
    if init_std is not None:
        check_number(init_std, "init_std", minimum=0, strict=True, expected=tr("a positive number or None (Glorot)"))
    check_seed(seed)  # torch.Generator().manual_seed overflows past 2**64 - 1


def check_training_args(seeds, steps, batch_size, lr, eval_every, data) -> tuple[list[int], DigitsSplit]:
    """The arguments of :func:`train_seeds`: returns the seeds as a list and the data (default: the split)."""
    if isinstance(seeds, (str, bytes)) or not isinstance(seeds, Sequence):
        raise TypeError(tr("seeds must be a list of integers, e.g. [0, 1, 2]; got {seeds!r}", seeds=seeds))
    seeds = [check_seed(s) for s in seeds]
    if not seeds:
        raise ValueError(tr("seeds must list at least one seed, e.g. [0, 1, 2]"))
    if len(seeds) > MAX_SEEDS:
        raise ValueError(tr("seeds must list at most {limit} seeds (each trains a model); got {count}",
                            limit=MAX_SEEDS, count=len(seeds)))
    if check_positive_int(steps, "steps") > MAX_STEPS:
        raise ValueError(tr("steps must be at most {limit:,} (the lesson uses 300; more would run for minutes); "
                            "got {steps:,}", limit=MAX_STEPS, steps=steps))
    check_positive_int(eval_every, "eval_every")
    check_number(lr, "lr", minimum=0, strict=True, expected=tr("a positive learning rate, e.g. 0.01"))
    data = load_digits_split() if data is None else data
    if not isinstance(data, DigitsSplit):
        raise TypeError(tr("data must be a DigitsSplit (from load_digits_split()); got {type}",
                           type=type(data).__name__))
    check_images(data.train, "data.train")
    check_images(data.test, "data.test")
    if check_positive_int(batch_size, "batch_size") > len(data.train):
        raise ValueError(tr("batch_size must be at most the {count} training images; got {batch_size}",
                            count=len(data.train), batch_size=batch_size))
    return seeds, data


# -- the record of a training run ------------------------------------------------------------
@dataclass
class Run:
    """One training run: the model, its seed, the learning curves (full train and test MSE)."""

    model: nn.Module
    seed: int
    steps: list[int] = field(default_factory=list)
    train_mse: list[float] = field(default_factory=list)
    test_mse: list[float] = field(default_factory=list)

    def record(self, step: int, train_mse: float, test_mse: float) -> None:
        self.steps.append(step)
        self.train_mse.append(train_mse)
        self.test_mse.append(test_mse)

    @property
    def final_test_mse(self) -> float:
        return self.test_mse[-1]

    @property
    def final_train_mse(self) -> float:
        return self.train_mse[-1]


def summarise(runs: Sequence[Run], which: str = "test") -> tuple[float, float]:
    """(mean, sample std) of the final train or test MSE over runs (std 0 for a single run).

    A diverged run (NaN or inf error) raises a ValueError that names its seed: a mean over it means nothing.
    """
    check_choice(which, "which", ("train", "test"))
    runs = check_runs(runs)
    values = [r.final_test_mse if which == "test" else r.final_train_mse for r in runs]
    diverged = [r.seed for r, v in zip(runs, values, strict=True) if not math.isfinite(v)]
    if diverged:
        raise ValueError(tr("the runs with seeds {seeds} diverged (final {which} MSE is NaN or inf); "
                            "lower lr or init_std before comparing means", seeds=diverged, which=which))
    return mean_and_spread(values)  # without overflow, however large the errors


def check_runs(runs, what: str = N_("runs must be")) -> list[Run]:
    """A non-empty list of :class:`Run`, each with at least one recorded point."""
    if isinstance(runs, Run) or not isinstance(runs, Sequence) or not runs \
            or not all(isinstance(r, Run) for r in runs):
        raise TypeError(tr("{what} a non-empty list of Run (what train_seeds returns); got {runs!r:.80}",
                           what=tr(what), runs=runs))
    for run in runs:
        if not (run.steps and run.train_mse and run.test_mse):
            raise ValueError(tr("the run with seed {seed} has no recorded error (record() was never called)",
                                seed=run.seed))
    return list(runs)


# -- the PCA floor ------------------------------------------------------------------------------
def principal_axes(train: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Training mean (d,) and principal directions (rows of Vᵀ, by decreasing variance), in float64."""
    train = check_images(train, "train", None, torch.float64)
    if train.shape[0] < 2:
        raise ValueError(tr("train must hold at least 2 images (rows) to have principal axes; got {count}",
                            count=train.shape[0]))
    mean = train.mean(0)
    _, _, vh = torch.linalg.svd(train - mean, full_matrices=False)
    return mean, vh


def _check_components(k, vh: torch.Tensor) -> int:
    k = check_positive_int(k, "k (components)")
    if k > vh.shape[0]:
        raise ValueError(tr("k (components) must be at most {limit} (min of images and pixels); got {k}",
                            limit=vh.shape[0], k=k))
    return k


def _project(x: torch.Tensor, mean: torch.Tensor, basis: torch.Tensor) -> torch.Tensor:
    return (x - mean) @ basis.T @ basis + mean


def pca_reconstruct(train: torch.Tensor, x: torch.Tensor, k: int) -> torch.Tensor:
    """Project ``x`` onto the k-dimensional principal affine subspace of ``train``, in float64."""
    mean, vh = principal_axes(train)
    x = check_images(x, "x", mean.shape[0], torch.float64)
    return _project(x, mean, vh[:_check_components(k, vh)])


def pca_mse(train: torch.Tensor, x: torch.Tensor, k: int) -> float:
    """Mean squared error per pixel of the k-component PCA reconstruction of ``x`` (fit on ``train``)."""
    return F.mse_loss(pca_reconstruct(train, x, k), x.double()).item()  # x was checked by pca_reconstruct


def pca_mse_curve(train: torch.Tensor, x: torch.Tensor, ks: Sequence[int]) -> list[float]:
    """``pca_mse(train, x, k)`` for every k in ``ks``, from a single SVD of ``train``."""
    if isinstance(ks, (np.ndarray, torch.Tensor)) and ks.ndim == 1:
        ks = ks.tolist()  # an array of component counts is fine
    if isinstance(ks, (str, bytes)) or not isinstance(ks, Sequence) or not ks:
        raise TypeError(tr("ks must be a non-empty list of component counts, e.g. [1, 2, 4]; got {ks!r:.80}", ks=ks))
    mean, vh = principal_axes(train)
    x = check_images(x, "x", mean.shape[0], torch.float64)
    ks = [_check_components(k, vh) for k in ks]
    return [F.mse_loss(_project(x, mean, vh[:k]), x).item() for k in ks]


def subspace_overlap(weight: torch.Tensor, train: torch.Tensor) -> float:
    """How much of the k-dimensional principal subspace the k rows of ``weight`` span: mean cos² of
    the principal angles, 1.0 = the same subspace, k/d = a random one."""
    _, vh = principal_axes(train)
    weight = check_images(weight.detach() if isinstance(weight, torch.Tensor) else weight, "weight",
                          vh.shape[1], torch.float64)  # k rows of d weights: checked like k images
    if weight.shape[0] > vh.shape[0]:
        raise ValueError(tr("weight must have at most {limit} rows (principal directions); got {rows}",
                            limit=vh.shape[0], rows=weight.shape[0]))
    if int(torch.linalg.matrix_rank(weight)) < weight.shape[0]:
        raise ValueError(tr("weight's {rows} rows must be linearly independent (a zero or repeated row spans "
                            "fewer than {rows} directions, so the overlap would mean nothing)", rows=weight.shape[0]))
    q, _ = torch.linalg.qr(weight.T)  # orthonormal basis of the row space, (d, k)
    return torch.linalg.svdvals(vh[:weight.shape[0]] @ q).square().mean().item()


def orthonormality_gap(weight: torch.Tensor) -> float:
    """‖W Wᵀ − I‖_F / √h: 0 when the rows of W are orthonormal (the tied linear optimum)."""
    w = check_images(weight.detach() if isinstance(weight, torch.Tensor) else weight, "weight", None, torch.float64)
    eye = torch.eye(w.shape[0], dtype=w.dtype)
    return (torch.linalg.matrix_norm(w @ w.T - eye) / math.sqrt(w.shape[0])).item()
