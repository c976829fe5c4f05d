"""Lesson 07 — weight tying in real code: the pitfalls of copying, optimisers, counting, saving, libraries.

Each helper here turns one engineering situation into something a cell can run and assert on:
which tying *method* really ties (``track_tying``, the panel), how many parameters a model has
depending on how you count (``parameter_counts``), what a checkpoint costs on disk
(``torch_checkpoint``, ``safetensors_checkpoint``), nanoGPT-style weight-decay groups
(``decay_groups``), untying for fine-tuning (``untie_for_finetuning``), a tiny Hugging Face model
built from a config (``tiny_gpt2``) and a compiled training step (``compiled_step_check``).
"""

from __future__ import annotations

import functools
import os
import tempfile
from collections.abc import Iterable, Mapping

import ipywidgets as widgets
import torch
import torch.nn.functional as F
from matplotlib.ticker import MaxNLocator
from torch import nn

from .models import TinyLM
from .plotting import new_figure
from .training import make_windows
from .tying import shares_parameter, shares_storage, tie, untie
from .validation import check_bool, check_choice, check_number, check_positive_int
from .widgets import PanelResult, TiePanel

METHODS = ("share", "copy", "new Parameter after optimiser")
# Which entries of the (V, d) matrices the panel follows: (token row, dimension).
TRACKED = ((1, 0), (4, 2), (7, 5))


# -- 1, 2: tying methods and what an optimiser does with them ----------------------------------------
def demo_data(vocab_size: int = 16, context: int = 2, length: int = 200, seed: int = 0):
    """A fixed random token stream cut into (inputs, targets) windows for a few optimiser steps."""
    vocab_size = check_positive_int(vocab_size, "vocab_size", minimum=2)
    generator = torch.Generator().manual_seed(seed)
    return make_windows(torch.randint(vocab_size, (length,), generator=generator), context)


def build_with_method(method: str, *, tie_weights: bool = True, vocab_size: int = 16, d_model: int = 8,
                      seed: int = 0, lr: float = 0.05) -> tuple[TinyLM, torch.optim.Optimizer]:
    """A TinyLM and its Adam optimiser, the head 'tied' to the embedding by ``method``.

    - ``"share"``: ``head.weight = embedding.weight`` *before* the optimiser is built — a real tie.
    - ``"copy"``: two Parameters, the head's values copied from the embedding (``copy_``) — equal
      at step 0, independent afterwards.
    - ``"new Parameter after optimiser"``: the optimiser is built first, then a *new*
      ``nn.Parameter`` is put into both modules — a real tie that the optimiser never sees.
    ``tie_weights=False`` ignores ``method``: two independently initialised matrices (the baseline).
    """
    check_choice(method, "method", METHODS)
    check_bool(tie_weights, "tie_weights")
    torch.manual_seed(seed)
    model = TinyLM(vocab_size, d_model, tie=tie_weights and method == "share")
    if tie_weights and method == "copy":
        with torch.no_grad():
            model.head.weight.copy_(model.embedding.weight)
    optimiser = torch.optim.Adam(model.parameters(), lr=lr)
    if tie_weights and method == "new Parameter after optimiser":
        shared = nn.Parameter(model.embedding.weight.detach().clone())
        model.embedding.weight = shared
        model.head.weight = shared
    return model, optimiser


def in_optimiser(parameter: torch.Tensor, optimiser: torch.optim.Optimizer) -> bool:
    """True if ``parameter`` (this very object) is in one of the optimiser's parameter groups."""
    return any(p is parameter for group in optimiser.param_groups for p in group["params"])


def track_tying(method: str, *, tie_weights: bool = True, steps: int = 10, seed: int = 0) -> dict:
    """Train a few Adam steps on a fixed batch; record the tracked entries of both matrices at every step.

    Returns ``embedding`` and ``head`` ((steps + 1, len(TRACKED)) tensors: the values of the tracked
    entries), ``max_difference`` (max |E − H| over the whole matrix, per step), ``moved`` (max |E − E₀|
    per step) and whether the two matrices are one Parameter / in the optimiser.
    """
    steps = check_positive_int(steps, "steps")
    model, optimiser = build_with_method(method, tie_weights=tie_weights, seed=seed)
    inputs, targets = demo_data(model.vocab_size, model.context, seed=seed)
    start = model.embedding.weight.detach().clone()
    rows, cols = zip(*TRACKED, strict=True)
    emb, head, difference, moved = [], [], [], []

    def record():
        e, h = model.embedding.weight.detach(), model.head.weight.detach()
        emb.append(e[list(rows), list(cols)].clone())
        head.append(h[list(rows), list(cols)].clone())
        difference.append((e - h).abs().max().item())
        moved.append((e - start).abs().max().item())

    record()
    for _ in range(steps):
        loss = F.cross_entropy(model(inputs), targets)
        optimiser.zero_grad(set_to_none=True)
        loss.backward()
        optimiser.step()
        record()
    return {
        "embedding": torch.stack(emb), "head": torch.stack(head),
        "max_difference": difference, "moved": moved,
        "one Parameter": shares_parameter(model.embedding.weight, model.head.weight),
        "embedding in optimiser": in_optimiser(model.embedding.weight, optimiser),
        "head in optimiser": in_optimiser(model.head.weight, optimiser),
    }


@functools.lru_cache(maxsize=64)
def _cached_track(method: str, tie_weights: bool, steps: int) -> dict:
    # A learner flips back and forth between the same few states: train each state once.
    return track_tying(method, tie_weights=tie_weights, steps=steps)


def tying_method_figure(tie: bool = True, method: str = "share", steps: int = 10) -> PanelResult:
    """The lesson 07 panel: tracked entries of E (solid) and H (dashed) over optimiser steps, and max |E − H|."""
    check_choice(method, "method", METHODS)
    check_bool(tie, "tie")
    steps = check_positive_int(steps, "steps")
    out = _cached_track(method, tie, steps)
    label = method if tie else "tie off: two independent matrices"
    fig, (left, right) = new_figure(1, 2, size=(8.6, 3.4))
    x = range(steps + 1)
    colours = ("tab:blue", "tab:orange", "tab:green")
    for k, (row, col) in enumerate(TRACKED):
        left.plot(x, out["embedding"][:, k], color=colours[k], lw=2.2, label=f"E[{row},{col}]")
        left.plot(x, out["head"][:, k], color=colours[k], lw=1.4, ls="--", marker=".", label=f"H[{row},{col}]")
    values = torch.cat([out["embedding"].flatten(), out["head"].flatten()])
    low, high = values.min().item(), values.max().item()
    span = max(high - low, 0.1)
    left.set_ylim(low - 0.08 * span, high + 0.45 * span)  # headroom: the legend sits above the lines
    left.set_title(f"{label}: E solid, H dashed", fontsize=9)
    left.set_xlabel("optimiser step")
    left.set_ylabel("weight value")
    left.legend(fontsize=6.5, ncol=3, loc="upper left")
    right.plot(x, out["max_difference"], color="tab:red", marker="o", ms=3, label="max |E − H|")
    right.plot(x, out["moved"], color="tab:gray", marker="s", ms=3, label="max |E − E₀| (did E move?)")
    right.set_title("do the matrices stay equal? do they train?", fontsize=9)
    right.set_xlabel("optimiser step")
    right.set_ylim(bottom=-0.02, top=max(0.1, max(out["max_difference"] + out["moved"])) * 1.3)
    right.legend(fontsize=7, loc="upper left")
    for ax in (left, right):
        # Few, whole-number ticks: text layout is most of a redraw's cost.
        ax.xaxis.set_major_locator(MaxNLocator(nbins=5, integer=True))
        ax.yaxis.set_major_locator(MaxNLocator(nbins=5))
    return PanelResult(fig, {
        "method": label,
        "one Parameter (E is H)": out["one Parameter"],
        "E in optimiser": out["embedding in optimiser"],
        "H in optimiser": out["head in optimiser"],
        "max |E − H| at step 0": out["max_difference"][0],
        f"max |E − H| after {steps} steps": out["max_difference"][-1],
        f"max |E − E₀| after {steps} steps": out["moved"][-1],
    })


def tying_method_panel(method: str = "share", steps: int = 10, tie: bool = True) -> TiePanel:
    """Widget: choose how the head is 'tied' and watch both matrices over a few Adam steps."""
    method_control = widgets.ToggleButtons(options=list(METHODS), value=method, description="method",
                                           style={"button_width": "auto"})
    steps_control = widgets.IntSlider(value=steps, min=1, max=40, description="steps", continuous_update=False)
    return TiePanel(tying_method_figure, controls={"method": method_control, "steps": steps_control}, tie=tie,
                    title="Share, copy, or tie after the optimiser: which one trains one matrix?")


# -- 3: counting -------------------------------------------------------------------------------------
def _tensor_key(tensor: torch.Tensor) -> tuple:
    """What makes two tensors the same numbers in memory: storage, offset, shape and strides."""
    if tensor.device.type == "meta":
        raise ValueError("meta tensors have no storage to compare; count them with model.parameters() instead")
    return (tensor.untyped_storage().data_ptr(), tensor.storage_offset(), tuple(tensor.shape), tensor.stride())


def count_unique_elements(tensors: Iterable[torch.Tensor]) -> int:
    """Elements of tensors counted once per distinct memory — right for tied and untied models alike,
    and for a loaded ``state_dict`` whose keys alias one storage."""
    if isinstance(tensors, (torch.Tensor, nn.Module, str)):
        raise TypeError(f"pass an iterable of tensors (e.g. state_dict().values()); got {type(tensors).__name__}")
    seen, total = set(), 0
    for tensor in tensors:
        if not isinstance(tensor, torch.Tensor):
            raise TypeError(f"every item must be a torch.Tensor; got {type(tensor).__name__}")
        key = _tensor_key(tensor)
        if key not in seen:
            seen.add(key)
            total += tensor.numel()
    return total


def parameter_counts(model: nn.Module) -> dict:
    """The same model counted four ways (a tied matrix appears once or twice depending on the way)."""
    if not isinstance(model, nn.Module):
        raise TypeError(f"model must be an nn.Module; got {type(model).__name__}")
    state = model.state_dict()
    return {
        "parameters()": sum(p.numel() for p in model.parameters()),
        "named_parameters(remove_duplicate=False)": sum(
            p.numel() for _, p in model.named_parameters(remove_duplicate=False)),
        "state_dict()": sum(t.numel() for t in state.values()),
        "state_dict(), each storage once": count_unique_elements(state.values()),
    }


# -- 4: saving and loading ---------------------------------------------------------------------------
def _check_state_dict(state_dict) -> Mapping:
    if not isinstance(state_dict, Mapping) or not all(isinstance(v, torch.Tensor) for v in state_dict.values()):
        raise TypeError(f"state_dict must be a mapping of names to tensors (model.state_dict()); "
                        f"got {type(state_dict).__name__}")
    return state_dict


def torch_checkpoint(state_dict) -> tuple[int, dict]:
    """``torch.save`` a state dict into a temporary folder; return (file size in bytes, what
    ``torch.load(..., weights_only=True)`` gives back). The file name is fixed, so the size is too."""
    _check_state_dict(state_dict)
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "checkpoint.pt")
        torch.save(state_dict, path)
        return os.path.getsize(path), torch.load(path, weights_only=True)


def safetensors_checkpoint(model: nn.Module) -> tuple[int, dict]:
    """``safetensors.torch.save_model`` (it drops the duplicate name of a shared tensor); return the
    file size in bytes and the tensors stored in the file (``load_file``)."""
    from safetensors.torch import load_file, save_model

    if not isinstance(model, nn.Module):
        raise TypeError(f"model must be an nn.Module; got {type(model).__name__}")
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "model.safetensors")
        save_model(model, path)
        return os.path.getsize(path), load_file(path)


def safetensors_save_file_error(state_dict) -> str | None:
    """Try ``safetensors.torch.save_file``; return None if it saved, else its refusal, shortened to
    its first sentence with the shared names sorted (the library prints a set, whose order varies)."""
    from safetensors.torch import save_file

    _check_state_dict(state_dict)
    with tempfile.TemporaryDirectory() as folder:
        try:
            save_file(dict(state_dict), os.path.join(folder, "model.safetensors"))
        except RuntimeError as error:
            first = " ".join(str(error).split()).split(": [")[0]
            groups = [sorted(names) for names in _shared_name_groups(state_dict)]
            return f"{first}: {groups}"
    return None


def _shared_name_groups(state_dict) -> list[list[str]]:
    groups: dict[int, list[str]] = {}
    for name, tensor in state_dict.items():
        groups.setdefault(tensor.untyped_storage().data_ptr(), []).append(name)
    return sorted(sorted(names) for names in groups.values() if len(names) > 1)


def load_untied_checkpoint_and_retie(model: TinyLM, tensors: Mapping) -> TinyLM:
    """Load a checkpoint that stores only ``embedding.weight`` into ``model`` and tie the head again
    (what ``save_pretrained``/``from_pretrained`` do with ``_tied_weights_keys``)."""
    if not isinstance(model, TinyLM):
        raise TypeError(f"model must be a TinyLM; got {type(model).__name__}")
    missing, unexpected = model.load_state_dict(dict(tensors), strict=False)
    if unexpected or set(missing) - {"head.weight"}:
        raise ValueError(f"checkpoint does not match the model: missing {sorted(missing)}, "
                         f"unexpected {sorted(unexpected)}")
    tie(model.head, model.embedding)
    return model


# -- 5: optimiser groups and weight decay ------------------------------------------------------------
def decay_groups(model: nn.Module, weight_decay: float = 0.1) -> list[dict]:
    """nanoGPT's rule: decay every parameter with ``dim >= 2`` (matrices, embeddings included), not
    biases or norms. ``model.parameters()`` yields a tied matrix once, so it lands in one group."""
    if not isinstance(model, nn.Module):
        raise TypeError(f"model must be an nn.Module; got {type(model).__name__}")
    check_number(weight_decay, "weight_decay", minimum=0)
    params = [p for p in model.parameters() if p.requires_grad]
    return [{"params": [p for p in params if p.dim() >= 2], "weight_decay": float(weight_decay)},
            {"params": [p for p in params if p.dim() < 2], "weight_decay": 0.0}]


# -- 6: untying for fine-tuning ----------------------------------------------------------------------
def untie_for_finetuning(model: TinyLM) -> dict:
    """Untie ``model`` in place (``tying.untie``) and report what changed: parameters, bytes in memory."""
    if not isinstance(model, TinyLM):
        raise TypeError(f"model must be a TinyLM; got {type(model).__name__}")
    if not model.tied:
        raise ValueError("the model is not tied: there is nothing to untie")

    def size():
        params = list(model.parameters())
        return sum(p.numel() for p in params), count_unique_elements(params) * model.embedding.weight.element_size()

    params_before, bytes_before = size()
    untie(model.head)
    params_after, bytes_after = size()
    return {"parameters before": params_before, "parameters after": params_after,
            "weight bytes before": bytes_before, "weight bytes after": bytes_after,
            "values still equal": torch.equal(model.head.weight, model.embedding.weight),
            "one Parameter": shares_parameter(model.head.weight, model.embedding.weight),
            "one storage": shares_storage(model.head.weight, model.embedding.weight)}


# -- 7: a tiny Hugging Face model built from a config (no download) ---------------------------------
def tiny_gpt2(*, vocab_size: int = 64, tie: bool = True, seed: int = 0):
    """A one-layer GPT-2 (d = 16) built from a ``GPT2Config`` — nothing is downloaded.

    The special-token ids are put inside the small vocabulary (GPT-2's default 50256 is not), so the
    config is valid and ``transformers`` has nothing to warn about.
    """
    from transformers import GPT2Config, GPT2LMHeadModel

    vocab_size = check_positive_int(vocab_size, "vocab_size", minimum=2)
    check_bool(tie, "tie")
    config = GPT2Config(vocab_size=vocab_size, n_positions=32, n_embd=16, n_layer=1, n_head=2,
                        bos_token_id=vocab_size - 1, eos_token_id=vocab_size - 1, tie_word_embeddings=tie)
    torch.manual_seed(seed)
    return GPT2LMHeadModel(config)


def gpt2_is_tied(model) -> bool:
    """One Parameter for GPT-2's token embedding (``transformer.wte``) and its ``lm_head``."""
    return shares_parameter(model.lm_head.weight, model.transformer.wte.weight)


# -- 10: torch.compile ------------------------------------------------------------------------------
class TiedBigram(nn.Module):
    """The smallest tied LM (logits = tanh(E[x]) Eᵀ): little for the compiler to do, so compiling is quick."""

    def __init__(self, vocab_size: int = 32, d_model: int = 8):
        super().__init__()
        self.embedding = nn.Embedding(check_positive_int(vocab_size, "vocab_size"), check_positive_int(d_model, "d_model"))
        self.head = nn.Linear(d_model, vocab_size, bias=False)
        tie(self.head, self.embedding)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return self.head(torch.tanh(self.embedding(ids)))


def compiled_step_check(backend: str = "aot_eager", steps: int = 3, seed: int = 0) -> dict:
    """Train two identical tied bigram models ``steps`` Adam steps, one eager and one through
    ``torch.compile(backend=backend)``; report whether the tie held and the weights agree."""
    check_choice(backend, "backend", ("eager", "aot_eager", "inductor"))
    steps = check_positive_int(steps, "steps")
    generator = torch.Generator().manual_seed(seed)
    ids = torch.randint(32, (64,), generator=generator)
    results = []
    for compiled in (False, True):
        torch.manual_seed(seed)
        model = TiedBigram()
        optimiser = torch.optim.Adam(model.parameters(), lr=0.05)
        run = torch.compile(model, backend=backend) if compiled else model
        for _ in range(steps):
            loss = F.cross_entropy(run(ids[:-1]), ids[1:])
            optimiser.zero_grad(set_to_none=True)
            loss.backward()
            optimiser.step()
        results.append((model, loss.item()))
    (eager, eager_loss), (compiled_model, compiled_loss) = results
    return {"tie holds after compiled steps": shares_parameter(compiled_model.head.weight,
                                                               compiled_model.embedding.weight),
            "max |compiled − eager| weight": (compiled_model.embedding.weight - eager.embedding.weight).abs().max().item(),
            "eager loss at last step": eager_loss, "compiled loss at last step": compiled_loss}


def benchmarks():
    """Redraw timings for `make bench` (see lmtie_edu.bench)."""
    from .bench import toggle_benchmark

    return [toggle_benchmark("07 tying-method panel: tie toggle", tying_method_panel)]
