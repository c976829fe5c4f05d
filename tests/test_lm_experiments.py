"""Lesson 06: the summaries (mean ± spread, perplexity) and the exercise checkers."""

import math
from collections import Counter

import pytest
import torch
import torch.nn.functional as F

from lmtie_edu import bench
from lmtie_edu.exercises import lesson06 as ex
from lmtie_edu.lm_experiments import mean_and_spread, perplexity

INF, NAN = math.inf, math.nan


# -- mean_and_spread ------------------------------------------------------------------------------------------
def test_mean_and_spread():
    assert mean_and_spread([1.0, 2.0, 3.0]) == (2.0, 1.0)
    assert mean_and_spread([5.0]) == (5.0, 0.0)
    assert mean_and_spread(x for x in (1, 3)) == (2.0, pytest.approx(math.sqrt(2)))
    assert mean_and_spread(torch.tensor([1.0, 2.0, 3.0])) == (2.0, 1.0)


@pytest.mark.parametrize("values, mean_is, spread_is", [
    ([INF, 1.0], INF, "nan"),            # a diverged run: the mean is infinite, not an AttributeError
    ([1.0, -INF], -INF, "nan"),
    ([INF, -INF], "nan", "nan"),
    ([NAN, 1.0], "nan", "nan"),
    ([INF, NAN], "nan", "nan"),
])
def test_mean_and_spread_keeps_diverged_runs_visible(values, mean_is, spread_is):
    mean, spread = mean_and_spread(values)
    assert (math.isnan(mean) if mean_is == "nan" else mean == mean_is)
    assert math.isnan(spread)


@pytest.mark.parametrize("values, error, message", [
    ([], ValueError, "at least one value"),
    (torch.tensor([]), ValueError, "at least one value"),
    ("1.0 2.0", TypeError, "values must be numbers"),
    (b"12", TypeError, "values must be numbers"),
    (None, TypeError, "iterable of numbers"),
    (5, TypeError, "iterable of numbers"),
    ([1.0, "2.0"], TypeError, "every value must be a real number"),
    ([True, 1.0], TypeError, "every value must be a real number"),
    ([1.0, None], TypeError, "every value must be a real number"),
    (torch.ones(2, 3), ValueError, "1-D tensor"),
    (torch.empty(3, device="meta"), ValueError, "meta tensor"),
])
def test_mean_and_spread_bad_input(values, error, message):
    with pytest.raises(error, match=message):
        mean_and_spread(values)


# -- perplexity ------------------------------------------------------------------------------------------------
def test_perplexity():
    assert perplexity(0.0) == 1.0
    assert math.isclose(perplexity(math.log(50)), 50.0)
    assert perplexity(2) == pytest.approx(math.exp(2))
    assert perplexity(torch.tensor(math.log(7.0))) == pytest.approx(7.0)
    assert perplexity(INF) == INF and perplexity(1000.0) == INF     # overflow is inf, not OverflowError


@pytest.mark.parametrize("value, error, message", [
    (-0.1, ValueError, ">= 0 nats"),
    (NAN, ValueError, ">= 0 nats"),
    (-INF, ValueError, ">= 0 nats"),
    ("2.3", TypeError, "must be a number"),
    (True, TypeError, "must be a number"),
    (None, TypeError, "must be a number"),
    ([1.0], TypeError, "must be a number"),
    (torch.ones(2), TypeError, "must be a number"),
    (torch.empty((), device="meta"), TypeError, "must be a number"),
])
def test_perplexity_bad_input(value, error, message):
    with pytest.raises(error, match=message):
        perplexity(value)


# -- the panel benchmark ---------------------------------------------------------------------------------------
def test_lesson06_toggle_benchmark_runs():
    (benchmark,) = [b for b in bench.registry() if b.name.startswith("06 ")]
    assert benchmark.budget_seconds == 0.150
    benchmark.setup()
    benchmark.run()


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
