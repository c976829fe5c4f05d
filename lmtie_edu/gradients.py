"""Lesson 03 — with tying, the matrix's gradient is the lookup's gradient plus the head's.

The plumbing of the lesson: a deterministic Zipf-like corpus with sentence boundaries, an untied
"twin" of a tied model (same values, two Parameters) to split the gradient into its two paths,
a counter of how often each row receives a gradient during training, the figures and the panel.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import ipywidgets as widgets
import torch
import torch.nn.functional as F

from .models import TinyLM
from .plotting import new_figure
from .training import RowGradientCounter, make_windows, train
from .validation import check_bool, check_number, check_positive_int, check_token_ids
from .widgets import PanelResult, TiePanel

BOS, EOS = 0, 1  # sentence start (only ever an input) and end (only ever a target)


@dataclass
class ZipfCorpus:
    """Next-token windows of a synthetic corpus, and how often each token occurs where."""

    inputs: torch.Tensor  # (N, context) token ids
    targets: torch.Tensor  # (N,)
    vocab_size: int
    as_input: torch.Tensor  # (V,) number of windows whose input contains the token
    as_target: torch.Tensor  # (V,) number of windows whose target is the token

    def labels(self) -> list[str]:
        return ["<bos>", "<eos>"] + [f"w{i}" for i in range(2, self.vocab_size)]


def zipf_probabilities(n_words: int, exponent: float = 1.1) -> torch.Tensor:
    """p(rank k) ∝ 1 / k**exponent for k = 1..n_words (a Zipf law), as a float64 tensor summing to 1."""
    n_words = check_positive_int(n_words, "n_words")
    check_number(exponent, "exponent", minimum=0, maximum=5)
    weights = torch.arange(1, n_words + 1, dtype=torch.float64) ** -float(exponent)
    return weights / weights.sum()


def zipf_corpus(n_sentences: int = 1500, vocab_size: int = 120, *, context: int = 2, exponent: float = 1.1,
                mean_length: int = 8, seed: int = 0) -> ZipfCorpus:
    """Sentences of Zipf-distributed words, cut into next-token windows that never cross a sentence.

    Token 0 is ``<bos>`` (pads the start of every sentence, so it is only ever an input), token 1
    is ``<eos>`` (ends every sentence, so it is only ever a target), tokens 2.. are words whose
    frequencies follow a Zipf law. To give a model something to learn, each word has one
    favourite successor (itself a Zipf draw), chosen half of the time. Deterministic given ``seed``.
    """
    n_sentences = check_positive_int(n_sentences, "n_sentences")
    vocab_size = check_positive_int(vocab_size, "vocab_size", minimum=4)
    context = check_positive_int(context, "context")
    mean_length = check_positive_int(mean_length, "mean_length")
    generator = torch.Generator().manual_seed(seed)
    probabilities = zipf_probabilities(vocab_size - 2, exponent)

    def draw(n: int) -> torch.Tensor:
        return torch.multinomial(probabilities, n, replacement=True, generator=generator) + 2

    favourite = torch.cat([torch.zeros(2, dtype=torch.long), draw(vocab_size - 2)])
    lengths = 1 + torch.poisson(torch.full((n_sentences,), float(mean_length - 1)), generator=generator).long()
    fresh = draw(int(lengths.sum()))
    follow = torch.rand(int(lengths.sum()), generator=generator) < 0.5
    stream, position = [], 0
    for length in lengths.tolist():
        words = fresh[position:position + length].clone()
        for t in range(1, length):
            if follow[position + t]:
                words[t] = favourite[words[t - 1]]
        position += length
        stream += [BOS] * context + words.tolist() + [EOS]
    inputs, targets = make_windows(torch.tensor(stream), context)
    keep = ~(inputs == EOS).any(dim=1)  # drop windows that would read across a sentence end
    inputs, targets = inputs[keep], targets[keep]
    return ZipfCorpus(inputs, targets, vocab_size,
                  as_input=_windows_containing(inputs, vocab_size),
                  as_target=torch.bincount(targets, minlength=vocab_size))


def _windows_containing(inputs: torch.Tensor, vocab_size: int) -> torch.Tensor:
    present = torch.zeros(len(inputs), vocab_size, dtype=torch.bool)
    present.scatter_(1, inputs, True)
    return present.sum(dim=0)


def rows_touched(grad: torch.Tensor) -> int:
    """How many rows of a gradient matrix are not all zero."""
    return int((grad != 0).any(dim=1).sum())


def untied_twin(model: TinyLM) -> TinyLM:
    """An untied copy of a tied ``TinyLM``: same values everywhere, but the lookup and the head are
    two separate Parameters (each starting as a copy of the shared matrix)."""
    if not isinstance(model, TinyLM):
        raise TypeError(f"model must be a lmtie_edu.models.TinyLM; got {type(model).__name__}")
    if not model.tied:
        raise ValueError("model must be tied (model.head.weight is model.embedding.weight); got an untied model")
    twin = TinyLM(model.vocab_size, model.d_model, context=model.context,
                  hidden=model.body[0].out_features, tie=False)
    with torch.no_grad():
        twin.body.load_state_dict(model.body.state_dict())
        twin.embedding.weight.copy_(model.embedding.weight)
        twin.head.weight.copy_(model.embedding.weight)
    return twin


def _check_batch(model: TinyLM, inputs, targets) -> tuple[torch.Tensor, torch.Tensor]:
    inputs = check_token_ids(inputs, model.vocab_size, ranks=(2,), name="inputs")
    targets = check_token_ids(targets, model.vocab_size, ranks=(1,), name="targets")
    if inputs.shape != (len(targets), model.context):
        raise ValueError(f"inputs must have shape (len(targets), {model.context}) = ({len(targets)}, {model.context}); "
                         f"got {tuple(inputs.shape)}")
    return inputs, targets


def gradient_parts(model: TinyLM, inputs, targets) -> dict:
    """Backpropagate one batch through a tied model and through its untied twin.

    Returns the tied gradient of the shared matrix, the twin's two gradients (``input_part`` =
    through the lookup, ``output_part`` = through the head), their sum and the largest absolute
    difference between the tied gradient and that sum.
    """
    twin = untied_twin(model)
    inputs, targets = _check_batch(model, inputs, targets)
    model.zero_grad(set_to_none=True)
    loss = F.cross_entropy(model(inputs), targets)
    loss.backward()
    twin_loss = F.cross_entropy(twin(inputs), targets)
    twin_loss.backward()
    tied = model.embedding.weight.grad.detach().clone()
    input_part, output_part = twin.embedding.weight.grad, twin.head.weight.grad
    model.zero_grad(set_to_none=True)
    with torch.no_grad():
        probabilities = F.softmax(twin(inputs), dim=-1).mean(dim=0)
    return {
        "tied": tied, "input_part": input_part, "output_part": output_part,
        "sum": input_part + output_part,
        "max_abs_diff": (tied - (input_part + output_part)).abs().max().item(),
        "loss": loss.item(), "twin_loss": twin_loss.item(),
        "mean_probabilities": probabilities,
    }


def count_row_gradients(model: TinyLM, corpus: ZipfCorpus, *, steps: int = 300, batch_size: int = 32,
                        lr: float = 3e-3, seed: int = 0) -> dict:
    """Train ``model`` on ``corpus`` and count, for each row, the steps where it received a gradient.

    Counts rows of the input matrix (``embedding.weight``) and of the output matrix
    (``head.weight``); for a tied model they are the same matrix, so both counts are equal.
    Also returns each row's gradient norm averaged over the steps, and how far each input row moved.
    """
    if not isinstance(model, TinyLM):
        raise TypeError(f"model must be a lmtie_edu.models.TinyLM; got {type(model).__name__}")
    if not isinstance(corpus, ZipfCorpus):
        raise TypeError(f"corpus must be a ZipfCorpus (from zipf_corpus); got {type(corpus).__name__}")
    if corpus.vocab_size != model.vocab_size:
        raise ValueError(f"the corpus has vocab_size {corpus.vocab_size} but the model has {model.vocab_size}")
    counter = RowGradientCounter(model.vocab_size)
    start = model.embedding.weight.detach().clone()
    history = train(model, corpus.inputs, corpus.targets, steps=steps, batch_size=batch_size, lr=lr, seed=seed,
                    after_backward=counter, show_progress=False)
    return {"input_counts": counter.input_steps, "output_counts": counter.output_steps, "steps": steps,
            "input_mean_norm": counter.input_norm_sum / steps, "output_mean_norm": counter.output_norm_sum / steps,
            "input_row_change": (model.embedding.weight.detach() - start).abs().amax(dim=1),
            "final_loss": history.train_loss[-1]}


def update_frequency_figure(corpus: ZipfCorpus, runs: dict):
    """Fraction of steps in which each row received a gradient, against how often the token occurs.

    ``runs`` maps a label (e.g. "untied: input rows") to a (V,) tensor of step counts ÷ steps.
    """
    frequency = (corpus.as_input + corpus.as_target).double()
    order = torch.argsort(frequency, descending=True)
    fig, ax = new_figure(size=(8.0, 3.4))
    styles = ["-", "--", ":", "-."]
    for (label, fraction), style in zip(runs.items(), styles, strict=False):
        ax.plot(range(1, len(order) + 1), fraction[order].numpy(), style, label=label, linewidth=1.8)
    ax.set_xscale("log")
    ax.set_xlabel("token, by frequency rank (1 = most frequent; log scale)")
    ax.set_ylabel("share of steps\nwith a gradient")
    ax.set_ylim(-0.03, 1.05)
    ax.legend(fontsize=8, loc="center left")
    ax.set_title("Which rows learn at each step?", fontsize=10)
    return fig


# -- the panel ---------------------------------------------------------------------------------------

PANEL_VOCAB, PANEL_D = 16, 8


@functools.lru_cache(maxsize=1)
def demo_model() -> TinyLM:
    """A small tied TinyLM (V=16, d=8), briefly trained on a Zipf corpus so its softmax is not flat."""
    torch.manual_seed(0)
    model = TinyLM(PANEL_VOCAB, PANEL_D, context=2, tie=True)
    corpus = zipf_corpus(400, PANEL_VOCAB, seed=1)
    train(model, corpus.inputs, corpus.targets, steps=150, batch_size=32, lr=1e-2, seed=0, show_progress=False)
    return model


def gradient_heatmaps(matrices, titles, *, inputs=(), targets=()):
    """Gradient matrices side by side on one colour scale centred on zero.

    Rows of the ``inputs`` tokens are outlined; the tick labels mark inputs (``in``) and targets
    (``tgt``). Drawn with a fixed layout and one set of tick labels, so a widget redraw is quick.
    """
    from matplotlib.patches import Rectangle

    matrices = [torch.as_tensor(m).detach() for m in matrices]
    limit = max(float(m.abs().max()) for m in matrices) or 1.0
    fig, axes = new_figure(1, len(matrices), size=(3.3 * len(matrices) + 0.6, 3.6),
                           margins=dict(left=0.07, right=0.9, bottom=0.14, top=0.9, wspace=0.12))
    rows, width = matrices[0].shape
    inputs, targets = sorted({int(i) for i in inputs}), {int(t) for t in targets}
    for index, (ax, matrix, title) in enumerate(zip(axes, matrices, titles, strict=True)):
        image = ax.imshow(matrix.numpy(), cmap="RdBu_r", vmin=-limit, vmax=limit, aspect="auto",
                          interpolation="nearest")
        for row in inputs:
            ax.add_patch(Rectangle((-0.5, row - 0.5), width, 1, fill=False, edgecolor="black", linewidth=1.5))
        ax.set_title(title, fontsize=10)
        ax.set_xlabel("dimension")
        ax.set_xticks([])
        if index == 0:
            # label a few rows plus every marked one (each tick label costs render time)
            shown = sorted({0, rows - 1, *range(0, rows, 5), *inputs, *targets})
            marks = [f"{i}{' in' if i in inputs else ''}{' tgt' if i in targets else ''}" for i in shown]
            ax.set_yticks(shown, marks, fontsize=7)
            ax.set_ylabel("row (token id)")
        else:
            ax.set_yticks([])
    colorbar = fig.colorbar(image, ax=list(axes), shrink=0.85)
    colorbar.set_ticks([-limit, 0.0, limit], labels=[f"{-limit:.2g}", "0", f"{limit:.2g}"])
    return fig


def decomposition_figure(first: int = 2, second: int = 3, target: int = 4, tie: bool = True) -> PanelResult:
    """One training example (context ``first, second`` → ``target``): the gradient through the lookup,
    through the head, and what the embedding matrix receives (tied: their sum; untied: lookup only)."""
    for name, value in (("first", first), ("second", second), ("target", target)):
        check_token_ids([value], PANEL_VOCAB, ranks=(1,), name=name)
    check_bool(tie, "tie")
    parts = _cached_parts(first, second, target)
    received = parts["tied"] if tie else parts["input_part"]
    titles = ["lookup path", "head path" + ("" if tie else " = head.grad"),
              "embedding.grad = sum (tied)" if tie else "embedding.grad = lookup only"]
    fig = gradient_heatmaps((parts["input_part"], parts["output_part"], received), titles,
                            inputs=(first, second), targets=(target,))
    numbers = {
        "rows touched through the lookup": rows_touched(parts["input_part"]),
        "rows touched through the head": rows_touched(parts["output_part"]),
        "rows of embedding.grad non-zero": rows_touched(received),
        "max |tied grad - (lookup + head)|": parts["max_abs_diff"],
        "loss": parts["loss"],
    }
    return PanelResult(fig, numbers)


@functools.lru_cache(maxsize=256)
def _cached_parts(first: int, second: int, target: int) -> dict:
    return gradient_parts(demo_model(), torch.tensor([[first, second]]), torch.tensor([target]))


def decomposition_panel(first: int = 2, second: int = 3, target: int = 4, tie: bool = True) -> TiePanel:
    """Widget: pick two input tokens and a target, toggle tying, watch where the gradient lands."""
    options = list(range(PANEL_VOCAB))
    controls = {
        "first": widgets.Dropdown(options=options, value=first, description="input 1",
                                  layout=widgets.Layout(width="150px")),
        "second": widgets.Dropdown(options=options, value=second, description="input 2",
                                   layout=widgets.Layout(width="150px")),
        "target": widgets.Dropdown(options=options, value=target, description="target",
                                   layout=widgets.Layout(width="150px")),
    }
    return TiePanel(decomposition_figure, controls=controls, tie=tie,
                    title="One example's gradient on the embedding matrix, split by path")


def benchmarks():
    """Redraw timings for `make bench` (see lmtie_edu.bench)."""
    from .bench import toggle_benchmark

    return [toggle_benchmark("03 gradient panel: tie toggle", decomposition_panel)]
