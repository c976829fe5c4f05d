"""Lesson 02 — logits are inner products of the hidden state with every token's row.

The plumbing of the lesson: a hand-made 2-D vocabulary (where the top-scoring token is not the
nearest vector), the ranking tables, a plane that shows a larger model's inner products exactly,
the "does a token predict itself?" measurements for tied matrices, the √d_model scale table, a
small trained tied/untied pair, the figures and the panel.
"""

from __future__ import annotations

import functools
import math

import ipywidgets as widgets
import torch
import torch.nn.functional as F

from .models import TinyLM
from .plotting import new_figure
from .training import train
from .validation import check_bool, check_matrix, check_number, check_positive_int, check_token_ids
from .widgets import PanelResult, TiePanel

TOY_LABELS = ("the", "cat", "dog", "sat", "ran", "mat", "on", "a")


def toy_vocabulary() -> tuple[list[str], torch.Tensor, torch.Tensor]:
    """Eight tokens in d = 2: labels, an embedding matrix W_emb (8, 2) and an independent W_out (8, 2).

    W_emb is hand-made: "the" is a long vector (frequent tokens often have large norms), "cat" and
    "dog" are short and close together. W_out is a different matrix from a fixed seed, standing in
    for an untied head that learned its own vectors.
    """
    embedding = torch.tensor([
        [2.6, 0.4],    # the
        [0.9, 1.0],    # cat
        [1.15, 0.6],   # dog
        [-0.8, 1.1],   # sat
        [-1.0, 0.7],   # ran
        [0.2, -1.2],   # mat
        [-1.3, -0.6],  # on
        [1.6, -0.9],   # a
    ])
    generator = torch.Generator().manual_seed(7)
    head = torch.randn(len(TOY_LABELS), 2, generator=generator) * 1.2
    return list(TOY_LABELS), embedding, head


def hidden_from_polar(angle_degrees: float, length: float) -> torch.Tensor:
    """A 2-D hidden state from an angle (degrees, counter-clockwise from the x axis) and a length."""
    for name, value in (("angle_degrees", angle_degrees), ("length", length)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise TypeError(f"{name} must be a finite number; got {value!r}")
    if length < 0:
        raise ValueError(f"length must be >= 0; got {length}")
    radians = math.radians(angle_degrees)
    return torch.tensor([length * math.cos(radians), length * math.sin(radians)])


def _check_hidden(h, W) -> torch.Tensor:
    check_matrix(W, "W")
    if not isinstance(h, torch.Tensor):
        raise TypeError(f"h must be a torch.Tensor of shape (d,) = ({W.shape[1]},); got {type(h).__name__}")
    if h.dim() != 1 or h.shape[0] != W.shape[1]:
        raise ValueError(f"h must have shape (d,) = ({W.shape[1]},) to match W of shape {tuple(W.shape)}; "
                         f"got {tuple(h.shape)}")
    if not h.is_floating_point():
        raise TypeError(f"h must hold floating-point values; got dtype {h.dtype}")
    return h


def score_table(h: torch.Tensor, W: torch.Tensor) -> dict:
    """Everything the head does with one hidden state ``h`` (d,) and a matrix ``W`` (V, d).

    ``logits = W @ h`` (one inner product per row), the softmax, each row's norm and its Euclidean
    distance to ``h``; ``top`` is the largest logit, ``nearest`` the closest vector.
    """
    h = _check_hidden(h, W)
    logits = W @ h
    distances = (W - h).norm(dim=1)
    return {
        "logits": logits,
        "probabilities": F.softmax(logits, dim=0),
        "norms": W.norm(dim=1),
        "distances": distances,
        "top": int(logits.argmax()),
        "nearest": int(distances.argmin()),
    }


def exact_plane(h: torch.Tensor, W: torch.Tensor, reference: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Coordinates of every row of ``W`` in the plane spanned by ``h`` and row ``reference``.

    The first axis is the direction of ``h``, so a row's first coordinate times ‖h‖ *is* its
    logit: the projection keeps every inner product with ``h`` exactly (it loses distances).
    Returns (row coordinates (V, 2), h's coordinates (2,)).
    """
    h = _check_hidden(h, W)
    check_token_ids([reference], W.shape[0], ranks=(1,), name="reference")
    if float(h.norm()) == 0:
        raise ValueError("h must not be the zero vector (its direction defines the plane)")
    first = h / h.norm()
    other = W[reference] - (W[reference] @ first) * first
    if float(other.norm()) < 1e-9:  # the reference row is parallel to h: any orthogonal direction will do
        other = torch.zeros_like(h)
        other[int(first.abs().argmin())] = 1.0
        other = other - (other @ first) * first
    second = other / other.norm()
    basis = torch.stack([first, second])  # (2, d), orthonormal rows
    return W @ basis.T, basis @ h


def top_differs_from_nearest(H: torch.Tensor, W: torch.Tensor) -> float:
    """Fraction of hidden states (rows of ``H``) whose top-scoring token is not their nearest row of ``W``."""
    check_matrix(H, "H")
    check_matrix(W, "W", shape=(None, H.shape[1]))
    top = (H @ W.T).argmax(dim=1)
    nearest = torch.cdist(H, W).argmin(dim=1)
    return (top != nearest).double().mean().item()


def self_scores(W: torch.Tensor, W_out: torch.Tensor | None = None) -> dict:
    """Feed every token's own embedding as the hidden state, h = e_i, and score all tokens.

    Tied (``W_out`` omitted): row i of ``W @ W.T`` holds the logits and its diagonal entry is ‖e_i‖².
    Untied: the logits are ``W @ W_out.T``. Returns the fraction of tokens that are their own top
    prediction and the mean probability they give themselves.
    """
    check_matrix(W, "W")
    if W_out is None:
        W_out = W
    check_matrix(W_out, "W_out", shape=tuple(W.shape))
    logits = W @ W_out.T
    wins = logits.argmax(dim=1) == torch.arange(W.shape[0])
    return {"win_rate": wins.double().mean().item(),
            "mean_self_probability": F.softmax(logits, dim=1).diagonal().mean().item()}


def random_self_win_rates(vocab_size: int, d_values, seeds=(0, 1, 2)) -> dict:
    """``self_scores(W)["win_rate"]`` for W ~ N(0, 1/d), per d, over several seeds (mean, min, max)."""
    vocab_size = check_positive_int(vocab_size, "vocab_size")
    table = {}
    for d in d_values:
        d = check_positive_int(d, "d")
        rates = [self_scores(torch.randn(vocab_size, d, generator=torch.Generator().manual_seed(s)) * d ** -0.5)
                 ["win_rate"] for s in seeds]
        table[d] = (sum(rates) / len(rates), min(rates), max(rates))
    return table


def residual_self_win_rates(vocab_size: int, d: int, ratios, seeds=(0, 1, 2)) -> dict:
    """Tied head, h = e_i + n_i: the input token's own embedding plus what the body adds.

    A transformer's residual stream starts as the input embedding, so the final hidden state is
    e_i plus the blocks' contributions; here those are random vectors n_i ~ N(0, r²/d) (about r
    times the size of e_i ~ N(0, 1/d)). Returns, per ratio r, the fraction of tokens still
    predicting themselves (mean, min, max over seeds).
    """
    vocab_size = check_positive_int(vocab_size, "vocab_size")
    d = check_positive_int(d, "d")
    table = {}
    for ratio in ratios:
        check_number(ratio, "each ratio", minimum=0)
        rates = []
        for seed in seeds:
            generator = torch.Generator().manual_seed(seed)
            W = torch.randn(vocab_size, d, generator=generator) * d ** -0.5
            h = W + torch.randn(vocab_size, d, generator=generator) * ratio * d ** -0.5
            rates.append(((h @ W.T).argmax(dim=1) == torch.arange(vocab_size)).double().mean().item())
        table[ratio] = (sum(rates) / len(rates), min(rates), max(rates))
    return table


def scale_table(d_values) -> list[dict]:
    """Sizes that decide the √d_model question (Vaswani et al. 2017, §3.4), measured on random draws.

    For each d: the norm of a row of W ~ N(0, 1/d) looked up as is and multiplied by √d, the norm of
    a sinusoidal position vector, and the spread (std) of tied logits h·w_j for a hidden state with
    unit-size entries (as after a LayerNorm), when the shared matrix has std 1/√d or std 1.
    """
    rows = []
    generator = torch.Generator().manual_seed(0)
    for d in d_values:
        d = check_positive_int(d, "d")
        small = torch.randn(1000, d, generator=generator) * d ** -0.5
        large = torch.randn(1000, d, generator=generator)
        h = torch.randn(d, generator=generator)
        h = (h - h.mean()) / h.std(correction=0)  # LayerNorm without affine: mean 0, variance 1
        rows.append({
            "d": d,
            "|e| (std 1/sqrt d)": small.norm(dim=1).mean().item(),
            "|e| * sqrt d": (small * d ** 0.5).norm(dim=1).mean().item(),
            "|position vector|": sinusoidal_position(100, d).norm().item(),
            "logit std (W std 1/sqrt d)": (small @ h).std().item(),
            "logit std (W std 1)": (large @ h).std().item(),
            "p(top) (W std 1/sqrt d)": F.softmax(small @ h, dim=0).max().item(),
            "p(top) (W std 1)": F.softmax(large @ h, dim=0).max().item(),
        })
    return rows


def sinusoidal_position(position: int, d: int) -> torch.Tensor:
    """The sinusoidal position encoding of Vaswani et al. (2017, §3.5) for one position, shape (d,)."""
    from .sharing import sinusoidal_positions  # one implementation, shared with lesson 07's encoder–decoder

    position = check_positive_int(position, "position", minimum=0)
    return sinusoidal_positions(position + 1, d)[position]


# -- a small trained pair -----------------------------------------------------------------------------

@functools.lru_cache(maxsize=2)
def trained_pair(steps: int = 400, seed: int = 0) -> dict:
    """A tied and an untied TinyLM (V=120, d=16) trained identically on the lesson 03 Zipf corpus."""
    from .gradients import zipf_corpus

    corpus = zipf_corpus(seed=seed)
    models = {}
    for tie in (True, False):
        torch.manual_seed(seed)
        model = TinyLM(corpus.vocab_size, 16, context=2, tie=tie)
        initial = {"tie": tie, "state": {k: v.clone() for k, v in model.state_dict().items()}}
        train(model, corpus.inputs, corpus.targets, steps=steps, batch_size=64, lr=1e-2, seed=seed,
              show_progress=False)
        models["tied" if tie else "untied"] = model
        models[("initial", tie)] = initial
    models["corpus"] = corpus
    return models


@torch.no_grad()
def repeats_last_input(model: TinyLM, inputs) -> float:
    """Fraction of contexts for which the model's top prediction is the last token of its input."""
    if not isinstance(model, TinyLM):
        raise TypeError(f"model must be a lmtie_edu.models.TinyLM; got {type(model).__name__}")
    inputs = check_token_ids(inputs, model.vocab_size, ranks=(2,), name="inputs")
    return (model(inputs).argmax(dim=1) == inputs[:, -1]).double().mean().item()


# -- figures ----------------------------------------------------------------------------------------

def arrows(ax, W, labels, h=None, *, highlight=(), color="#4477aa") -> None:
    """Token vectors as arrows from the origin (labelled), plus the hidden state ``h`` in black."""
    W = W.detach()
    extent = float(W.abs().max())
    if h is not None:
        extent = max(extent, float(h.abs().max()))
    extent = 1.15 * extent + 0.3
    points = W.tolist()
    colors = ["#cc3311" if i in highlight else color for i in range(len(points))]
    # one quiver artist for all arrows: much cheaper to render than one annotation per arrow
    ax.quiver([0.0] * len(points), [0.0] * len(points), [p[0] for p in points], [p[1] for p in points],
              color=colors, angles="xy", scale_units="xy", scale=1, width=0.008)
    for i, (x, y) in enumerate(points):
        ax.text(x + 0.25 * math.copysign(1, x), y + 0.12 * math.copysign(1, y), labels[i], fontsize=8,
                ha="center", va="center", fontweight="bold" if i in highlight else "normal")
    if h is not None:
        hx, hy = h.tolist()
        ax.quiver([0.0], [0.0], [hx], [hy], color="black", angles="xy", scale_units="xy", scale=1, width=0.014)
        ax.text(hx * 1.08, hy * 1.08 + 0.12, "h", fontsize=10, fontweight="bold")
    ax.axhline(0, color="#bbbbbb", linewidth=0.6)
    ax.axvline(0, color="#bbbbbb", linewidth=0.6)
    ax.set_xlim(-extent, extent)
    ax.set_ylim(-extent, extent)
    ax.set_xticks([-2, 0, 2] if extent > 2 else [-1, 0, 1])
    ax.set_yticks([-2, 0, 2] if extent > 2 else [-1, 0, 1])
    ax.set_aspect("equal")


def bars(ax, values, labels, *, title: str, highlight: int | None = None, fmt: str = "{:.2f}") -> None:
    """Horizontal bars, each labelled at its end with the token and the value (no axis ticks: a tick
    label costs more to render than a text, and widget redraws must stay fast)."""
    values = [float(v) for v in values]
    colors = ["#cc3311" if i == highlight else "#4477aa" for i in range(len(values))]
    ax.barh(range(len(values)), values, color=colors)
    ax.set_yticks([])
    ax.set_xticks([])
    ax.set_ylim(len(values) - 0.5, -0.5)  # first token on top
    ax.axvline(0, color="#888888", linewidth=0.6)
    ax.set_title(title, fontsize=10)
    for i, v in enumerate(values):
        text = f" {labels[i]} {fmt.format(v)} " if v >= 0 else f" {fmt.format(v)} {labels[i]} "
        ax.text(v, i, text, va="center", ha="left" if v >= 0 else "right", fontsize=8,
                fontweight="bold" if i == highlight else "normal")
    low, high = min(values + [0.0]), max(values + [0.0])
    pad = 0.6 * (high - low or 1.0)
    ax.set_xlim(low - (pad if low < 0 else 0), high + pad)


def geometry_figure(h: torch.Tensor, W: torch.Tensor, labels, *, title: str = "token vectors and h"):
    """Arrows (the head's rows and h), the logits as bars, the softmax as bars; the top token in red."""
    scores = score_table(h, W)
    fig, axes = new_figure(1, 3, size=(10.0, 3.4), margins=dict(left=0.04, right=0.98, bottom=0.12, top=0.88, wspace=0.35))
    arrows(axes[0], W, labels, h, highlight=(scores["top"],))
    axes[0].set_title(title, fontsize=10)
    bars(axes[1], scores["logits"], labels, title="logits = h · w_i", highlight=scores["top"])
    bars(axes[2], scores["probabilities"], labels, title="softmax", highlight=scores["top"], fmt="{:.3f}")
    axes[2].set_xlim(0, 1.6)
    return fig, scores


def projection_figure(h: torch.Tensor, W: torch.Tensor, labels, *, k: int = 6):
    """A d-dimensional head drawn in the plane of ``h`` and its nearest row (see :func:`exact_plane`).

    Shows the ``k`` top-scoring tokens and the nearest one; a row's horizontal coordinate times
    ‖h‖ is its exact logit. Returns the figure and the scores of the full head.
    """
    scores = score_table(h, W)
    k = check_positive_int(k, "k")
    shown = scores["logits"].argsort(descending=True)[:k].tolist()
    if scores["nearest"] not in shown:
        shown.append(scores["nearest"])
    coords, h_plane = exact_plane(h, W, scores["nearest"])
    fig, axes = new_figure(1, 2, size=(8.0, 3.6), margins=dict(left=0.06, right=0.98, bottom=0.12, top=0.88, wspace=0.3))
    names = [labels[i] for i in shown]
    shown_coords = coords[shown]
    # h is drawn shortened to the rows' scale: only its direction matters for the ranking
    h_drawn = h_plane / h_plane.norm() * 1.3 * float(shown_coords.norm(dim=1).max())
    arrows(axes[0], shown_coords, names, h_drawn, highlight=(0,))
    axes[0].set_title("plane of h and its nearest row (h shortened)\nhorizontal coordinate × ‖h‖ = logit", fontsize=9)
    bars(axes[1], scores["probabilities"][shown], names, title=f"softmax over all {W.shape[0]} tokens",
         highlight=0, fmt="{:.3f}")
    return fig, scores


# -- the panel ----------------------------------------------------------------------------------------

def logits_figure(angle: int = 50, length: float = 1.3, tie: bool = True) -> PanelResult:
    """The lesson 02 panel: the head's rows (W_emb when tied, an independent W_out when not), h, bars."""
    labels, embedding, head = toy_vocabulary()
    check_bool(tie, "tie")
    h = hidden_from_polar(angle, length)
    W = embedding if tie else head
    fig, scores = geometry_figure(h, W, labels, title="head rows = W_emb (tied)" if tie else "head rows = W_out (untied)")
    return PanelResult(fig, {
        "h": f"({h[0].item():.2f}, {h[1].item():.2f})",
        "top token (largest h·w)": labels[scores["top"]],
        "p(top)": scores["probabilities"][scores["top"]].item(),
        "nearest vector to h": labels[scores["nearest"]],
        "logit of the nearest": scores["logits"][scores["nearest"]].item(),
    })


def logits_panel(angle: int = 50, length: float = 1.3, tie: bool = True) -> TiePanel:
    """Widget: turn and stretch the hidden state, toggle tying, watch the logits and the softmax."""
    controls = {
        "angle": widgets.IntSlider(value=angle, min=0, max=355, step=5, description="angle of h (°)"),
        "length": widgets.FloatSlider(value=length, min=0.0, max=3.0, step=0.1, description="length ‖h‖"),
    }
    return TiePanel(logits_figure, controls=controls, tie=tie,
                    title="Move the hidden state: which token gets the largest inner product?")


def benchmarks():
    """Redraw timings for `make bench` (see lmtie_edu.bench)."""
    from .bench import toggle_benchmark

    return [toggle_benchmark("02 logits panel: tie toggle", logits_panel)]
