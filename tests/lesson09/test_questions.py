"""Lesson 09: each predict-first answer is what the lesson's evidence shows, recomputed here (one seed of the
lesson's training, in float64 as in the lesson; the caller's default dtype is restored)."""

import pytest
import torch

from lmtie_edu.lesson08.data import lesson_data
from lmtie_edu.lesson08.variants import SETTINGS, train_run, variant
from lmtie_edu.lesson09 import questions
from lmtie_edu.lesson09.cycle import train_cycle

V, R = SETTINGS["vocab_size"], 100


@pytest.fixture(scope="module")
def models():
    dtype = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        data = lesson_data(V, SETTINGS["context"])
        trained = {tie: train_run(variant("tied" if tie else "untied"), 0, data, reserved=R, keep_model=True)["model"]
                   for tie in (True, False)}
        counts = torch.bincount(data.train_ids, minlength=V)
    finally:
        torch.set_default_dtype(dtype)
    return trained, counts


def test_never_seen_rows_of_the_tied_model_are_longer_than_the_frequent_ones(models):
    trained, counts = models
    frequent = torch.argsort(counts[2:], descending=True)[:100] + 2
    never = torch.arange(V, V + R)
    lengths = trained[True].embedding.weight.detach().norm(dim=1)
    assert lengths[never].mean() > 3 * lengths[frequent].mean()
    untied_lookup = trained[False].embedding.weight.detach().norm(dim=1)
    assert untied_lookup[never].mean() < untied_lookup[frequent].mean()  # the contrast the explanation draws
    assert questions.never_seen_rows_tied.right == "longer than the frequent words' rows"


def test_the_short_row_detector_ranks_the_never_seen_ids_last_in_the_tied_model(models):
    trained, _ = models
    held_out, words = torch.arange(V + 50, V + R), torch.arange(2, V)
    for tie, low, high in ((True, 0.0, 0.05), (False, 0.95, 1.0)):
        score = -trained[tie].embedding.weight.detach().norm(dim=1)
        diff = score[held_out][:, None] - score[words][None, :]
        auc = ((diff > 0).double().mean() + 0.5 * (diff == 0).double().mean()).item()
        assert low <= auc <= high, (tie, auc)
    assert questions.norm_detector_tied.right == "it ranks them last (AUC near 0)"


def test_the_tied_cycle_gives_next_and_previous_the_same_probability():
    run = train_cycle(tie=True)
    assert abs(run["next"] - run["previous"]) < 1e-9 and run["next"] < 0.5
    assert questions.cycle_tied_next.right == "the same as it gives the previous token"
