"""Lesson 08's figures and its panel (drawn from runs already made: a redraw never trains)."""

from __future__ import annotations

import math

import ipywidgets as widgets

from lmtie_edu.kit.live_figure import LiveFigure
from lmtie_edu.kit.panels import PanelResult, TiePanel
from lmtie_edu.kit.plotting import new_figure
from lmtie_edu.shared.language import N_, labelled_options, tr
from lmtie_edu.shared.spread import mean_and_spread
from lmtie_edu.shared.validation import check_bool, check_choice

BUDGETS = (N_("same width"), N_("same parameters"))  # values; tr(budget) is the label
RUN_KEYS = ("tie", "layers", "seed", "parameters", "eval_steps", "val_curve", "best_step", "val", "test")
COLOURS = {N_("tied"): "tab:blue", N_("untied"): "tab:orange", N_("tied, deeper"): "tab:green"}  # tr(name) is shown


# -- §3: the start of training ------------------------------------------------------------------------------
def initial_loss_figure(rows, log_v: float):
    """``rows``: (label, initial loss, share of positions whose top-ranked word is the input word) per setting."""
    rows = list(rows)
    if not rows or not all(len(row) == 3 for row in rows):
        raise ValueError(tr("rows must be (label, initial loss, share) triples, at least one"))
    if not isinstance(log_v, int | float) or not math.isfinite(log_v) or log_v <= 0:
        raise ValueError(tr("log_v must be ln V, a positive number; got {value}", value=repr(log_v)))
    fig, (left, right) = new_figure(1, 2, size=(9.0, 3.4), layout="constrained")
    labels = [row[0] for row in rows]
    y = range(len(rows))
    left.barh(y, [row[1] for row in rows], color="tab:blue")
    left.axvline(log_v, color="black", linestyle="--", linewidth=1, label=tr("ln V (a uniform guess)"))
    left.legend(fontsize=8, loc="lower right")
    left.set_yticks(list(y), labels, fontsize=8)
    left.invert_yaxis()
    left.set_xlabel(tr("cross-entropy at step 0 (nats per token)"))
    left.set_title(tr("Initial loss: std 1 starts far above ln V"), fontsize=10)
    right.barh(y, [100 * row[2] for row in rows], color="tab:purple")
    right.set_yticks(list(y), [""] * len(rows))
    right.invert_yaxis()
    right.set_xlim(0, 100)
    right.set_xlabel(tr("% of positions whose top word is the input word"))
    right.set_title(tr("Tied at the start: the input word scores highest"), fontsize=10)
    return fig


# -- §6: the experiment ---------------------------------------------------------------------------------------
def check_runs(runs) -> list[dict]:
    if not isinstance(runs, list | tuple) or not runs:
        raise ValueError(tr("runs must be a non-empty list of the lesson's run dicts"))
    for run in runs:
        if not isinstance(run, dict) or not all(key in run for key in RUN_KEYS):
            raise ValueError(tr("every run must be a dict with the keys {keys}", keys=list(RUN_KEYS)))
    tied_depths = sorted({run["layers"] for run in runs if run["tie"]})
    if not tied_depths or not any(not run["tie"] for run in runs):
        raise ValueError(tr("runs must hold tied and untied runs"))
    return list(runs)


def label(run_or_tie, layers=None, base=None) -> str:
    if isinstance(run_or_tie, dict):
        run_or_tie, layers, base = run_or_tie["tie"], run_or_tie["layers"], run_or_tie.get("base_layers")
    if not run_or_tie:
        return N_("untied")
    return N_("tied") if base is None or layers == base else N_("tied, deeper")


def _groups(runs) -> dict[str, list[dict]]:
    base = min(run["layers"] for run in runs if not run["tie"])
    out: dict[str, list[dict]] = {}
    for run in runs:
        out.setdefault(label(run["tie"], run["layers"], base), []).append(run)
    return out


def chosen_group(runs, tie: bool, budget: str) -> str:
    """Which configuration the toggles name: untied; tied at the same width (and depth); or tied at the untied
    model's parameter count (spending the saved V·d on depth)."""
    check_bool(tie, "tie")
    check_choice(budget, "budget", BUDGETS)
    if not tie:
        return "untied"
    return "tied" if budget == "same width" else "tied, deeper"


class _ExperimentFigure:
    """Every configuration drawn faintly once; the chosen one drawn bold on top (the only artists that change)."""

    def __init__(self, runs):
        self.groups = _groups(runs)
        fig, (left, right) = new_figure(1, 2, size=(9.0, 3.5), layout="constrained")
        self.figure, self.curves = fig, {}
        for name, group in self.groups.items():
            steps = group[0]["eval_steps"]
            n = min(len(run["val_curve"]) for run in group)   # early stopping may end a seed sooner
            columns = list(zip(*(run["val_curve"][:n] for run in group), strict=True))
            mean = [sum(values) / len(values) for values in columns]
            colour = COLOURS[name]
            left.plot(steps[:n], mean, color=colour, linewidth=1.0, alpha=0.45,
                      label=tr("{name} ({blocks} blocks, {parameters:,} params)", name=tr(name),
                               blocks=group[0]["layers"], parameters=group[0]["parameters"]))
            left.fill_between(steps[:n], [min(v) for v in columns], [max(v) for v in columns], color=colour,
                              alpha=0.12)
            self.curves[name] = (steps[:n], mean)
        left.set_xlabel(tr("training step"))
        left.set_ylabel(tr("validation perplexity"))
        left.set_ylim(top=min(1.6 * min(run["val"] for run in runs), left.get_ylim()[1]))
        left.legend(fontsize=7)
        left.set_title(tr("Validation perplexity during training (bands: min–max over seeds)"), fontsize=9)
        self.names = list(self.groups)
        for x, name in enumerate(self.names):
            tests = [run["test"] for run in self.groups[name]]
            right.scatter([x] * len(tests), tests, color=COLOURS[name], s=18, alpha=0.5, edgecolors="none", zorder=3)
            mean, _ = mean_and_spread(tests)
            right.plot([x - 0.25, x + 0.25], [mean, mean], color=COLOURS[name], linewidth=1)
        right.set_xticks(range(len(self.names)), [tr(name) for name in self.names], fontsize=8)
        right.set_xlim(-0.6, len(self.names) - 0.4)
        right.set_ylabel(tr("test perplexity (one dot per seed)"))
        right.set_title(tr("Test perplexity at each run's early-stopping checkpoint"), fontsize=9)
        means = {name: mean_and_spread(run["test"] for run in group)[0] for name, group in self.groups.items()}
        best = min(means, key=means.get)
        fig.suptitle(tr("Lowest mean test perplexity: {best} ({seeds} seeds, same number of steps)", best=tr(best),
                        seeds=len(group)), fontsize=10)
        self.live = LiveFigure(fig)   # the chosen configuration, drawn bold over the faint ones:
        (self.bold_curve,) = self.live.changing(left.plot([], [], linewidth=2.4, zorder=4))
        (self.bold_dots,) = self.live.changing(right.plot([], [], "o", markersize=7, markeredgecolor="black",
                                                          zorder=5))

    def draw(self, chosen: str) -> PanelResult:
        steps, mean = self.curves[chosen]
        group = self.groups[chosen]
        self.bold_curve.set_data(steps, mean)
        self.bold_curve.set_color(COLOURS[chosen])
        tests = [run["test"] for run in group]
        self.bold_dots.set_data([self.names.index(chosen)] * len(tests), tests)
        self.bold_dots.set_color(COLOURS[chosen])
        self.bold_dots.set_markeredgecolor("black")
        val, test = mean_and_spread(r["val"] for r in group), mean_and_spread(tests)
        return PanelResult(self.figure, {
            N_("model"): tr(chosen), N_("blocks"): group[0]["layers"], N_("parameters"): group[0]["parameters"],
            N_("seeds"): len(group),
            N_("validation perplexity"): f"{val[0]:.1f} ± {val[1]:.1f}",   # one decimal: trained numbers
            N_("test perplexity"): f"{test[0]:.1f} ± {test[1]:.1f}",
        }, png=self.live.png())


def experiment_figure(runs, tie: bool = True, budget: str = "same width") -> PanelResult:
    """The experiment's two plots with the configuration the toggles name drawn bold."""
    runs = check_runs(runs)
    chosen = chosen_group(runs, tie, budget)
    drawing = _ExperimentFigure(runs)
    if chosen not in drawing.groups:
        raise ValueError(tr("the runs hold no {model} model", model=repr(chosen)))
    return drawing.draw(chosen)


def experiment_panel(runs, *, tie: bool = True, budget: str = "same width") -> TiePanel:
    """Widget: the tie toggle and the budget choice, redrawn from the stored runs (no retraining)."""
    runs = check_runs(runs)
    check_choice(budget, "budget", BUDGETS)
    control = widgets.Dropdown(options=labelled_options(BUDGETS), value=budget, description=tr("tied budget"))
    drawing = _ExperimentFigure(runs)
    if any(chosen_group(runs, t, b) not in drawing.groups for t in (True, False) for b in BUDGETS):
        raise ValueError(tr("the runs must hold an untied model and tied models of two depths"))
    return TiePanel(lambda tie, budget: drawing.draw(chosen_group(runs, tie, budget)),
                    controls={"budget": control}, tie=tie,
                    title=N_("Tied vs untied, and a tied model that spends the saved V·d on depth (stored runs)"))


def diagnosis_figure(runs, unigram: float) -> object:
    """§7: the lesson's runs seen three ways over training — validation perplexity beside the unigram model's,
    the echo share, and the mean cosine between the rows of the lookup table (and of an untied head)."""
    runs = check_runs(runs)
    if not all(key in run for run in runs for key in ("echo_curve", "cone_curve", "head_cone_curve")):
        raise ValueError(tr("every run must hold echo_curve, cone_curve and head_cone_curve (the §5 loop records "
                            "them)"))
    if not isinstance(unigram, int | float) or not math.isfinite(unigram) or unigram <= 1:
        raise ValueError(tr("unigram must be a perplexity above 1; got {value}", value=repr(unigram)))
    fig, axes = new_figure(1, 3, size=(11.0, 3.3), layout="constrained")
    for name, group in _groups(runs).items():
        steps = group[0]["eval_steps"]
        n = min(len(run["val_curve"]) for run in group)
        for axis, key, style in ((axes[0], "val_curve", "-"), (axes[1], "echo_curve", "-"),
                                 (axes[2], "cone_curve", "-"), (axes[2], "head_cone_curve", ":")):
            if key == "head_cone_curve" and name != "untied":
                continue        # tied: the head's rows are the lookup's rows
            values = [sum(run[key][i] for run in group) / len(group) for i in range(n)]
            scale = 100 if key == "echo_curve" else 1
            label = tr("{name}, head rows", name=tr(name)) if key == "head_cone_curve" else tr(name)
            axis.plot(steps[:n], [scale * v for v in values], style, color=COLOURS[name], label=label)
    axes[0].axhline(unigram, color="black", linestyle="--", linewidth=1, label=tr("unigram model"))
    axes[0].set_ylim(top=min(1.6 * min(run["val"] for run in runs), axes[0].get_ylim()[1]))
    axes[0].set_ylabel(tr("validation perplexity"))
    axes[0].set_title(tr("The tied plateau is the unigram model"), fontsize=9)
    axes[1].set_ylim(-2, 100)
    axes[1].set_ylabel(tr("% of known-word positions"))
    axes[1].set_title(tr("Echo: the top next word is the input word"), fontsize=9)
    axes[2].set_ylim(-0.05, 1)
    axes[2].set_ylabel(tr("mean cosine between rows"))
    axes[2].set_title(tr("The lookup table's rows: a narrow cone when tied"), fontsize=9)
    for axis in axes:
        axis.set_xlabel(tr("training step"))
        axis.legend(fontsize=7)
    return fig


def example_runs(seeds=(0, 1, 2), steps=300, every=25) -> list[dict]:
    """Made-up runs shaped like the lesson's (for timing the panel and for tests; nothing is trained)."""
    runs = []
    for tie, layers, parameters, level in ((True, 2, 57984, 56.0), (False, 2, 89984, 50.0), (True, 4, 83392, 57.0)):
        for seed in seeds:
            eval_steps = list(range(every, steps + 1, every))
            curve = [level + 400.0 / (1 + step / 40) + seed for step in eval_steps]
            runs.append({"tie": tie, "layers": layers, "seed": seed, "parameters": parameters,
                         "eval_steps": eval_steps, "val_curve": curve, "best_step": eval_steps[-1],
                         "val": curve[-1], "test": curve[-1] - 8.0})
    return runs
