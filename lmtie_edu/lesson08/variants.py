"""Lesson 08 §7: the tied model's variants that the stored runs compare, and the training run that made them.

The lesson trains three models in its cells (§6). Why the tied one is worse is tested in §7 with more runs than
a lesson can afford, made by ``python -m tools.lesson08_runs`` from this module and stored in
``lesson08/stored_runs.json``. Each variant changes one thing of the lesson's tied model — an initialisation
or scaling used by a real tied model, the optimiser, the budget, or the shared matrix's geometry — and is trained
with the lesson's loop, settings and seeds. ``echo_share`` and ``mean_cosine`` are the package copies of the
lesson's cells (``tests/lesson08`` keeps them identical).
"""

from __future__ import annotations

import copy
import json
import math
from dataclasses import asdict, dataclass, field
from pathlib import Path

import torch
import torch.nn.functional as F
from torch import nn

from lmtie_edu.shared.language import N_, tr
from lmtie_edu.shared.models import count_parameters
from lmtie_edu.shared.seeding import seeded
from lmtie_edu.shared.spread import mean_and_spread

from .data import LessonData
from .model import TinyGPT

# The lesson's settings (its §1 cell): the stored runs use exactly these, unless a variant names another.
SETTINGS = {"vocab_size": 1000, "d_model": 32, "n_layers": 2, "n_heads": 2, "context": 16, "steps": 300,
            "batch_size": 16, "lr": 3e-3, "warmup": 30, "weight_decay": 0.1, "eval_every": 25, "patience": 4}
SEEDS = (0, 1, 2)
STORED = Path(__file__).with_name("stored_runs.json")


def echo_share(logits, inputs, unknown=0):
    """Share of positions, among those whose input is a known word, where the top next word is the input word."""
    known = inputs != unknown
    return (logits.argmax(-1) == inputs)[known].double().mean().item()


def mean_cosine(rows):
    """Mean cosine over all pairs of distinct rows: 0 for directions spread evenly, 1 when all point one way."""
    unit = F.normalize(rows, dim=1)
    total = unit.sum(0)                         # |sum of unit rows|² = n + the sum of all pairwise cosines
    n = len(rows)
    return (total @ total - n) / (n * (n - 1))


class VariantGPT(TinyGPT):
    """The lesson's TinyGPT with one of the changes below switched on (all off: the lesson's model, same draws).

    ``head_scale``: multiply the final hidden state before the head (T5 v1.0 ties and uses d^-1/2);
    ``head_bias``: a learned bias per word on the logits; ``residual_scaling``: GPT-2's std 0.02/sqrt(2L) for
    the projections that write into the residual stream; ``centred_input``: look words up in E minus its mean
    row (the head still uses E).
    """

    def __init__(self, *args, head_scale: float = 1.0, head_bias: bool = False, residual_scaling: bool = False,
                 centred_input: bool = False, **kwargs):
        super().__init__(*args, **kwargs)
        self.head_scale, self.centred_input = head_scale, centred_input
        self.bias = nn.Parameter(torch.zeros(args[0])) if head_bias else None
        if residual_scaling:
            for block in self.blocks:
                for projection in (block.attn.proj, block.mlp[2]):
                    nn.init.normal_(projection.weight, mean=0.0, std=0.02 / math.sqrt(2 * len(self.blocks)))

    def forward(self, ids):
        table = self.embedding.weight
        if self.centred_input:
            table = table - table.mean(0)
        x = F.embedding(ids, table) * self.scale + self.positions(torch.arange(ids.shape[1]))
        for block in self.blocks:
            x = block(x)
        logits = self.head(self.norm(x) * self.head_scale)
        return logits if self.bias is None else logits + self.bias


@dataclass(frozen=True)
class Variant:
    name: str                       # shown through tr(): N_() marks it
    tie: bool = True
    layers: int = 2
    model: dict = field(default_factory=dict)     # VariantGPT's keyword arguments
    lr: float = 3e-3
    steps: int = 300
    patience: int = 4
    decay_shared: bool = True       # the shared (or input) matrix in the weight-decay group, as in the lesson
    cone_penalty: float = 0.0       # Gao et al.'s remedy: add this times mean_cosine(E) to the loss


VARIANTS = (
    Variant(N_("untied"), tie=False),
    Variant(N_("tied")),
    Variant(N_("tied, deeper"), layers=4),    # the deepest tied model within the untied parameter count
    Variant(N_("tied, shared matrix not decayed"), decay_shared=False),
    Variant(N_("tied, learning rate × 2"), lr=6e-3),
    Variant(N_("tied, bias on the logits"), model={"head_bias": True}),
    Variant(N_("tied, GPT-2's 1/√(2L) residual init"), model={"residual_scaling": True}),
    Variant(N_("tied, T5: std 1 and d^-½ before the head"), model={"init_std": 1.0, "head_scale": 32 ** -0.5}),
    Variant(N_("tied, Gemma: × √d on the lookup, std d^-½"), model={"init_std": 32 ** -0.5,
                                                                    "scale_embedding": True}),
    Variant(N_("tied, std d^-½ alone"), model={"init_std": 32 ** -0.5}),
    Variant(N_("tied, × √d on the lookup alone"), model={"scale_embedding": True}),
    Variant(N_("tied, mean row removed from the lookup"), model={"centred_input": True}),
    Variant(N_("tied, cone penalty (Gao et al.)"), cone_penalty=1.0),
    Variant(N_("untied, 4× the steps"), tie=False, steps=1200, patience=8),
    Variant(N_("tied, 4× the steps"), steps=1200, patience=8),
    Variant(N_("tied, deeper, 4× the steps"), layers=4, steps=1200, patience=8),
)


def variant(name: str) -> Variant:
    for candidate in VARIANTS:
        if candidate.name == name:
            return candidate
    raise ValueError(tr("no variant named {name}; expected one of {names}", name=repr(name),
                        names=[v.name for v in VARIANTS]))


def _groups(model, v: Variant, weight_decay: float):
    shared = model.embedding.weight
    params = list(model.parameters())
    decay = [p for p in params if p.dim() >= 2 and (v.decay_shared or p is not shared)]
    rest = [p for p in params if not any(p is q for q in decay)]
    return [{"params": decay, "weight_decay": weight_decay}, {"params": rest, "weight_decay": 0.0}]


def train_run(v: Variant, seed: int, data: LessonData, *, reserved: int = 0, keep_model: bool = False) -> dict:
    """The lesson's training loop (§5) for one variant and seed; curves every ``eval_every`` steps.

    ``reserved``: that many more rows in the vocabulary matrix, ids the text never uses (as real tokenizers
    reserve ids for later); ``keep_model``: the run also holds the model at its chosen checkpoint."""
    s = SETTINGS
    layers = v.layers
    with seeded(seed):
        model = VariantGPT(s["vocab_size"] + reserved, s["d_model"], layers, s["n_heads"], s["context"], tie=v.tie,
                           **v.model)
    optimiser = torch.optim.AdamW(_groups(model, v, s["weight_decay"]), lr=v.lr, betas=(0.9, 0.95), fused=True)
    batches = torch.Generator().manual_seed(seed)
    offsets = torch.arange(s["context"])
    run = {"variant": v.name, "seed": seed, "layers": layers, "parameters": count_parameters(model),
           "eval_steps": [], "val_curve": [], "echo_curve": [], "cone_curve": [], "head_cone_curve": [],
           "val": math.inf}
    waited, best_state = 0, None
    for step in range(1, v.steps + 1):
        for group in optimiser.param_groups:
            group["lr"] = v.lr * min(1.0, step / s["warmup"]) * (0.1 + 0.45 * (1 + math.cos(math.pi * step / v.steps)))
        starts = torch.randint(len(data.train_ids) - s["context"], (s["batch_size"], 1), generator=batches)
        x, y = data.train_ids[starts + offsets], data.train_ids[starts + offsets + 1]
        loss = F.cross_entropy(model(x).flatten(0, 1), y.flatten())
        if v.cone_penalty:
            loss = loss + v.cone_penalty * mean_cosine(model.embedding.weight[2:])
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
        if step % s["eval_every"] == 0:
            with torch.no_grad():
                inputs, targets = data.validation
                logits = model(inputs)
                val = math.exp(F.cross_entropy(logits.flatten(0, 1), targets.flatten()).item())
                run["eval_steps"].append(step)
                run["val_curve"].append(val)
                run["echo_curve"].append(echo_share(logits, inputs))
                run["cone_curve"].append(mean_cosine(model.embedding.weight[2:]).item())
                run["head_cone_curve"].append(mean_cosine(model.head.weight[2:]).item())
            if val < run["val"]:
                run["val"], run["best_step"], waited = val, step, 0
                best_state = copy.deepcopy(model.state_dict())
            else:
                waited += 1
                if waited == v.patience:
                    break
    model.load_state_dict(best_state)
    with torch.no_grad():
        run["test"] = math.exp(F.cross_entropy(model(data.test[0]).flatten(0, 1), data.test[1].flatten()).item())
    if keep_model:
        run["model"] = model
    return run


def description() -> dict:
    """What made the stored runs: settings, seeds and every variant's fields (stored beside the runs)."""
    return {"settings": SETTINGS, "seeds": list(SEEDS), "variants": [asdict(v) for v in VARIANTS]}


def stored_runs() -> dict:
    """The runs that ``python -m tools.lesson08_runs`` made and stored with the package (nothing is trained)."""
    return json.loads(STORED.read_text(encoding="utf-8"))


def variant_table(stored: dict) -> list[dict]:
    """Per variant, over the stored seeds: test perplexity (mean, sd), its gap to the untied model trained for
    as many steps (per seed, and their mean), the shared matrix's final mean cosine, and the runs themselves."""
    by_name: dict[str, list[dict]] = {}
    for run in stored["runs"]:
        by_name.setdefault(run["variant"], []).append(run)
    untied_at = {variant(name).steps: group for name, group in by_name.items() if not variant(name).tie}
    rows = []
    for name, group in by_name.items():
        reference = untied_at[variant(name).steps]
        gaps = [run["test"] - ref["test"] for run, ref in zip(group, reference, strict=True)]
        test = mean_and_spread(run["test"] for run in group)
        rows.append({"variant": name, "label": tr(name), "test": test[0], "test_sd": test[1], "gaps": gaps,
                     "gap": mean_and_spread(gaps)[0], "cone": mean_and_spread(run["cone_curve"][-1] for run in group)[0],
                     "runs": group})
    return rows
