"""Lesson 06 — does tying help? Tied and untied word-level language models on real text.

One experiment = the same :class:`~lmtie_edu.models.TinyLM` trained tied and untied, for several
seeds, on several amounts of training text (the knob), with the same vocabulary, initialisation,
mini-batches and budget. Everything is trained once and cached in this module; the widget only
redraws cached curves. The analysis helpers compare the learned matrices as word embeddings
(word-similarity benchmarks, nearest neighbours) and count, per row, how often each matrix received
a gradient (the link to lesson 03).
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field, replace

import ipywidgets as widgets
import torch
import torch.nn.functional as F

from .corpus import Corpus, SimilarityBenchmark, Vocabulary, load_lee_corpus
from .models import TinyLM, count_parameters
from .plotting import new_figure
from .progress import Progress
from .training import RowGradientCounter, evaluate, make_windows, train
from .validation import check_bool, check_choice, check_matrix, check_number, check_positive_int
from .widgets import PanelResult, TiePanel


# -- configuration and data -----------------------------------------------------------------------------
@dataclass(frozen=True)
class ExperimentConfig:
    """Sizes of one tied-vs-untied experiment. ``train_articles`` is the knob: how many of the 300
    training articles the models see (the vocabulary is built from all 300, so validation perplexities
    are comparable across the knob)."""

    vocab_size: int = 2000
    train_articles: tuple[int, ...] = (75, 150, 300)
    seeds: tuple[int, ...] = (0, 1, 2)
    d_model: int = 32
    context: int = 3
    hidden: int = 64
    steps: int = 500
    batch_size: int = 128
    lr: float = 5e-3
    eval_every: int = 100
    train_eval_windows: int = 4096

    def __post_init__(self):
        for name in ("vocab_size", "d_model", "context", "hidden", "steps", "batch_size", "eval_every",
                     "train_eval_windows"):
            check_positive_int(getattr(self, name), name)
        for name in ("train_articles", "seeds"):
            values = getattr(self, name)
            if not isinstance(values, tuple) or not values:
                raise TypeError(f"{name} must be a non-empty tuple of integers; got {values!r}")
            for value in values:
                check_positive_int(value, f"each of {name}", minimum=0 if name == "seeds" else 1)
        if not isinstance(self.lr, float) or not 0 < self.lr < 1:
            raise ValueError(f"lr must be a float in (0, 1); got {self.lr!r}")

    def bigger(self) -> ExperimentConfig:
        """A longer run for a learner with a few minutes to spare (not the stored outputs)."""
        return replace(self, vocab_size=4000, d_model=64, hidden=128, steps=2000, seeds=(0, 1, 2, 3, 4), eval_every=250)


@dataclass
class LessonData:
    """The corpus cut into documents, the vocabulary, and validation windows."""

    corpus: Corpus
    vocabulary: Vocabulary
    train_documents: list[list[str]]
    val_inputs: torch.Tensor
    val_targets: torch.Tensor


def _documents(tokens) -> list[list[str]]:
    documents, current = [], []
    for token in tokens:
        current.append(token)
        if token == "<eos>":
            documents.append(current)
            current = []
    return documents


_DATA_CACHE: dict = {}


def lesson_data(vocab_size: int, context: int) -> LessonData:
    """Vocabulary of the ``vocab_size`` most frequent words of all training articles; validation windows."""
    key = (vocab_size, context)
    if key not in _DATA_CACHE:
        corpus = load_lee_corpus()
        vocabulary = Vocabulary.from_tokens(corpus.train_tokens, vocab_size)
        val_inputs, val_targets = make_windows(vocabulary.encode(corpus.val_tokens), context)
        _DATA_CACHE[key] = LessonData(corpus, vocabulary, _documents(corpus.train_tokens), val_inputs, val_targets)
    return _DATA_CACHE[key]


def training_windows(data: LessonData, articles: int, context: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Windows of the first ``articles`` training articles (a fixed, nested subset: 75 ⊂ 150 ⊂ 300)."""
    articles = check_positive_int(articles, "articles")
    if articles > len(data.train_documents):
        raise ValueError(f"articles must be at most {len(data.train_documents)}; got {articles}")
    stream = [token for document in data.train_documents[:articles] for token in document]
    return make_windows(data.vocabulary.encode(stream), context)


# -- one run ---------------------------------------------------------------------------------------------
@dataclass
class RunResult:
    tie: bool
    articles: int
    seed: int
    parameters: int
    train_tokens: int
    curve_steps: list[int]
    train_curve: list[float]      # mean mini-batch loss over each evaluation interval
    val_curve: list[float]        # validation loss at the end of each interval
    train_loss: float             # final loss on a fixed sample of training windows
    val_loss: float               # final loss on all validation windows
    input_matrix: torch.Tensor    # embedding.weight (V, d)
    output_matrix: torch.Tensor   # head.weight (V, d): the same tensor when tied
    input_grad_steps: torch.Tensor | None = None   # per row: steps with a non-zero input-path gradient
    output_grad_steps: torch.Tensor | None = None  # per row: steps with a non-zero output-path gradient
    target_counts: torch.Tensor | None = None      # per row: how often the word was a target in a batch
    extra: dict = field(default_factory=dict)

    @property
    def train_ppl(self) -> float:
        return math.exp(self.train_loss)

    @property
    def val_ppl(self) -> float:
        return math.exp(self.val_loss)


def _interval_means(values: list[float], ends: list[int]) -> list[float]:
    means, start = [], 0
    for end in ends:
        means.append(sum(values[start:end]) / (end - start))
        start = end
    return means


def run_one(config: ExperimentConfig, *, tie: bool, articles: int, seed: int, after_backward=None,
            show_progress: bool | None = False) -> RunResult:
    """Train one TinyLM. Tied and untied runs with the same seed share the initial embedding, the
    initial body and the mini-batch order (TinyLM draws the same numbers either way)."""
    check_bool(tie, "tie")
    data = lesson_data(config.vocab_size, config.context)
    inputs, targets = training_windows(data, articles, config.context)
    torch.manual_seed(seed)
    model = TinyLM(len(data.vocabulary), config.d_model, context=config.context, hidden=config.hidden, tie=tie)
    counter = None if tie else RowGradientCounter(len(data.vocabulary))
    hooks = [h for h in (counter, after_backward) if h is not None]

    def hook(model, batch_inputs, batch_targets):
        for h in hooks:
            h(model, batch_inputs, batch_targets)

    history = train(model, inputs, targets, steps=config.steps, batch_size=config.batch_size, lr=config.lr,
                    seed=seed, val=(data.val_inputs, data.val_targets), eval_every=config.eval_every,
                    description=f"{'tied' if tie else 'untied'}, seed {seed}", show_progress=show_progress,
                    after_backward=hook if hooks else None)
    sample = torch.randperm(len(targets), generator=torch.Generator().manual_seed(1234))[:config.train_eval_windows]
    return RunResult(
        tie=tie, articles=articles, seed=seed, parameters=count_parameters(model), train_tokens=len(targets),
        curve_steps=list(history.val_steps), train_curve=_interval_means(history.train_loss, history.val_steps),
        val_curve=list(history.val_loss), train_loss=evaluate(model, inputs[sample], targets[sample]),
        val_loss=history.val_loss[-1], input_matrix=model.embedding.weight.detach().clone(),
        output_matrix=model.head.weight.detach().clone(),
        input_grad_steps=None if counter is None else counter.input_steps,
        output_grad_steps=None if counter is None else counter.output_steps,
        target_counts=None if counter is None else counter.target_counts,
    )


# -- the whole grid, cached --------------------------------------------------------------------------------
@dataclass
class ExperimentResults:
    config: ExperimentConfig
    runs: list[RunResult]

    @property
    def vocabulary(self) -> Vocabulary:
        return lesson_data(self.config.vocab_size, self.config.context).vocabulary

    def select(self, *, tie: bool, articles: int) -> list[RunResult]:
        check_choice(articles, "articles", self.config.train_articles)
        return [run for run in self.runs if run.tie == tie and run.articles == articles]

    def run(self, *, tie: bool, articles: int, seed: int) -> RunResult:
        check_choice(seed, "seed", self.config.seeds)
        return next(run for run in self.select(tie=tie, articles=articles) if run.seed == seed)


_RESULTS_CACHE: dict[ExperimentConfig, ExperimentResults] = {}


def run_experiment(config: ExperimentConfig | None = None, *, show_progress: bool | None = None) -> ExperimentResults:
    """Train every (knob value × tied/untied × seed) model once; later calls return the cached results."""
    config = ExperimentConfig() if config is None else config
    if not isinstance(config, ExperimentConfig):
        raise TypeError(f"config must be an ExperimentConfig; got {type(config).__name__}")
    if config not in _RESULTS_CACHE:
        plan = [(articles, tie, seed) for articles in config.train_articles for tie in (True, False)
                for seed in config.seeds]
        bar = Progress(plan, f"{len(plan)} runs", show=show_progress)
        runs = []
        for articles, tie, seed in bar:
            bar.note(f"{articles} articles, {'tied' if tie else 'untied'}, seed {seed}")
            runs.append(run_one(config, tie=tie, articles=articles, seed=seed))
        bar.note(f"done: {len(plan)} runs")
        _RESULTS_CACHE[config] = ExperimentResults(config, runs)
    return _RESULTS_CACHE[config]


# -- summaries ---------------------------------------------------------------------------------------------
def mean_and_spread(values) -> tuple[float, float]:
    """Mean and sample standard deviation (0 for a single value)."""
    values = [float(v) for v in values]
    if not values:
        raise ValueError("mean_and_spread needs at least one value")
    return statistics.fmean(values), (statistics.stdev(values) if len(values) > 1 else 0.0)


def perplexity(mean_cross_entropy: float) -> float:
    """Perplexity = exp(mean cross-entropy in nats per token)."""
    if isinstance(mean_cross_entropy, bool) or not isinstance(mean_cross_entropy, (int, float)):
        raise TypeError(f"mean_cross_entropy must be a number (nats per token); got {mean_cross_entropy!r}")
    if not mean_cross_entropy >= 0:
        raise ValueError(f"mean cross-entropy must be >= 0 nats; got {mean_cross_entropy!r}")
    return math.exp(mean_cross_entropy)


def summary_rows(results: ExperimentResults) -> list[dict]:
    """One row per (knob value, tied/untied): parameters, train and validation perplexity (mean, sd)."""
    rows = []
    for articles in results.config.train_articles:
        for tie in (True, False):
            runs = results.select(tie=tie, articles=articles)
            train_mean, train_sd = mean_and_spread(r.train_ppl for r in runs)
            val_mean, val_sd = mean_and_spread(r.val_ppl for r in runs)
            rows.append({"articles": articles, "train tokens": runs[0].train_tokens, "tied": tie,
                         "parameters": runs[0].parameters, "train ppl": train_mean, "train sd": train_sd,
                         "val ppl": val_mean, "val sd": val_sd, "seeds": len(runs)})
    return rows


def print_summary(results: ExperimentResults) -> None:
    print(f"{'articles':>8} {'tokens':>7} {'passes':>6} {'model':>7} {'params':>8}  {'train ppl (mean ± sd)':>21}  "
          f"{'val ppl (mean ± sd)':>19}")
    seen = results.config.steps * results.config.batch_size
    for row in summary_rows(results):
        print(f"{row['articles']:>8} {row['train tokens']:>7} {seen / row['train tokens']:>6.1f} "
              f"{'tied' if row['tied'] else 'untied':>7} "
              f"{row['parameters']:>8}  {row['train ppl']:>12.2f} ± {row['train sd']:<6.2f}  "
              f"{row['val ppl']:>10.2f} ± {row['val sd']:<6.2f}")


def paired_differences(results: ExperimentResults, articles: int) -> dict:
    """Per seed, untied minus tied perplexity (same seed = same init and mini-batches): >0 means tying wins."""
    diffs = {"train": [], "val": []}
    for seed in results.config.seeds:
        tied, untied = (results.run(tie=t, articles=articles, seed=seed) for t in (True, False))
        diffs["train"].append(untied.train_ppl - tied.train_ppl)
        diffs["val"].append(untied.val_ppl - tied.val_ppl)
    return diffs


def print_paired_differences(results: ExperimentResults) -> None:
    print("untied − tied perplexity, per seed (positive = the tied model is lower)")
    for articles in results.config.train_articles:
        diffs = paired_differences(results, articles)
        mean, sd = mean_and_spread(diffs["val"])
        per_seed = ", ".join(f"{d:+.2f}" for d in diffs["val"])
        print(f"{articles:>4} articles  train: {', '.join(f'{d:+.2f}' for d in diffs['train'])}   "
              f"val: {per_seed}   (val mean {mean:+.2f} ± {sd:.2f}, tied lower in "
              f"{sum(d > 0 for d in diffs['val'])}/{len(diffs['val'])} seeds)")


# -- figures and the widget ----------------------------------------------------------------------------------
TIE_COLOURS = {True: "tab:blue", False: "tab:orange"}


def _band(ax, steps, curves, colour, label, style="-"):
    curves = torch.tensor(curves).exp()       # perplexity = exp(loss)
    mean, low, high = curves.mean(0), curves.min(0).values, curves.max(0).values
    ax.plot(steps, mean, style, color=colour, label=label)
    ax.fill_between(steps, low, high, color=colour, alpha=0.18, linewidth=0)


def learning_curves_figure(results: ExperimentResults, *, tie: bool = True, articles: int | None = None,
                           compare: bool = True) -> PanelResult:
    """Train (dashed) and validation (solid) perplexity of one setting: mean over seeds, band = min–max.

    With ``compare`` the other tying setting is drawn faintly for reference.
    """
    if not isinstance(results, ExperimentResults):
        raise TypeError(f"results must come from run_experiment(); got {type(results).__name__}")
    check_bool(tie, "tie")
    articles = results.config.train_articles[-1] if articles is None else articles
    chosen = results.select(tie=tie, articles=articles)
    fig, (ax_curves, ax_bars) = new_figure(1, 2, size=(9.0, 3.4), margins=dict(left=0.08, right=0.98, wspace=0.3))
    steps = chosen[0].curve_steps
    settings = [tie, not tie] if compare else [tie]
    for setting in settings:
        runs = chosen if setting == tie else results.select(tie=setting, articles=articles)
        name = "tied" if setting else "untied"
        alpha = 1.0 if setting == tie else 0.35
        for curve_name, style in (("train_curve", "--"), ("val_curve", "-")):
            lines_before = len(ax_curves.lines)
            _band(ax_curves, steps, [getattr(r, curve_name) for r in runs], TIE_COLOURS[setting],
                  f"{name} {'train' if curve_name == 'train_curve' else 'val'}", style)
            for line in ax_curves.lines[lines_before:]:
                line.set_alpha(alpha)
    ax_curves.set_xlabel("training step")
    ax_curves.set_ylabel("perplexity")
    ax_curves.set_title(f"{articles} training articles, {len(chosen)} seeds (band: min–max)", fontsize=10)
    ax_curves.legend(fontsize=7, ncol=2)
    # Final validation perplexity against the knob, both settings, so the toggle shows where we are.
    knob = list(results.config.train_articles)
    for setting in (True, False):
        means = [mean_and_spread(r.val_ppl for r in results.select(tie=setting, articles=a))[0] for a in knob]
        ax_bars.plot(knob, means, "o-", color=TIE_COLOURS[setting], label="tied" if setting else "untied",
                     linewidth=2.5 if setting == tie else 1.0)
    ax_bars.axvline(articles, color="grey", linewidth=0.8, linestyle=":")
    ax_bars.set_xlabel("training articles (the knob)")
    ax_bars.set_ylabel("final validation perplexity")
    ax_bars.set_title("mean over seeds", fontsize=10)
    ax_bars.legend(fontsize=8)
    train_mean, train_sd = mean_and_spread(r.train_ppl for r in chosen)
    val_mean, val_sd = mean_and_spread(r.val_ppl for r in chosen)
    gap = mean_and_spread(paired_differences(results, articles)["val"])
    return PanelResult(fig, {
        "model": "tied" if tie else "untied",
        "training articles": articles,
        "parameters": chosen[0].parameters,
        "train perplexity (mean)": train_mean,
        "train perplexity (sd)": train_sd,
        "val perplexity (mean)": val_mean,
        "val perplexity (sd)": val_sd,
        "untied − tied val perplexity (mean over seeds)": gap[0],
    })


def tying_panel(results: ExperimentResults, *, tie: bool = True, articles: int | None = None) -> TiePanel:
    """Widget: toggle tying and the amount of training text; redraws cached curves (no retraining)."""
    if not isinstance(results, ExperimentResults):
        raise TypeError(f"results must come from run_experiment(); got {type(results).__name__}")
    knob = list(results.config.train_articles)
    articles = knob[-1] if articles is None else check_choice(articles, "articles", knob)
    control = widgets.Dropdown(options=knob, value=articles, description="articles")
    return TiePanel(lambda tie, articles: learning_curves_figure(results, tie=tie, articles=articles),
                    controls={"articles": control}, tie=tie,
                    title="Tied vs untied: learning curves (cached runs, no retraining)")


# -- embeddings as word vectors ----------------------------------------------------------------------------
@dataclass(frozen=True)
class SimilarityScore:
    benchmark: str
    spearman: float
    covered: int
    total: int

    @property
    def coverage(self) -> float:
        return self.covered / self.total


def cosine_matrix(matrix: torch.Tensor) -> torch.Tensor:
    """Cosine similarity between every pair of rows."""
    check_matrix(matrix, "matrix")
    unit = F.normalize(matrix.double(), dim=1)
    return unit @ unit.T


def word_similarity(matrix: torch.Tensor, vocabulary: Vocabulary, benchmark: SimilarityBenchmark) -> SimilarityScore:
    """Spearman ρ between the cosine of two word vectors and the human score, over the pairs whose two words
    are both in the vocabulary (the coverage). NaN if fewer than 3 pairs are covered."""
    from scipy.stats import spearmanr

    check_matrix(matrix, "matrix", shape=(len(vocabulary), None))
    if not isinstance(benchmark, SimilarityBenchmark):
        raise TypeError(f"benchmark must be a SimilarityBenchmark (load_similarity_benchmark); got {type(benchmark).__name__}")
    unit = F.normalize(matrix.double(), dim=1)
    model_scores, human_scores = [], []
    for first, second, score in benchmark.pairs:
        if first in vocabulary and second in vocabulary:
            a, b = vocabulary.index[first], vocabulary.index[second]
            model_scores.append(float(unit[a] @ unit[b]))
            human_scores.append(score)
    rho = float(spearmanr(model_scores, human_scores).statistic) if len(model_scores) >= 3 else math.nan
    return SimilarityScore(benchmark.name, rho, len(model_scores), len(benchmark))


def nearest_neighbours(matrix: torch.Tensor, vocabulary: Vocabulary, word: str, k: int = 5) -> list[tuple[str, float]]:
    """The ``k`` words whose rows have the highest cosine with ``word``'s row (the word itself excluded)."""
    check_matrix(matrix, "matrix", shape=(len(vocabulary), None))
    k = check_positive_int(k, "k")
    if word not in vocabulary:
        raise ValueError(f"{word!r} is not in the vocabulary of {len(vocabulary)} words (it would be <unk>)")
    unit = F.normalize(matrix.double(), dim=1)
    scores = unit @ unit[vocabulary.index[word]]
    scores[vocabulary.index[word]] = -math.inf
    scores[:2] = -math.inf  # <unk> and <eos> are not words
    top = torch.topk(scores, k)
    return [(vocabulary.words[i], float(s)) for s, i in zip(top.values.tolist(), top.indices.tolist(), strict=True)]


def matrices_to_compare(results: ExperimentResults, seed: int, articles: int | None = None) -> dict[str, torch.Tensor]:
    """The three matrices of the lesson: untied input, untied output, tied."""
    articles = results.config.train_articles[-1] if articles is None else articles
    untied = results.run(tie=False, articles=articles, seed=seed)
    tied = results.run(tie=True, articles=articles, seed=seed)
    return {"untied input": untied.input_matrix, "untied output": untied.output_matrix, "tied": tied.input_matrix}


def similarity_table(results: ExperimentResults, benchmarks: list[SimilarityBenchmark],
                     articles: int | None = None) -> list[dict]:
    """Spearman ρ of each matrix on each benchmark, mean ± sd over seeds, with coverage."""
    rows = []
    vocabulary = results.vocabulary
    for benchmark in benchmarks:
        per_matrix: dict[str, list[SimilarityScore]] = {}
        for seed in results.config.seeds:
            for name, matrix in matrices_to_compare(results, seed, articles).items():
                per_matrix.setdefault(name, []).append(word_similarity(matrix, vocabulary, benchmark))
        for name, scores in per_matrix.items():
            mean, sd = mean_and_spread(s.spearman for s in scores)
            rows.append({"benchmark": benchmark.name, "matrix": name, "rho": mean, "sd": sd,
                         "per seed": [s.spearman for s in scores], "covered": scores[0].covered,
                         "total": scores[0].total})
    return rows


def print_similarity_table(rows: list[dict]) -> None:
    print(f"{'benchmark':<11} {'matrix':<14} {'Spearman ρ (mean ± sd)':>22}  {'per seed':<24} coverage")
    for row in rows:
        seeds = ", ".join(f"{r:+.3f}" for r in row["per seed"])
        print(f"{row['benchmark']:<11} {row['matrix']:<14} {row['rho']:>+13.3f} ± {row['sd']:.3f}   {seeds:<24} "
              f"{row['covered']}/{row['total']} pairs ({row['covered'] / row['total']:.1%})")


def similarity_structure_agreement(a: torch.Tensor, b: torch.Tensor, rows: int = 500) -> float:
    """Spearman ρ between the pairwise cosines of the first ``rows`` words in two matrices (rows 2.. skip
    the specials): do two matrices arrange the same words the same way, whatever their coordinates?"""
    from scipy.stats import spearmanr

    check_matrix(a, "a")
    check_matrix(b, "b", shape=(a.shape[0], None))
    rows = check_positive_int(rows, "rows", minimum=3)
    keep = slice(2, min(rows + 2, a.shape[0]))
    ca, cb = cosine_matrix(a[keep]), cosine_matrix(b[keep])
    upper = torch.triu_indices(len(ca), len(ca), offset=1)
    return float(spearmanr(ca[upper[0], upper[1]].numpy(), cb[upper[0], upper[1]].numpy()).statistic)


def structure_agreement_table(results: ExperimentResults, rows: int = 500, articles: int | None = None) -> list[dict]:
    """:func:`similarity_structure_agreement` for each pair of the three matrices, always between models of
    *different* seeds (seed s vs the next seed): same-seed tied and untied models start from the same
    embedding matrix, and a row that barely moved would agree with itself for that reason alone."""
    seeds = results.config.seeds
    if len(seeds) < 2:
        raise ValueError(f"structure agreement across seeds needs at least 2 seeds; got {list(seeds)}")
    table = []
    pairs = [("tied", "untied input"), ("tied", "untied output"), ("untied input", "untied output"),
             ("tied", "tied"), ("untied input", "untied input"), ("untied output", "untied output")]
    for first, second in pairs:
        values = []
        for i, seed in enumerate(seeds):
            other = seeds[(i + 1) % len(seeds)]
            values.append(similarity_structure_agreement(matrices_to_compare(results, seed, articles)[first],
                                                         matrices_to_compare(results, other, articles)[second], rows))
        table.append({"first": first, "second": second, "values": values})
    return table


# -- lesson 03 link: which rows receive gradient ---------------------------------------------------------------
FREQUENCY_BINS = ((1, 2), (2, 5), (5, 20), (20, 100), (100, 10**9))


def update_counts_by_frequency(run: RunResult, vocabulary: Vocabulary, train_counts: torch.Tensor) -> list[dict]:
    """Mean fraction of steps in which a row got a non-zero gradient, by the word's training frequency."""
    if run.input_grad_steps is None:
        raise ValueError("update counts are recorded for untied runs only (tied, both paths share one .grad)")
    check_matrix(run.input_matrix, "run.input_matrix", shape=(len(vocabulary), None))
    steps = run.curve_steps[-1]
    rows = []
    words = torch.arange(2, len(vocabulary))   # skip <unk> and <eos>
    for low, high in FREQUENCY_BINS:
        chosen = words[(train_counts[words] >= low) & (train_counts[words] < high)]
        if len(chosen) == 0:
            continue
        rows.append({"frequency": f"{low}–{high - 1}" if high < 10**9 else f"≥ {low}", "words": len(chosen),
                     "input rows": float(run.input_grad_steps[chosen].double().mean()) / steps,
                     "output rows": float(run.output_grad_steps[chosen].double().mean()) / steps})
    return rows


def train_counts(results: ExperimentResults, articles: int) -> torch.Tensor:
    """How often each vocabulary id occurs in the first ``articles`` training articles."""
    data = lesson_data(results.config.vocab_size, results.config.context)
    stream = [t for document in data.train_documents[:articles] for t in document]
    return torch.bincount(data.vocabulary.encode(stream), minlength=len(data.vocabulary))


def update_counts_figure(run: RunResult, counts: torch.Tensor):
    fig, ax = new_figure(size=(6.5, 3.2), layout="constrained")
    words = torch.arange(2, len(counts))
    steps = run.curve_steps[-1]
    order = words[torch.argsort(-counts[words], stable=True)]
    rank = torch.arange(1, len(order) + 1)
    ax.loglog(rank, (run.input_grad_steps[order].double() / steps).clamp_min(0.5 / steps), ".", markersize=2,
              label="input rows (untied embedding)", color="tab:green")
    ax.loglog(rank, run.output_grad_steps[order].double() / steps, ".", markersize=2,
              label="output rows (untied head)", color="tab:orange")
    ax.set_xlabel("word frequency rank in the training text")
    ax.set_ylabel("fraction of steps with a gradient")
    ax.set_title(f"untied model, seed {run.seed}: who gets updated (rows never reached drawn at the floor)",
                 fontsize=9)
    ax.legend(fontsize=8)
    return fig


# -- optional: Inan et al.'s augmented loss ----------------------------------------------------------------------
def augmented_loss(logits: torch.Tensor, targets: torch.Tensor, input_embedding: torch.Tensor, *,
                   temperature: float = 2.0) -> torch.Tensor:
    """KL(ỹ ‖ ŷ_τ) of Inan et al. (2017): the soft target ỹ = softmax(L u / τ) with u = L[target] spreads
    probability over words whose *input* vectors are close to the target's; ŷ_τ = softmax(logits / τ).
    The soft target is a constant (detached): it teaches the head, not the embedding."""
    check_matrix(input_embedding, "input_embedding", shape=(logits.shape[-1], None))
    check_number(temperature, "temperature", minimum=0, strict=True)
    with torch.no_grad():
        L = input_embedding.detach()
        soft_targets = F.softmax(L[targets] @ L.T / temperature, dim=-1)
    log_predicted = F.log_softmax(logits / temperature, dim=-1)
    return F.kl_div(log_predicted, soft_targets, reduction="batchmean")


def soft_targets(input_embedding: torch.Tensor, vocabulary: Vocabulary, word: str, *, temperature: float = 2.0,
                 k: int = 5) -> list[tuple[str, float]]:
    """The ``k`` most probable words of Inan et al.'s soft target ỹ for the target ``word``."""
    check_matrix(input_embedding, "input_embedding", shape=(len(vocabulary), None))
    if word not in vocabulary:
        raise ValueError(f"{word!r} is not in the vocabulary of {len(vocabulary)} words (it would be <unk>)")
    check_number(temperature, "temperature", minimum=0, strict=True)
    L = input_embedding.detach().double()
    probabilities = F.softmax(L @ L[vocabulary.index[word]] / temperature, dim=0)
    top = torch.topk(probabilities, check_positive_int(k, "k"))
    return [(vocabulary.words[i], float(p)) for p, i in zip(top.values.tolist(), top.indices.tolist(), strict=True)]


def run_augmented(config: ExperimentConfig, *, articles: int, alpha: float = 0.5, temperature: float = 2.0,
                  show_progress: bool | None = None) -> list[RunResult]:
    """Untied models trained with cross-entropy + α·KL(ỹ ‖ ŷ_τ), one per seed (about twice the cost of a run)."""
    hook = augmented_loss_hook(alpha, temperature)
    bar = Progress(list(config.seeds), "augmented", show=show_progress)
    return [run_one(config, tie=False, articles=articles, seed=seed, after_backward=hook) for seed in bar]


def augmented_loss_hook(alpha: float = 0.5, temperature: float = 2.0):
    """An ``after_backward`` hook for :func:`lmtie_edu.training.train` that adds α·KL(ỹ ‖ ŷ_τ) to the
    gradient (a second backward pass accumulates into ``.grad`` before the optimiser step)."""
    check_number(alpha, "alpha", minimum=0)

    def hook(model, inputs, targets):
        logits = model(inputs)
        (alpha * augmented_loss(logits, targets, model.embedding.weight, temperature=temperature)).backward()

    return hook


def benchmarks():
    """Redraw timing for `make bench`: the panel on a small cached grid (the redraw does not retrain)."""
    from .bench import toggle_benchmark

    small = ExperimentConfig(vocab_size=500, steps=50, eval_every=10, seeds=(0, 1), train_articles=(75, 300),
                             train_eval_windows=256)  # same figure, same number of curve points: cheap to train
    return [toggle_benchmark("06 tying panel: tie toggle (cached curves)",
                             lambda: tying_panel(run_experiment(small, show_progress=False)))]
