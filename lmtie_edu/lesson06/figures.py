"""Lesson 06 figures and the tied-vs-untied panel, drawn from the runs the lesson's cells trained.

A *run* is the dict the lesson's ``train_one`` returns. The figures read these keys:
``tie``, ``articles``, ``seed``, ``parameters``, ``eval_steps``, ``train_curve`` and ``select_curve``
(mean cross-entropy per evaluation interval), and ``train``/``final``/``early`` (dicts with the mean
cross-entropy ``"all"`` over a split). The panel only redraws these stored runs: it never trains.
"""

from __future__ import annotations

import math

import ipywidgets as widgets
import torch
from matplotlib.ticker import FuncFormatter

from lmtie_edu.kit.panels import PanelResult, TiePanel
from lmtie_edu.kit.plotting import new_figure
from lmtie_edu.shared.validation import check_bool, check_choice, check_positive_int

from .summaries import mean_and_spread, perplexity

TIE_COLOURS = {True: "tab:blue", False: "tab:orange"}
RUN_KEYS = ("tie", "articles", "seed", "parameters", "eval_steps", "train_curve", "select_curve", "train", "final",
            "early")


def check_runs(runs) -> list[dict]:
    """Reject anything but a non-empty list of run dicts with every key the figures read."""
    if not isinstance(runs, list) or not runs:
        raise TypeError(f"runs must be a non-empty list of run dicts (from train_one); got {type(runs).__name__}")
    for run in runs:
        if not isinstance(run, dict):
            raise TypeError(f"each run must be a dict returned by train_one; got {type(run).__name__}")
        missing = [key for key in RUN_KEYS if key not in run]
        if missing:
            raise ValueError(f"a run is missing the keys {missing}; expected the dict returned by train_one")
    return runs


def _ppl(loss: float) -> float:
    return math.nan if math.isnan(loss) else perplexity(loss)  # a NaN loss stays NaN (mean_and_spread shows it)


def _select(runs, tie, articles):
    return [run for run in runs if run["tie"] == tie and run["articles"] == articles]


def _band(ax, steps, curves, colour, label, style, width):
    curves = torch.tensor(curves, dtype=torch.float64).exp()       # perplexity = exp(loss)
    mean = curves.mean(0)
    ax.plot(steps, mean, style, color=colour, label=label, linewidth=width, marker=".", markersize=5)
    ax.fill_between(steps, curves.min(0).values, curves.max(0).values, color=colour, alpha=0.15, linewidth=0)
    return mean


def _turning_point(steps, mean) -> tuple[int, str]:
    """The step where a mean curve is lowest, and what it does afterwards."""
    best = int(mean.argmin())
    if best == len(steps) - 1:
        return steps[best], "still falling at the last step"
    return steps[best], f"lowest at step {steps[best]}, then rises"


def learning_curves_figure(runs, *, tie: bool = True, articles: int | None = None) -> PanelResult:
    """Three panels for one amount of text, tied (blue) and untied (orange) both drawn in full, the chosen
    model thicker. Left: selection-half perplexity during training on a linear axis fitted to those curves,
    each model's lowest point marked (mean over seeds, band min–max). Middle: the mean mini-batch perplexity
    of each interval (log axis). Right: report-half perplexity against the amount of text, at the end of the
    budget and at the early-stopping checkpoint."""
    runs = check_runs(runs)
    check_bool(tie, "tie")
    knob = sorted({run["articles"] for run in runs})
    articles = knob[-1] if articles is None else check_choice(articles, "articles", knob)
    chosen = _select(runs, tie, articles)
    if not chosen:
        raise ValueError(f"no {'tied' if tie else 'untied'} runs with {articles} articles")
    fig, (select_ax, train_ax, right) = new_figure(1, 3, size=(12.0, 4.2), margins=dict(
        left=0.06, right=0.99, wspace=0.3, top=0.76, bottom=0.13))
    points, ends = {}, {}
    for setting in (tie, not tie):                     # the chosen model first: its point is stated first
        group, name = _select(runs, setting, articles), "tied" if setting else "untied"
        if not group:
            continue
        steps, width = group[0]["eval_steps"], 2.4 if setting == tie else 1.4
        mean = _band(select_ax, steps, [r["select_curve"] for r in group], TIE_COLOURS[setting], name, "-", width)
        best, points[name] = _turning_point(steps, mean)
        select_ax.plot([best], [float(mean.min())], "v", color=TIE_COLOURS[setting], markersize=9,
                       markeredgecolor="black", markeredgewidth=0.6)
        train = _band(train_ax, steps, [r["train_curve"] for r in group], TIE_COLOURS[setting], name, "--", width)
        ends[name] = float(train[-1])
    select_ax.set_xlabel("training step")
    select_ax.set_ylabel("selection-half perplexity")
    select_ax.set_title(f"{articles} articles, selection half (▼ lowest)\n"
                        + "\n".join(f"{name}: {point}" for name, point in points.items()), fontsize=9)
    select_ax.legend(fontsize=8)
    train_ax.set_yscale("log")
    train_ax.yaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))   # 100, not 10²
    # label the minor ticks 20, 50, 200, 500 only: labelling all of them crowds the axis
    train_ax.yaxis.set_minor_formatter(FuncFormatter(lambda value, _: f"{value:g}" if f"{value:.0e}"[0] in "25"
                                                     else ""))
    train_ax.set_xlabel("training step")
    train_ax.set_ylabel("training-batch perplexity (log scale)")
    if len(ends) == 2:
        lower = min(ends, key=ends.get)
        train_ax.set_title(f"training batches (mean of each interval)\n{lower} ends lower", fontsize=9)
    else:
        train_ax.set_title("training batches", fontsize=9)
    train_ax.legend(fontsize=8)
    for setting in (True, False):
        for key, marker, style, label in (("final", "o", "-", "end of budget"), ("early", "s", ":", "early-stopped")):
            means = [mean_and_spread(_ppl(r[key]["all"]) for r in _select(runs, setting, a))[0] for a in knob]
            right.plot(knob, means, marker + style, color=TIE_COLOURS[setting],
                       label=f"{'tied' if setting else 'untied'}, {label}",
                       linewidth=2.2 if setting == tie else 1.2)
    right.axvline(articles, color="grey", linewidth=0.8, linestyle=":")
    right.set_xlabel("training articles")
    right.set_ylabel("report-half perplexity")
    right.set_title("report half, mean over seeds\n(dotted line: the articles on the left)", fontsize=9)
    right.legend(fontsize=7)
    fig.suptitle(f"Tied (blue) vs untied (orange), {articles} articles: mean over {len(chosen)} seeds, "
                 f"bands min–max; {'tied' if tie else 'untied'} drawn thicker", fontsize=10, y=0.995)
    train = mean_and_spread(_ppl(r["train"]["all"]) for r in chosen)
    final = mean_and_spread(_ppl(r["final"]["all"]) for r in chosen)
    early = mean_and_spread(_ppl(r["early"]["all"]) for r in chosen)
    return PanelResult(fig, {
        "model": "tied" if tie else "untied",
        "training articles": articles,
        "parameters": chosen[0]["parameters"],
        "train perplexity (mean)": round(train[0], 1),
        "report perplexity, end of budget (mean)": round(final[0], 1),
        "report perplexity, end of budget (sd)": round(final[1], 1),
        "report perplexity, early-stopped (mean)": round(early[0], 1),
    })


def tying_panel(runs, *, tie: bool = True, articles: int | None = None) -> TiePanel:
    """Widget: toggle tying and the amount of training text; redraws the stored runs (no retraining)."""
    runs = check_runs(runs)
    knob = sorted({run["articles"] for run in runs})
    articles = knob[-1] if articles is None else check_choice(articles, "articles", knob)
    control = widgets.Dropdown(options=knob, value=articles, description="articles")
    return TiePanel(lambda tie, articles: learning_curves_figure(runs, tie=tie, articles=articles),
                    controls={"articles": control}, tie=tie,
                    title="Tied vs untied: learning curves (stored runs, no retraining)")


def gradient_counts_figure(input_fraction: torch.Tensor, output_fraction: torch.Tensor, counts: torch.Tensor,
                           steps: int):
    """Per word, ranked by training frequency: fraction of steps in which its input row and its output row
    received a non-zero gradient (rows never reached are drawn at the floor 0.5/steps)."""
    steps = check_positive_int(steps, "steps")
    for name, values in (("input_fraction", input_fraction), ("output_fraction", output_fraction),
                         ("counts", counts)):
        if not isinstance(values, torch.Tensor):
            raise TypeError(f"{name} must be a 1-D tensor with one value per vocabulary id; got {type(values).__name__}")
        if values.is_meta:
            raise ValueError(f"{name} is a meta tensor (a shape without values); compute it on the CPU")
        if values.dim() != 1 or values.shape != counts.shape:
            raise ValueError(f"{name} must be a 1-D tensor with one value per vocabulary id, like counts "
                             f"{tuple(getattr(counts, 'shape', ()))}")
    if len(counts) < 3:
        raise ValueError(f"counts must hold at least 3 ids (<unk>, <eos> and a word); got {len(counts)}")
    fig, ax = new_figure(size=(7.0, 3.4), layout="constrained")
    words = torch.arange(2, len(counts))   # skip <unk> and <eos>
    order = words[torch.argsort(-counts[words], stable=True)]
    rank = torch.arange(1, len(order) + 1)
    ax.loglog(rank, input_fraction[order].double().clamp_min(0.5 / steps), ".", markersize=2,
              label="input rows (untied embedding E)", color="tab:green")
    ax.loglog(rank, output_fraction[order].double(), ".", markersize=2, label="output rows (untied head O)",
              color="tab:orange")
    ax.set_xlabel("word frequency rank in the training text (1 = most frequent)")
    ax.set_ylabel("fraction of steps with a gradient")
    ax.set_title("Every output row gets a gradient at every step;\n"
                 "a rare word's input row in a few per cent of them", fontsize=10)
    ax.legend(fontsize=8, loc="lower left", markerscale=5)
    return fig

