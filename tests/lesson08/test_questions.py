"""Lesson 08: each predict-first answer is what the lesson's evidence shows (recomputed here, or read from the
stored experiment table for the one that needs the training runs)."""

import json
import math
import re
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from lmtie_edu.lesson08 import questions
from lmtie_edu.lesson08.data import lesson_data
from lmtie_edu.lesson08.model import TinyGPT
from lmtie_edu.shared.models import count_parameters

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "08_tied_transformer.ipynb"


def test_share_removed():
    tied, untied = TinyGPT(1000, 32, 2, 2, 16, tie=True), TinyGPT(1000, 32, 2, 2, 16, tie=False)
    share = 100 * (count_parameters(untied) - count_parameters(tied)) / count_parameters(untied)
    assert questions.share_removed.is_right(share) and abs(share - questions.share_removed.right) < 0.01


def test_echo_at_std_one():
    data = lesson_data(1000, 16)
    torch.manual_seed(0)
    model = TinyGPT(1000, 32, 2, 2, 16, tie=True, init_std=1.0)
    inputs, targets = data.validation
    with torch.no_grad():
        logits = model(inputs)
    echoes = (logits.argmax(-1) == inputs).double().mean().item()
    assert echoes > 0.95 and questions.echo_at_std_one.right == "nearly all"
    assert F.cross_entropy(logits.flatten(0, 1), targets.flatten()).item() > 3 * math.log(1000)


def test_module_type_rule_puts_the_shared_matrix_in_both_groups():
    model = TinyGPT(50, 8, 1, 2, 4, tie=True)
    decay, no_decay = [], []
    for module in model.modules():
        for name, p in module.named_parameters(recurse=False):
            (decay if isinstance(module, nn.Linear) and name == "weight" else no_decay).append(p)
    shared = model.embedding.weight
    assert any(p is shared for p in decay) and any(p is shared for p in no_decay)
    assert questions.module_type_rule.right == "in both groups"
    with pytest.raises(ValueError, match="more than one parameter group"):
        torch.optim.AdamW([{"params": decay}, {"params": no_decay}])


def test_untied_copies_drift_apart_after_one_step():
    torch.manual_seed(0)
    source = TinyGPT(50, 8, 1, 2, 4, tie=True)
    gaps = {}
    for tie in (True, False):
        model = TinyGPT(50, 8, 1, 2, 4, tie=tie)
        model.load_state_dict(source.state_dict())
        optimiser = torch.optim.AdamW(model.parameters(), lr=5e-3)
        F.cross_entropy(model(torch.tensor([[1, 2, 3, 4]])).flatten(0, 1), torch.tensor([2, 3, 4, 5])).backward()
        optimiser.step()
        gaps[tie] = (model.head.weight - model.embedding.weight).abs().max().item()
    assert gaps[True] == 0.0 and gaps[False] > 0
    assert questions.untied_after_one_step.right.startswith("no")


def test_best_test_model_is_what_the_stored_table_shows():
    cells = json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"]
    text = next("".join(o.get("text", "")) for c in cells if c["cell_type"] == "code"
                for o in c.get("outputs", []) if "validation perplexity at the early-stopping" in "".join(o.get("text", "")))
    means = {name: float(m) for name, m in re.findall(r"^\s*(untied|tied|tied, deeper)\s+\d.*?±.*?(\d+\.\d) ±", text,
                                                       re.MULTILINE)}
    assert len(means) == 3, text
    best = min(means, key=means.get)
    wording = {"untied": "the untied model", "tied": "the tied model of the same width",
               "tied, deeper": "the deeper tied model at the untied budget"}
    assert questions.best_test_model.right == wording[best]
