"""Lesson 05 — tied autoencoders: an encoder W and a decoder Wᵀ on scikit-learn's 8×8 digits.

The tied model is ``z = f(W x + b)``, ``x̂ = Wᵀ z + c`` with one matrix W (h × d, the layout of
``nn.Linear(d, h).weight``) and its own bias on each side; the untied twin has a second matrix for the
decoder. Everything a notebook cell or the widget needs lives here: the data split, the model, a
seeded training loop, PCA's reconstruction error (the floor of any autoencoder whose decoder is
affine), figures, the panel and its benchmark.

scikit-learn is imported inside :func:`load_digits_split` only, so ``import lmtie_edu`` stays light.
"""

from __future__ import annotations

import functools
import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field

import ipywidgets as widgets
import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .models import count_parameters  # parameters() yields the tied W once
from .plotting import new_figure
from .validation import check_bool, check_choice, check_matrix, check_number, check_positive_int
from .widgets import PanelResult, TiePanel

N_PIXELS = 64  # 8 × 8 images
ACTIVATIONS = {"linear": lambda t: t, "sigmoid": torch.sigmoid, "tanh": torch.tanh, "relu": torch.relu}
OUTPUTS = {"linear": lambda t: t, "sigmoid": torch.sigmoid}  # linear = affine decoder: the PCA floor applies
DEFAULT_SEEDS = (0, 1, 2, 3, 4)
PANEL_SEEDS = (0, 1, 2)
STEPS, BATCH_SIZE, LR, EVAL_EVERY = 300, 128, 1e-2, 20  # ≈ 28.5 passes over the 1,347 training digits


# -- data ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class DigitsSplit:
    """Pixels scaled to [0, 1] (the raw values are 0..16), one row per image, plus the digit labels."""

    train: torch.Tensor
    test: torch.Tensor
    train_labels: torch.Tensor
    test_labels: torch.Tensor


@functools.lru_cache(maxsize=4)
def load_digits_split(test_fraction: float = 0.25, seed: int = 0) -> DigitsSplit:
    """The 1,797 bundled 8×8 digits (no download), split once into train/test, stratified by digit."""
    check_number(test_fraction, "test_fraction", minimum=0, maximum=1, strict=True)
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    digits = load_digits()
    x_train, x_test, y_train, y_test = train_test_split(
        digits.data / 16.0, digits.target, test_size=test_fraction, random_state=seed, stratify=digits.target)
    as_float = functools.partial(torch.tensor, dtype=torch.float32)
    return DigitsSplit(as_float(x_train), as_float(x_test), torch.tensor(y_train), torch.tensor(y_test))


def check_images(x, name: str = "images", n_pixels: int = N_PIXELS) -> torch.Tensor:
    """A float matrix (n_images, n_pixels) — what every helper here takes as data."""
    check_matrix(x, name, shape=(None, n_pixels))
    if x.shape[0] == 0:
        raise ValueError(f"{name} must hold at least one image (row); got shape (0, {n_pixels})")
    return x


# -- the model ----------------------------------------------------------------------------------
def glorot_std(n_in: int, n_out: int) -> float:
    """Glorot/Xavier normal std, sqrt(2 / (n_in + n_out)): symmetric in the two sizes, as a matrix
    used in both directions (W as encoder, Wᵀ as decoder) needs."""
    n_in, n_out = check_positive_int(n_in, "n_in"), check_positive_int(n_out, "n_out")
    return math.sqrt(2.0 / (n_in + n_out))


class Autoencoder(nn.Module):
    """``z = f(W x + b)``, ``x̂ = g(D z + c)`` with ``D = Wᵀ`` (tied) or its own matrix (untied).

    ``activation`` is f (the code's nonlinearity); ``output`` is g: ``"linear"`` (an affine decoder,
    whose reconstructions all lie in one h-dimensional affine subspace) or ``"sigmoid"``.
    ``init_std=None`` uses :func:`glorot_std`; pass ``init_std=1.0`` to see what ``torch.randn`` does.
    The weights are drawn from a generator seeded with ``seed`` (bit-reproducible on one thread).
    """

    def __init__(self, n_inputs: int = N_PIXELS, n_hidden: int = 16, *, tie: bool = True,
                 activation: str = "sigmoid", output: str = "linear", init_std: float | None = None,
                 seed: int = 0):
        super().__init__()
        self.n_inputs = check_positive_int(n_inputs, "n_inputs")
        self.n_hidden = check_positive_int(n_hidden, "n_hidden")
        check_bool(tie, "tie")
        self.activation = check_choice(activation, "activation", ACTIVATIONS)
        self.output = check_choice(output, "output", OUTPUTS)
        std = glorot_std(n_inputs, n_hidden) if init_std is None else init_std
        check_number(std, "init_std", minimum=0, strict=True, expected="a positive number or None (Glorot)")
        generator = torch.Generator().manual_seed(check_positive_int(seed, "seed", minimum=0))
        self.encoder = nn.Linear(n_inputs, n_hidden)  # weight W: (h, d), bias b: (h,)
        self.decoder_bias = nn.Parameter(torch.zeros(n_inputs))  # c: (d,)
        with torch.no_grad():
            self.encoder.weight.copy_(torch.randn(n_hidden, n_inputs, generator=generator) * std)
            self.encoder.bias.zero_()
        if tie:
            self.register_parameter("decoder_weight", None)
        else:
            self.decoder_weight = nn.Parameter(torch.randn(n_inputs, n_hidden, generator=generator) * std)

    @property
    def tied(self) -> bool:
        return self.decoder_weight is None

    @property
    def W(self) -> torch.Tensor:  # noqa: N802 (the lesson's notation)
        return self.encoder.weight

    def decoder_matrix(self) -> torch.Tensor:
        """The (d, h) decoder matrix: a transposed *view* of W when tied (same storage, no copy)."""
        return self.encoder.weight.t() if self.tied else self.decoder_weight

    def encode(self, x: torch.Tensor) -> torch.Tensor:
        check_images(x, "x", self.n_inputs)
        return ACTIVATIONS[self.activation](self.encoder(x))

    def decode(self, z: torch.Tensor) -> torch.Tensor:
        check_matrix(z, "z", shape=(None, self.n_hidden))
        return OUTPUTS[self.output](F.linear(z, self.decoder_matrix(), self.decoder_bias))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.decode(self.encode(x))


def parameter_table(n_inputs: int = N_PIXELS, n_hidden: int = 16) -> dict:
    """Parameter counts of the tied and the untied model, and their ratio."""
    tied = count_parameters(Autoencoder(n_inputs, n_hidden, tie=True))
    untied = count_parameters(Autoencoder(n_inputs, n_hidden, tie=False))
    return {"tied": tied, "untied": untied, "tied / untied": tied / untied}


# -- training -----------------------------------------------------------------------------------
def mse(model: nn.Module, x: torch.Tensor) -> float:
    """Mean squared reconstruction error per pixel (pixels in [0, 1])."""
    with torch.no_grad():
        return F.mse_loss(model(x), x).item()


@dataclass
class Run:
    """One training run: the model, its seed, the curves and the final errors."""

    model: Autoencoder
    seed: int
    steps: list[int] = field(default_factory=list)
    train_mse: list[float] = field(default_factory=list)
    test_mse: list[float] = field(default_factory=list)

    @property
    def final_test_mse(self) -> float:
        return self.test_mse[-1]

    @property
    def final_train_mse(self) -> float:
        return self.train_mse[-1]


def train_seeds(n_hidden: int = 16, *, tie: bool = True, activation: str = "sigmoid", output: str = "linear",
                seeds: Sequence[int] = DEFAULT_SEEDS, steps: int = STEPS, batch_size: int = BATCH_SIZE,
                lr: float = LR, init_std: float | None = None, data: DigitsSplit | None = None,
                eval_every: int = EVAL_EVERY) -> list[Run]:
    """The same configuration trained once per seed, with the same budget: Adam on mini-batches.

    Each seed seeds its model's initial weights and its own batch generator, so every run is
    bit-reproducible. The models are trained side by side (their losses summed, one optimiser):
    no parameter is shared between them, so each gets exactly its own gradient and its own
    (element-wise) Adam update — the same as separate runs, with a third less Python overhead.
    Every ``eval_every`` steps the full train and test MSE are recorded (the learning curves).
    """
    data = data if data is not None else load_digits_split()
    check_images(data.train, "data.train")
    check_images(data.test, "data.test")
    seeds = [check_positive_int(s, "seed", minimum=0) for s in seeds]
    if not seeds:
        raise ValueError("seeds must list at least one seed, e.g. (0, 1, 2)")
    steps = check_positive_int(steps, "steps")
    batch_size = check_positive_int(batch_size, "batch_size")
    eval_every = check_positive_int(eval_every, "eval_every")
    if batch_size > len(data.train):
        raise ValueError(f"batch_size must be at most the {len(data.train)} training images; got {batch_size}")
    runs = [Run(Autoencoder(N_PIXELS, n_hidden, tie=tie, activation=activation, output=output, init_std=init_std,
                            seed=seed), seed) for seed in seeds]
    batch_generators = [torch.Generator().manual_seed(seed + 10_000) for seed in seeds]  # apart from the init
    optimiser = torch.optim.Adam([p for run in runs for p in run.model.parameters()], lr=lr)
    for step in range(steps + 1):
        if step % eval_every == 0 or step == steps:
            for run in runs:
                run.steps.append(step)
                run.train_mse.append(mse(run.model, data.train))
                run.test_mse.append(mse(run.model, data.test))
        if step == steps:
            break
        loss = 0.0
        for run, generator in zip(runs, batch_generators, strict=True):
            batch = data.train[torch.randint(len(data.train), (batch_size,), generator=generator)]
            loss = loss + F.mse_loss(run.model(batch), batch)
        optimiser.zero_grad(set_to_none=True)
        loss.backward()
        optimiser.step()
    return runs


def train_autoencoder(n_hidden: int = 16, *, seed: int = 0, **kwargs) -> Run:
    """One run (see :func:`train_seeds` for the arguments)."""
    return train_seeds(n_hidden, seeds=[seed], **kwargs)[0]


def summarise(runs: Sequence[Run], which: str = "test") -> tuple[float, float]:
    """(mean, sample std) of the final train or test MSE over runs (std 0 for a single run)."""
    check_choice(which, "which", ("train", "test"))
    values = [r.final_test_mse if which == "test" else r.final_train_mse for r in runs]
    return statistics.fmean(values), (statistics.stdev(values) if len(values) > 1 else 0.0)


# -- the PCA floor ------------------------------------------------------------------------------
def principal_axes(train: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Training mean (d,) and principal directions (rows of Vᵀ, by decreasing variance), in float64."""
    check_matrix(train, "train")
    if train.shape[0] < 2:
        raise ValueError(f"train must hold at least 2 images (rows) to have principal axes; got {train.shape[0]}")
    mean = train.double().mean(0)
    _, _, vh = torch.linalg.svd(train.double() - mean, full_matrices=False)
    return mean, vh


def pca_reconstruct(train: torch.Tensor, x: torch.Tensor, k: int) -> torch.Tensor:
    """Project ``x`` onto the k-dimensional principal affine subspace of ``train`` (mean + top-k axes)."""
    mean, vh = principal_axes(train)
    check_images(x, "x", train.shape[1])
    k = check_positive_int(k, "k (components)")
    if k > vh.shape[0]:
        raise ValueError(f"k (components) must be at most {vh.shape[0]} (min of images and pixels); got {k}")
    basis = vh[:k]
    centred = x.double() - mean
    return (centred @ basis.T @ basis + mean).to(x.dtype)


def pca_mse(train: torch.Tensor, x: torch.Tensor, k: int) -> float:
    """Mean squared error per pixel of the k-component PCA reconstruction of ``x`` (fit on ``train``)."""
    return F.mse_loss(pca_reconstruct(train, x, k).double(), x.double()).item()


def subspace_overlap(weight: torch.Tensor, train: torch.Tensor) -> float:
    """How much of the k-dimensional principal subspace the k rows of ``weight`` span: mean cos² of
    the principal angles, 1.0 = the same subspace, k/d = a random one."""
    check_matrix(weight, "weight", shape=(None, train.shape[1]))
    k = weight.shape[0]
    _, vh = principal_axes(train)
    q, _ = torch.linalg.qr(weight.detach().double().T)  # orthonormal basis of the row space, (d, k)
    cosines = torch.linalg.svdvals(vh[:k] @ q)
    return (cosines.square().mean()).item()


def orthonormality_gap(weight: torch.Tensor) -> float:
    """‖W Wᵀ − I‖_F / √h: 0 when the rows of W are orthonormal (the tied linear optimum)."""
    check_matrix(weight, "weight")
    w = weight.detach().double()
    eye = torch.eye(w.shape[0], dtype=w.dtype)
    return (torch.linalg.matrix_norm(w @ w.T - eye) / math.sqrt(w.shape[0])).item()


# -- figures ------------------------------------------------------------------------------------
def digit_montage(rows: Sequence[torch.Tensor], gap: int = 1) -> np.ndarray:
    """Tile rows of 8×8 images into one array (one imshow: fast to draw), NaN in the gaps."""
    rows = [np.asarray(r.detach().reshape(-1, 8, 8), dtype=float) for r in rows]
    n_rows, n_cols = len(rows), rows[0].shape[0]
    out = np.full((n_rows * (8 + gap) - gap, n_cols * (8 + gap) - gap), np.nan)
    for i, images in enumerate(rows):
        for j, image in enumerate(images):
            out[i * (8 + gap):i * (8 + gap) + 8, j * (8 + gap):j * (8 + gap) + 8] = image
    return out


def normalised_rows(weight: torch.Tensor) -> torch.Tensor:
    """Each row divided by its largest absolute value, so filters of different sizes share one colour scale."""
    check_matrix(weight, "weight")
    w = weight.detach()
    return w / w.abs().amax(dim=1, keepdim=True).clamp_min(1e-12)


def draw_digits(ax, rows: Sequence[torch.Tensor], *, title: str = "", row_labels: Sequence[str] = (),
                symmetric: bool = False):
    """Rows of digits (or filters, with ``symmetric=True``) as one image."""
    montage = digit_montage(rows)
    if symmetric:
        limit = float(np.nanmax(np.abs(montage))) or 1.0
        ax.imshow(montage, cmap="RdBu_r", vmin=-limit, vmax=limit, interpolation="nearest")
    else:
        ax.imshow(montage, cmap="gray_r", vmin=0, vmax=1, interpolation="nearest")
    ax.set_xticks([])
    ax.set_yticks([4 + 9 * i for i in range(len(row_labels))], list(row_labels), fontsize=8)
    ax.set_title(title, fontsize=10)
    for spine in ax.spines.values():
        spine.set_visible(False)


def draw_curves(ax, runs: Sequence[Run], *, label: str, color: str, floor: float | None = None):
    """Held-out MSE against steps, one line per seed (log scale)."""
    for i, run in enumerate(runs):
        ax.plot(run.steps, run.test_mse, color=color, alpha=0.8, lw=1.2, label=label if i == 0 else None)
    if floor is not None:
        ax.axhline(floor, color="black", ls="--", lw=1, label="PCA floor (held-out)")
    ax.set_yscale("log")
    ax.set_xlabel("training step")
    ax.set_ylabel("held-out MSE per pixel")
    ax.legend(fontsize=8)


def draw_error_bars(ax, entries: Sequence[tuple[str, Sequence[Run], str]], *, floor: float | None = None):
    """Bars of held-out MSE mean ± std over seeds, each seed as a dot; optional PCA floor line."""
    for i, (_label, runs, color) in enumerate(entries):
        mean, std = summarise(runs)
        ax.bar(i, mean, yerr=std, color=color, alpha=0.6, capsize=6)
        ax.plot([i] * len(runs), [r.final_test_mse for r in runs], "k.", ms=4)
    ax.set_xticks(range(len(entries)), [label for label, _, _ in entries], fontsize=8)
    if floor is not None:
        ax.axhline(floor, color="black", ls="--", lw=1, label="PCA floor")
        ax.legend(fontsize=8)
    ax.set_ylabel("held-out MSE per pixel")


# -- the widget ---------------------------------------------------------------------------------
SHOWN_DIGITS = 8  # test images shown in the reconstructions


def autoencoder_figure(tie: bool = True, hidden: int = 16, activation: str = "sigmoid", output: str = "linear",
                       seeds: Sequence[int] = PANEL_SEEDS) -> PanelResult:
    """Retrain the chosen configuration once per seed (nothing cached) and draw what came out."""
    hidden = check_positive_int(hidden, "hidden")
    if hidden > N_PIXELS:
        raise ValueError(f"hidden must be at most {N_PIXELS} (the number of pixels); got {hidden}")
    check_choice(activation, "activation", ACTIVATIONS)
    check_choice(output, "output", OUTPUTS)
    data = load_digits_split()
    runs = train_seeds(hidden, tie=tie, activation=activation, output=output, seeds=seeds, data=data)
    floor = pca_mse(data.train, data.test, hidden)
    mean, std = summarise(runs)
    name = f"{'tied' if tie else 'untied'} {activation}, h={hidden}" + (", sigmoid out" if output == "sigmoid" else "")
    color = "tab:blue" if tie else "tab:orange"
    fig, (bars, curves, recon) = new_figure(1, 3, size=(11.0, 3.4))
    # fixed positions (no layout engine: a redraw renders once): narrow bars, wide reconstructions
    for ax, box in ((bars, [0.07, 0.2, 0.13, 0.68]), (curves, [0.29, 0.14, 0.30, 0.74]), (recon, [0.64, 0.08, 0.35, 0.8])):
        ax.set_position(box)
    draw_error_bars(bars, [(name.replace(", ", "\n"), runs, color)])
    bars.bar(1, floor, color="gray", alpha=0.6)
    bars.set_xticks([0, 1], [name.replace(", ", "\n"), f"PCA\nk={hidden}"], fontsize=7)
    bars.set_title(f"held-out MSE, {len(runs)} seeds", fontsize=10)
    draw_curves(curves, runs, label=name, color=color, floor=floor)
    curves.set_title("learning curves (one line per seed)", fontsize=10)
    shown = data.test[:SHOWN_DIGITS]
    with torch.no_grad():
        recon_rows = [shown, runs[0].model(shown).clamp(0, 1), pca_reconstruct(data.train, shown, hidden).clamp(0, 1)]
    draw_digits(recon, recon_rows, title="test digits and reconstructions (seed 0)",
                row_labels=["input", "autoencoder", f"PCA k={hidden}"])
    return PanelResult(fig, {
        "seeds": str(list(seeds)),
        "held-out MSE mean": mean,
        "held-out MSE std": std,
        "PCA floor (held-out)": floor,
        "mean / PCA": mean / floor,
        "parameters": count_parameters(runs[0].model),
    })


def autoencoder_panel(tie: bool = True, hidden: int = 16, activation: str = "sigmoid",
                      output: str = "linear") -> TiePanel:
    """Widget: tie toggle, hidden size, code activation, output; every change retrains 3 seeds from scratch."""
    controls = {
        "hidden": widgets.IntSlider(value=hidden, min=2, max=N_PIXELS, step=1, description="hidden h",
                                    continuous_update=False),
        "activation": widgets.Dropdown(options=list(ACTIVATIONS), value=activation, description="activation"),
        "output": widgets.Dropdown(options=list(OUTPUTS), value=output, description="output"),
    }
    return TiePanel(autoencoder_figure, controls=controls, tie=tie,
                    title="Tied (W, Wᵀ) or untied autoencoder on 8×8 digits — every change retrains 3 seeds")


def benchmarks():
    """`make bench`: a tie toggle retrains 3 seeds from scratch (no cache exists to hit)."""
    from .bench import toggle_benchmark

    return [toggle_benchmark("05 autoencoder panel: tie toggle (full retrain, 3 seeds)", autoencoder_panel,
                             budget_seconds=1.5, repeats=5)]
