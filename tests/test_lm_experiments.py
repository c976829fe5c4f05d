"""Lesson 06: the tied-vs-untied experiment runner, its summaries, the embedding analysis and the widget."""

import math
from collections import Counter

import pytest
import torch
import torch.nn.functional as F

from lmtie_edu import lm_experiments as lx
from lmtie_edu.corpus import SimilarityBenchmark, Vocabulary
from lmtie_edu.exercises import lesson06 as ex
from lmtie_edu.widgets import PanelResult

TINY = lx.ExperimentConfig(vocab_size=300, train_articles=(20, 60), seeds=(0, 1), steps=30, eval_every=10,
                           batch_size=32, train_eval_windows=256)


@pytest.fixture(scope="module")
def results():
    return lx.run_experiment(TINY, show_progress=False)


# -- configuration ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("changes, error, message", [
    ({"steps": 0}, ValueError, "steps must be an integer >= 1"),
    ({"d_model": 8.0}, TypeError, "d_model must be an integer"),
    ({"seeds": [0, 1]}, TypeError, "seeds must be a non-empty tuple"),
    ({"train_articles": ()}, TypeError, "train_articles must be a non-empty tuple"),
    ({"train_articles": (0,)}, ValueError, "each of train_articles must be an integer >= 1"),
    ({"lr": 3}, ValueError, "lr must be a float in"),
])
def test_config_rejects_bad_values(changes, error, message):
    with pytest.raises(error, match=message):
        lx.ExperimentConfig(**changes)


def test_bigger_config_is_bigger():
    default, bigger = lx.ExperimentConfig(), lx.ExperimentConfig().bigger()
    assert bigger.steps > default.steps and len(bigger.seeds) > len(default.seeds)
    assert bigger.train_articles == default.train_articles


def test_training_windows_are_nested_and_checked():
    data = lx.lesson_data(TINY.vocab_size, TINY.context)
    small, _ = lx.training_windows(data, 20, TINY.context)
    large, _ = lx.training_windows(data, 60, TINY.context)
    assert torch.equal(large[:len(small) - 5], small[:len(small) - 5])
    with pytest.raises(ValueError, match="at most 300"):
        lx.training_windows(data, 301, TINY.context)


# -- running ------------------------------------------------------------------------------------------------
def test_grid_has_every_run_and_is_cached(results):
    assert len(results.runs) == 2 * 2 * 2
    assert lx.run_experiment(TINY) is results


def test_tied_model_has_v_times_d_fewer_parameters(results):
    tied = results.run(tie=True, articles=20, seed=0)
    untied = results.run(tie=False, articles=20, seed=0)
    assert untied.parameters - tied.parameters == TINY.vocab_size * TINY.d_model
    assert torch.equal(tied.input_matrix, tied.output_matrix)
    assert not torch.equal(untied.input_matrix, untied.output_matrix)


def test_curves_and_final_losses(results):
    run = results.run(tie=False, articles=60, seed=1)
    assert run.curve_steps == [10, 20, 30]
    assert len(run.train_curve) == len(run.val_curve) == 3
    assert run.val_loss == run.val_curve[-1]
    assert math.isclose(run.val_ppl, math.exp(run.val_loss))
    assert run.val_curve[-1] < run.val_curve[0]          # it learns something in 30 steps


def test_same_seed_runs_are_reproducible(results):
    again = lx.run_one(TINY, tie=True, articles=20, seed=0)
    assert torch.equal(again.input_matrix, results.run(tie=True, articles=20, seed=0).input_matrix)


def test_run_one_rejects_bad_tie():
    with pytest.raises(TypeError, match="tie must be True or False"):
        lx.run_one(TINY, tie="yes", articles=20, seed=0)


def test_run_experiment_rejects_a_dict():
    with pytest.raises(TypeError, match="ExperimentConfig"):
        lx.run_experiment({"steps": 10})


def test_select_rejects_unknown_knob_value(results):
    with pytest.raises(ValueError, match=r"articles must be one of \[20, 60\]; got 75"):
        results.select(tie=True, articles=75)
    with pytest.raises(ValueError, match="seed must be one of"):
        results.run(tie=True, articles=20, seed=9)


# -- gradient counts (lesson 03 link) ---------------------------------------------------------------------------
def test_row_gradient_counter_counts_rows_per_step():
    model = lx.TinyLM(10, 4, context=2, tie=False)
    counter = lx.RowGradientCounter(10)
    inputs, targets = torch.tensor([[1, 2], [2, 3]]), torch.tensor([4, 4])
    F.cross_entropy(model(inputs), targets).backward()
    counter(model, inputs, targets)
    assert counter.input_steps.tolist() == [0, 1, 1, 1, 0, 0, 0, 0, 0, 0]
    assert counter.output_steps.tolist() == [1] * 10
    assert counter.target_counts.tolist() == [0, 0, 0, 0, 2, 0, 0, 0, 0, 0]


def test_update_counts_by_frequency(results):
    run = results.run(tie=False, articles=60, seed=0)
    counts = lx.train_counts(results, 60)
    rows = lx.update_counts_by_frequency(run, results.vocabulary, counts)
    assert all(row["output rows"] == 1.0 for row in rows)
    inputs = [row["input rows"] for row in rows]
    assert inputs == sorted(inputs) and inputs[-1] > inputs[0]     # frequent words are reached more often
    assert sum(row["words"] for row in rows) <= len(results.vocabulary) - 2


def test_update_counts_refuse_a_tied_run(results):
    with pytest.raises(ValueError, match="untied runs only"):
        lx.update_counts_by_frequency(results.run(tie=True, articles=60, seed=0), results.vocabulary,
                                      lx.train_counts(results, 60))


# -- summaries ----------------------------------------------------------------------------------------------
def test_mean_and_spread():
    assert lx.mean_and_spread([1.0, 2.0, 3.0]) == (2.0, 1.0)
    assert lx.mean_and_spread([5.0]) == (5.0, 0.0)
    with pytest.raises(ValueError, match="at least one value"):
        lx.mean_and_spread([])


def test_perplexity():
    assert lx.perplexity(0.0) == 1.0
    assert math.isclose(lx.perplexity(math.log(50)), 50.0)
    with pytest.raises(ValueError, match=">= 0 nats"):
        lx.perplexity(-0.1)
    with pytest.raises(TypeError, match="must be a number"):
        lx.perplexity("2.3")


def test_summary_rows_match_runs(results):
    rows = lx.summary_rows(results)
    assert len(rows) == 4
    row = next(r for r in rows if r["articles"] == 60 and not r["tied"])
    runs = results.select(tie=False, articles=60)
    assert math.isclose(row["val ppl"], sum(r.val_ppl for r in runs) / len(runs))
    assert row["seeds"] == 2 and row["parameters"] == runs[0].parameters


def test_paired_differences_sign(results):
    diffs = lx.paired_differences(results, 20)
    tied, untied = (results.run(tie=t, articles=20, seed=0) for t in (True, False))
    assert math.isclose(diffs["val"][0], untied.val_ppl - tied.val_ppl)


def test_printed_summary_has_one_line_per_setting(results, capsys):
    lx.print_summary(results)
    lx.print_paired_differences(results)
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 1 + 4 + 1 + 2 and "passes" in out[0]


# -- figures and the widget ----------------------------------------------------------------------------------
def test_learning_curves_figure_numbers(results):
    result = lx.learning_curves_figure(results, tie=False, articles=20)
    assert isinstance(result, PanelResult)
    assert result.numbers["model"] == "untied" and result.numbers["training articles"] == 20
    mean, _ = lx.mean_and_spread(r.val_ppl for r in results.select(tie=False, articles=20))
    assert math.isclose(result.numbers["val perplexity (mean)"], mean)


def test_learning_curves_figure_bad_input(results):
    with pytest.raises(TypeError, match="run_experiment"):
        lx.learning_curves_figure("results")
    with pytest.raises(TypeError, match="tie must be True or False"):
        lx.learning_curves_figure(results, tie=1)
    with pytest.raises(ValueError, match="articles must be one of"):
        lx.learning_curves_figure(results, articles=21)


def test_panel_toggles_without_retraining(results, monkeypatch):
    panel = lx.tying_panel(results)
    monkeypatch.setattr(lx, "run_one", lambda *a, **k: pytest.fail("the widget must not retrain"))
    first = panel.result.numbers["val perplexity (mean)"]
    panel.tie.value = False
    assert panel.result.numbers["model"] == "untied" and panel.result.numbers["val perplexity (mean)"] != first
    panel.set(tie=True, articles=20)
    assert panel.result.numbers["training articles"] == 20 and panel.redraws == 3


def test_panel_rejects_impossible_values(results):
    panel = lx.tying_panel(results)
    with pytest.raises(ValueError, match="articles must be one of"):
        panel.set(articles=75)
    with pytest.raises(TypeError, match="tie must be True or False"):
        panel.set(tie="no")
    with pytest.raises(ValueError, match="no control 'vocab'"):
        panel.set(vocab=10)
    with pytest.raises(ValueError, match="articles must be one of"):
        lx.tying_panel(results, articles=7)
    with pytest.raises(TypeError, match="run_experiment"):
        lx.tying_panel([])


def test_benchmarks_declare_the_toggle():
    (bench,) = lx.benchmarks()
    assert bench.name.startswith("06 ") and bench.budget_seconds == 0.150
    bench.setup()
    bench.run()


# -- embeddings as word vectors --------------------------------------------------------------------------------
@pytest.fixture
def toy():
    vocab = Vocabulary.from_tokens("cat cat dog dog car car tree tree".split())
    # rows: <unk>, <eos>, car, cat, dog, tree — cat/dog close, car/tree far from them
    matrix = torch.tensor([[0.0, 1.0], [1.0, 1.0], [1.0, -1.0], [1.0, 0.1], [1.0, 0.2], [-1.0, 0.0]])
    return vocab, matrix


def test_word_similarity_perfect_ranking(toy):
    vocab, matrix = toy
    benchmark = SimilarityBenchmark("toy", (("cat", "dog", 9.0), ("cat", "car", 4.0), ("cat", "tree", 1.0),
                                            ("cat", "zebra", 5.0)))
    score = lx.word_similarity(matrix, vocab, benchmark)
    assert score.spearman == pytest.approx(1.0) and (score.covered, score.total) == (3, 4)
    assert score.coverage == 0.75


def test_word_similarity_too_few_pairs_is_nan(toy):
    vocab, matrix = toy
    score = lx.word_similarity(matrix, vocab, SimilarityBenchmark("toy", (("cat", "dog", 9.0),)))
    assert math.isnan(score.spearman) and score.covered == 1


def test_word_similarity_bad_input(toy):
    vocab, matrix = toy
    with pytest.raises(ValueError, match=r"shape \(6, \*\)"):
        lx.word_similarity(matrix[:4], vocab, SimilarityBenchmark("toy", (("a", "b", 1.0),)))
    with pytest.raises(TypeError, match="SimilarityBenchmark"):
        lx.word_similarity(matrix, vocab, [("cat", "dog", 9.0)])


def test_nearest_neighbours(toy):
    vocab, matrix = toy
    assert [w for w, _ in lx.nearest_neighbours(matrix, vocab, "cat", k=2)] == ["dog", "car"]
    with pytest.raises(ValueError, match="not in the vocabulary"):
        lx.nearest_neighbours(matrix, vocab, "zebra")
    with pytest.raises(ValueError, match="k must be an integer >= 1"):
        lx.nearest_neighbours(matrix, vocab, "cat", k=0)


def test_structure_agreement_is_rotation_and_scale_invariant():
    a = torch.randn(40, 6, generator=torch.Generator().manual_seed(0))
    rotation, _ = torch.linalg.qr(torch.randn(6, 6, generator=torch.Generator().manual_seed(1)))
    assert lx.similarity_structure_agreement(a, 3.0 * a @ rotation, rows=30) == pytest.approx(1.0)
    b = torch.randn(40, 6, generator=torch.Generator().manual_seed(2))
    assert abs(lx.similarity_structure_agreement(a, b, rows=30)) < 0.3
    with pytest.raises(ValueError, match="shape"):
        lx.similarity_structure_agreement(a, b[:20])


def test_structure_agreement_table_uses_different_seeds(results):
    table = lx.structure_agreement_table(results, rows=50)
    assert len(table) == 6 and all(len(row["values"]) == 2 for row in table)
    same = lx.matrices_to_compare(results, 0)
    assert table[0]["values"][0] != pytest.approx(lx.similarity_structure_agreement(same["tied"], same["untied input"], 50))
    with pytest.raises(ValueError, match="at least 2 seeds"):
        lx.structure_agreement_table(lx.ExperimentResults(lx.ExperimentConfig(seeds=(0,)), []))


def test_similarity_table_rows(results):
    benchmark = SimilarityBenchmark("toy", (("the", "a", 9.0), ("the", "said", 2.0), ("a", "said", 1.0),
                                            ("of", "in", 7.0)))
    rows = lx.similarity_table(results, [benchmark])
    assert [r["matrix"] for r in rows] == ["untied input", "untied output", "tied"]
    assert all(r["covered"] == 4 and len(r["per seed"]) == 2 for r in rows)


# -- the augmented loss ------------------------------------------------------------------------------------------
def test_augmented_loss_is_zero_when_prediction_matches_soft_target():
    L = torch.randn(7, 3, generator=torch.Generator().manual_seed(3))
    targets = torch.tensor([1, 4])
    logits = L[targets] @ L.T
    assert lx.augmented_loss(logits, targets, L, temperature=2.0).item() == pytest.approx(0.0, abs=1e-6)
    assert lx.augmented_loss(torch.zeros(2, 7), targets, L).item() > 0.0


def test_augmented_loss_does_not_train_the_embedding_through_the_target():
    L = torch.randn(7, 3, requires_grad=True)
    logits = torch.randn(2, 7, requires_grad=True)
    lx.augmented_loss(logits, torch.tensor([0, 6]), L).backward()
    assert L.grad is None and logits.grad is not None


def test_augmented_loss_bad_input():
    with pytest.raises(ValueError, match="temperature must be a number > 0"):
        lx.augmented_loss(torch.zeros(2, 5), torch.tensor([0, 1]), torch.zeros(5, 3), temperature=0)
    with pytest.raises(ValueError, match=r"shape \(5, \*\)"):
        lx.augmented_loss(torch.zeros(2, 5), torch.tensor([0, 1]), torch.zeros(4, 3))
    with pytest.raises(ValueError, match="alpha must be a number >= 0"):
        lx.augmented_loss_hook(alpha=-1)


def test_augmented_hook_adds_gradient():
    torch.manual_seed(0)
    model = lx.TinyLM(12, 4, context=2, tie=False)
    inputs, targets = torch.tensor([[1, 2], [3, 4]]), torch.tensor([5, 6])
    F.cross_entropy(model(inputs), targets).backward()
    plain = model.head.weight.grad.clone()
    lx.augmented_loss_hook(alpha=1.0)(model, inputs, targets)
    assert not torch.allclose(model.head.weight.grad, plain)


def test_soft_targets_put_the_target_first(toy):
    vocab, matrix = toy
    top = lx.soft_targets(torch.eye(6) * 3, vocab, "cat", temperature=1.0, k=3)
    assert top[0][0] == "cat" and top[0][1] > 10 * top[1][1] and sum(p for _, p in top) < 1.0
    with pytest.raises(ValueError, match="temperature"):
        lx.soft_targets(matrix, vocab, "cat", temperature=-1.0)
    with pytest.raises(ValueError, match="not in the vocabulary"):
        lx.soft_targets(matrix, vocab, "zebra")


def test_run_augmented_trains_one_untied_model_per_seed():
    runs = lx.run_augmented(TINY, articles=20, show_progress=False)
    assert [r.seed for r in runs] == [0, 1] and not any(r.tie for r in runs)


# -- exercise checkers reject wrong answers ---------------------------------------------------------------------
def test_build_vocabulary_rejects_no_tie_break(capsys):
    def wrong(tokens, size):   # most_common keeps first-seen order for ties, not alphabetical
        counts = Counter(tokens)
        return ["<unk>", "<eos>"] + [w for w, c in counts.most_common() if c >= 2 and w != "<eos>"][:size - 2]

    assert not ex.build_vocabulary(wrong)
    assert capsys.readouterr().out.startswith("❌ build_vocabulary")


def test_build_vocabulary_rejects_singletons(capsys):
    def wrong(tokens, size):
        counts = Counter(t for t in tokens if t != "<eos>")
        return ["<unk>", "<eos>"] + sorted(counts, key=lambda w: (-counts[w], w))[:size - 2]

    assert not ex.build_vocabulary(wrong)
    assert "❌" in capsys.readouterr().out


def test_perplexity_rejects_exp_of_sum(capsys):
    def wrong(logits, targets):
        return torch.exp(F.cross_entropy(logits, targets, reduction="sum")).item()

    assert not ex.perplexity_from_logits(wrong)
    assert "❌ perplexity_from_logits" in capsys.readouterr().out


def test_cosine_neighbours_rejects_dot_product(capsys):
    def wrong(W, row, k):
        scores = W @ W[row]
        scores[row] = -float("inf")
        return torch.topk(scores, k).indices.tolist()

    assert not ex.cosine_neighbours(wrong)
    assert "❌ cosine_neighbours" in capsys.readouterr().out


def test_cosine_neighbours_rejects_including_the_row_itself(capsys):
    def wrong(W, row, k):
        return torch.topk(F.normalize(W, dim=1) @ F.normalize(W, dim=1)[row], k).indices.tolist()

    assert not ex.cosine_neighbours(wrong)
    capsys.readouterr()
