"""Lesson 06 figures and the tied-vs-untied panel, drawn from the runs the lesson's cells trained.

A *run* is the dict the lesson's ``train_one`` returns. The figures read these keys:
``tie``, ``articles``, ``seed``, ``parameters``, ``eval_steps``, ``train_curve`` and ``select_curve``
(mean cross-entropy per evaluation interval), and ``train``/``final``/``early`` (dicts with the mean
cross-entropy ``"all"`` over a split). The panel only redraws these stored runs: it never trains.
"""

from __future__ import annotations

import copy
import math

import ipywidgets as widgets
import torch
from matplotlib.legend import Legend
from matplotlib.ticker import FuncFormatter

from lmtie_edu.kit.live_figure import LiveFigure
from lmtie_edu.kit.panels import PanelResult, TiePanel
from lmtie_edu.kit.plotting import new_figure
from lmtie_edu.shared.language import N_, tr
from lmtie_edu.shared.validation import check_bool, check_choice, check_positive_int

from .summaries import mean_and_spread, perplexity

TIE_COLOURS = {True: "tab:blue", False: "tab:orange"}
RUN_KEYS = ("tie", "articles", "seed", "parameters", "eval_steps", "train_curve", "select_curve", "train", "final",
            "early")


def check_runs(runs) -> list[dict]:
    """Reject anything but a non-empty list of run dicts with every key the figures read."""
    if not isinstance(runs, list) or not runs:
        raise TypeError(tr("runs must be a non-empty list of run dicts (from train_one); got {type}",
                           type=type(runs).__name__))
    for run in runs:
        if not isinstance(run, dict):
            raise TypeError(tr("each run must be a dict returned by train_one; got {type}", type=type(run).__name__))
        missing = [key for key in RUN_KEYS if key not in run]
        if missing:
            raise ValueError(tr("a run is missing the keys {missing}; expected the dict returned by train_one",
                                missing=missing))
    return runs


def _ppl(loss: float) -> float:
    return math.nan if math.isnan(loss) else perplexity(loss)  # a NaN loss stays NaN (mean_and_spread shows it)


def _select(runs, tie, articles):
    return [run for run in runs if run["tie"] == tie and run["articles"] == articles]


def _band(ax, steps, curves, colour, label, style, width) -> list:
    """A mean curve with its min–max band (``curves``: perplexities, one row per seed); returns the artists."""
    (line,) = ax.plot(steps, curves.mean(0), style, color=colour, label=label, linewidth=width, marker=".",
                      markersize=5)
    band = ax.fill_between(steps, curves.min(0).values, curves.max(0).values, color=colour, alpha=0.15,
                           linewidth=0)
    return [line, band]


def _turning_point(steps, mean) -> tuple[int, str]:
    """The step where a mean curve is lowest, and what it does afterwards."""
    best = int(mean.argmin())
    if best == len(steps) - 1:
        return steps[best], tr("still falling at the last step")
    return steps[best], tr("lowest at step {step}, then rises", step=steps[best])


def _name(tie: bool) -> str:
    return tr("tied") if tie else tr("untied")


class _Curves:
    """The three panels for one amount of text (see :func:`learning_curves_figure`).

    The frame — axes, limits (fitted to both models' curves, which are always both drawn), labels, the middle
    and right titles — is the same for tied and untied. What the toggle changes is drawn once per value of
    ``tie`` in ``ties`` as a *layer* (the curves with that model thicker and first, the legends) and
    :meth:`show` makes one layer visible and sets the two titles that name the chosen model."""

    def __init__(self, runs, articles: int, ties):
        self.runs, self.articles = runs, articles
        self.figure, self.axes = new_figure(1, 3, size=(12.0, 4.2), margins=dict(
            left=0.06, right=0.99, wspace=0.3, top=0.76, bottom=0.13))
        select_ax, train_ax, right = self.axes
        self.curves, self.points, ends = {}, {}, {}
        for setting in (True, False):
            group = _select(runs, setting, articles)
            if group:                                   # perplexity = exp(loss), one row per seed
                self.curves[setting] = {key: torch.tensor([r[key] for r in group], dtype=torch.float64).exp()
                                        for key in ("select_curve", "train_curve")}
                self.points[setting] = _turning_point(group[0]["eval_steps"],
                                                      self.curves[setting]["select_curve"].mean(0))
                ends[_name(setting)] = float(self.curves[setting]["train_curve"].mean(0)[-1])
        self.layers = {tie: self._layer(tie) for tie in ties if tie in self.curves}
        select_ax.set_xlabel(tr("training step"))
        select_ax.set_ylabel(tr("selection-half perplexity"))
        # y=1.0 (where matplotlib puts it anyway) fixes the title's place: placed automatically, a title hidden
        # while a LiveFigure draws its background would be moved off the figure
        select_ax.set_title("", fontsize=9, y=1.0)
        train_ax.set_yscale("log")
        train_ax.yaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))   # 100, not 10²
        # label the minor ticks 20, 50, 200, 500 only: labelling all of them crowds the axis
        train_ax.yaxis.set_minor_formatter(FuncFormatter(lambda value, _: f"{value:g}" if f"{value:.0e}"[0] in "25"
                                                         else ""))
        train_ax.set_xlabel(tr("training step"))
        train_ax.set_ylabel(tr("training-batch perplexity (log scale)"))
        if len(ends) == 2:
            lower = tr("both end level") if len(set(ends.values())) == 1 else tr("{model} ends lower",
                                                                                 model=min(ends, key=ends.get))
            train_ax.set_title(tr("training batches (mean of each interval)\n{lower}", lower=lower), fontsize=9)
        else:
            train_ax.set_title(tr("training batches"), fontsize=9)
        right.axvline(articles, color="grey", linewidth=0.8, linestyle=":")
        right.set_xlabel(tr("training articles"))
        right.set_ylabel(tr("report-half perplexity"))
        right.set_title(tr("report half, mean over seeds\n(dotted line: the articles on the left)"), fontsize=9)
        self.suptitle = self.figure.suptitle("", fontsize=10, y=0.995)

    def _layer(self, tie: bool) -> list:
        """Both models' curves with ``tie``'s drawn thicker and first (its point is stated first), and the
        legends listing them in that order."""
        select_ax, train_ax, right = self.axes
        artists, handles = [], {select_ax: [], train_ax: [], right: []}
        for setting in (tie, not tie):
            if setting not in self.curves:
                continue
            steps = _select(self.runs, setting, self.articles)[0]["eval_steps"]
            width, colour, curves = 2.4 if setting == tie else 1.4, TIE_COLOURS[setting], self.curves[setting]
            select = _band(select_ax, steps, curves["select_curve"], colour, _name(setting), "-", width)
            lowest = select_ax.plot([self.points[setting][0]], [float(curves["select_curve"].mean(0).min())], "v",
                                    color=colour, markersize=9, markeredgecolor="black", markeredgewidth=0.6)
            train = _band(train_ax, steps, curves["train_curve"], colour, _name(setting), "--", width)
            artists += select + lowest + train
            handles[select_ax].append(select[0])
            handles[train_ax].append(train[0])
        knob = sorted({run["articles"] for run in self.runs})
        for setting in (True, False):
            for key, marker, style, label in (("final", "o", "-", N_("end of budget")),
                                              ("early", "s", ":", N_("early-stopped"))):
                means = [mean_and_spread(_ppl(r[key]["all"]) for r in _select(self.runs, setting, a))[0]
                         for a in knob]
                handles[right] += right.plot(knob, means, marker + style, color=TIE_COLOURS[setting],
                                             label=tr("{model}, {when}", model=_name(setting), when=tr(label)),
                                             linewidth=2.2 if setting == tie else 1.2)
        artists += handles[right]
        for ax, size in ((select_ax, 8), (train_ax, 8), (right, 7)):
            artists.append(ax.add_artist(Legend(ax, handles[ax], [h.get_label() for h in handles[ax]],
                                                fontsize=size)))
        return artists

    def show(self, tie: bool) -> dict:
        """Show the layer of ``tie`` and the titles naming it; returns the chosen model's numbers."""
        check_bool(tie, "tie")
        if tie not in self.layers:
            raise ValueError(tr("no {model} runs with {articles} articles", model=_name(tie), articles=self.articles))
        for setting, layer in self.layers.items():
            for artist in layer:
                artist.set_visible(setting == tie)
        chosen = _select(self.runs, tie, self.articles)
        self.axes[0].title.set_text(tr("{articles} articles, selection half (▼ lowest)\n", articles=self.articles)
                                    + "\n".join(tr("{model}: {point}", model=_name(setting), point=self.points[setting][1])
                                                for setting in (tie, not tie) if setting in self.points))
        self.suptitle.set_text(tr("Tied (blue) vs untied (orange), {articles} articles: mean over {seeds} "
                                  "seeds, bands min–max; {model} drawn thicker", articles=self.articles,
                                  seeds=len(chosen), model=_name(tie)))
        train, final, early = (mean_and_spread(_ppl(r[key]["all"]) for r in chosen)
                               for key in ("train", "final", "early"))
        return {
            N_("model"): _name(tie),
            N_("training articles"): self.articles,
            N_("parameters"): chosen[0]["parameters"],
            N_("train perplexity (mean)"): round(train[0], 1),
            N_("report perplexity, end of budget (mean)"): round(final[0], 1),
            N_("report perplexity, end of budget (sd)"): round(final[1], 1),
            N_("report perplexity, early-stopped (mean)"): round(early[0], 1),
        }

    def live(self) -> LiveFigure:
        """The figure as a :class:`LiveFigure` whose changing artists are the layers and the two titles, in the
        order a full drawing draws them (by z-order within each axes)."""
        live = LiveFigure(self.figure)
        changing = {id(a) for layer in self.layers.values() for a in layer} | {id(self.axes[0].title)}
        for ax in self.axes:
            live.changing([a for a in sorted(ax.get_children(), key=lambda a: a.get_zorder()) if id(a) in changing])
        live.changing(self.suptitle)
        return live


def _articles(runs, articles) -> int:
    knob = sorted({run["articles"] for run in runs})
    return knob[-1] if articles is None else check_choice(articles, "articles", knob)


def learning_curves_figure(runs, *, tie: bool = True, articles: int | None = None) -> PanelResult:
    """Three panels for one amount of text, tied (blue) and untied (orange) both drawn in full, the chosen
    model thicker. Left: selection-half perplexity during training on a linear axis fitted to those curves,
    each model's lowest point marked (mean over seeds, band min–max). Middle: the mean mini-batch perplexity
    of each interval (log axis). Right: report-half perplexity against the amount of text, at the end of the
    budget and at the early-stopping checkpoint."""
    runs = check_runs(runs)
    check_bool(tie, "tie")
    articles = _articles(runs, articles)
    if not _select(runs, tie, articles):
        raise ValueError(tr("no {model} runs with {articles} articles", model=_name(tie), articles=articles))
    curves = _Curves(runs, articles, ties=(tie,))
    return PanelResult(curves.figure, curves.show(tie))


def tying_panel(runs, *, tie: bool = True, articles: int | None = None) -> TiePanel:
    """Widget: toggle tying and the amount of training text; redraws the stored runs (no retraining).

    Each amount of text has its own figure (its left and middle axes are fitted to its curves), built and
    drawn in full the first time it is shown; a toggle then redraws only the curves, legends and titles."""
    runs = copy.deepcopy(check_runs(runs))            # the runs as they were: a figure once drawn keeps them
    articles = _articles(runs, articles)
    control = widgets.Dropdown(options=sorted({run["articles"] for run in runs}), value=articles,
                               description=tr("articles"))
    figures = {}                                       # articles → (_Curves, LiveFigure)

    def compute(tie, articles):
        if articles not in figures:
            curves = _Curves(runs, articles, ties=(True, False))
            figures[articles] = curves, curves.live()
        curves, live = figures[articles]
        numbers = curves.show(tie)
        return PanelResult(curves.figure, numbers, png=live.png())

    return TiePanel(compute, controls={"articles": control}, tie=tie,
                    title=N_("Tied vs untied: learning curves (stored runs, no retraining)"))


def gradient_counts_figure(input_fraction: torch.Tensor, output_fraction: torch.Tensor, counts: torch.Tensor,
                           steps: int):
    """Per word, ranked by training frequency: fraction of steps in which its input row and its output row
    received a non-zero gradient (rows never reached are drawn at the floor 0.5/steps)."""
    steps = check_positive_int(steps, "steps")
    for name, values in (("input_fraction", input_fraction), ("output_fraction", output_fraction),
                         ("counts", counts)):
        if not isinstance(values, torch.Tensor):
            raise TypeError(tr("{name} must be a 1-D tensor with one value per vocabulary id; got {type}", name=name,
                               type=type(values).__name__))
        if values.is_meta:
            raise ValueError(tr("{name} is a meta tensor (a shape without values); compute it on the CPU", name=name))
        if values.dim() != 1 or values.shape != counts.shape:
            raise ValueError(tr("{name} must be a 1-D tensor with one value per vocabulary id, like counts {shape}",
                                name=name, shape=tuple(getattr(counts, 'shape', ()))))
    if len(counts) < 3:
        raise ValueError(tr("counts must hold at least 3 ids (<unk>, <eos> and a word); got {count}", count=len(counts)))
    # values computed with autograd on (a tensor that requires grad) are drawn as the numbers they are
    input_fraction, output_fraction, counts = (t.detach() for t in (input_fraction, output_fraction, counts))
    fig, ax = new_figure(size=(7.0, 3.4), layout="constrained")
    words = torch.arange(2, len(counts))   # skip <unk> and <eos>
    order = words[torch.argsort(-counts[words], stable=True)]
    rank = torch.arange(1, len(order) + 1)
    ax.loglog(rank, input_fraction[order].double().clamp_min(0.5 / steps), ".", markersize=2,
              label=tr("input rows (untied embedding E)"), color="tab:green")
    ax.loglog(rank, output_fraction[order].double(), ".", markersize=2, label=tr("output rows (untied head O)"),
              color="tab:orange")
    ax.set_xlabel(tr("word frequency rank in the training text (1 = most frequent)"))
    ax.set_ylabel(tr("fraction of steps with a gradient"))
    ax.set_title(tr("Every output row gets a gradient at every step;\n"
                    "a rare word's input row in a few per cent of them"), fontsize=10)
    ax.legend(fontsize=8, loc="lower left", markerscale=5)
    return fig

