"""Checks for the lesson 08 exercises."""

from __future__ import annotations

import re

import torch

from lmtie_edu.kit.exercises import Mismatch, exercise, expect_equal, expect_type, hint
from lmtie_edu.shared.language import N_, tr
from lmtie_edu.shared.seeding import seeded

from . import mistakes, solutions
from .exercise_cases import checkpoint, models
from .model import TinyGPT

__all__ = ["hint", "linear_only_groups", "load_shared_checkpoint", "widest_tied"]  # the lesson calls ex.hint("name")


# -- exercise 1: decay Linear weights only, the shared matrix once, with the tables ---------------------------
def _difference(want: list[list[str]], have: list[list[str]]) -> str:
    parts = []
    for label, expected, got in zip((tr("decay group"), tr("no-decay group")), want, have, strict=True):
        missing, extra = sorted(set(expected) - set(got)), sorted(set(got) - set(expected))
        if missing:
            parts.append(tr("the {group} lacks {names}", group=label, names=missing))
        if extra:
            parts.append(tr("the {group} holds {names} that belong elsewhere", group=label, names=extra))
    return tr("; ").join(parts) or tr("the same names, but some listed more than once")


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _count(params, p) -> int:
    return sum(q is p for q in params)


@exercise(solutions.linear_only_groups,
          hints=[N_("Decide per Parameter object, not per module or per name: the shared matrix is one Parameter that "
                 "two modules hold (an nn.Embedding and an nn.Linear), and model.parameters() yields it once."),
                 N_("First collect which Parameters are weights of nn.Linear modules and which are weights of "
                 "nn.Embedding modules (compare by identity, e.g. with id()). Then go through model.parameters(): "
                 "decay a Parameter only if it is a Linear weight and not also a lookup table.")],
          mistakes={"in_both_groups": N_("the shared matrix is in both groups: sorting module by module, the "
                    "embedding gave it one verdict and the head another. AdamW refuses a Parameter in two groups "
                    "(\"some parameters appear in more than one parameter group\"). Decide once per Parameter."),
                    "listed_twice": N_("the shared matrix is listed twice in one group: once for each module that "
                    "holds it. It is one Parameter and must appear once (torch 2.13 warns that \"optimizer contains a "
                    "parameter group with duplicate parameters\" and that this will become an error)."),
                    "dim_rule": N_("you used §4's rule (decay every tensor with two or more dimensions): it decays the "
                    "position table and the shared matrix. This exercise asks for the other choice: only Linear "
                    "weights that are not lookup tables."),
                    "shared_decayed": N_("the shared matrix is in the decay group because it is the head's (Linear) "
                    "weight; but it is the embedding table too, and this choice keeps lookup tables undecayed."),
                    "compared_values": N_("you told the tables from the Linear weights by their values: this untied "
                    "head holds the same numbers as the embedding (as after loading a tied checkpoint), yet it is a "
                    "Parameter of its own, a Linear weight, and is decayed. Compare the objects (identity, id())."),
                    "decayed_vectors": N_("your decay group holds vectors (biases or LayerNorm gains): weight decay "
                    "would pull them toward zero for no benefit (a bias or a gain does not grow a model's capacity "
                    "the way a matrix does). Decay only the Linear weights."),
                    "head_left_undecayed": N_("you left the head's weight out of the decay group in the untied model "
                    "too. Untied, it is a Linear weight and no lookup table, so it is decayed; only when the head holds "
                    "the embedding's Parameter (tied) does it stay undecayed. Decide per Parameter, not per module."),
                    "other_key": N_("your groups give their weight decay under another key than \"weight_decay\": an "
                    "optimiser reads only the keys it knows, so each group would take the optimiser's default weight "
                    "decay. Name the key weight_decay."),
                    "top_level_only": N_("you looked at model.children(), the top-level modules only: the Linear "
                    "layers inside the blocks are missed. model.modules() goes through every module, nested ones "
                    "included."),
                    "swapped_groups": N_("your groups are in the other order: the decay group must come first and "
                    "the no-decay group second, each with its weight decay ([decay group, no-decay group])."),
                    "in_neither_group": N_("some of the model's Parameters are in neither group (the groups lack "
                    "them): an optimiser updates only the Parameters its groups hold, so those would never train. "
                    "Every Parameter goes into one group: the no-decay group holds all that are not decayed, lookup "
                    "tables included.")})
def linear_only_groups(answer, solution):
    cases = models()
    for what, model in cases:
        call = tr("linear_only_groups(model, 0.1) with {case}", case=tr(what))
        shared = model.embedding.weight
        tied = model.head.weight is shared
        got = answer(model, 0.1)
        expect_type(got, list, call)
        if len(got) != 2 or not all(isinstance(g, dict) and "params" in g for g in got):
            raise Mismatch(tr("{call} must return two groups, dicts with 'params' and 'weight_decay'", call=call),
                           tr("[decay group, no-decay group]"), tr("{count} item(s)", count=len(got)))
        decay, no_decay = (list(g["params"]) for g in got)
        if got[0].get("weight_decay") != 0.1 or got[1].get("weight_decay") != 0.0:
            other_key = "weight_decay" not in got[0] and "weight_decay" not in got[1] and any(
                _is_number(got[0][key]) and got[0][key] == 0.1 and _is_number(got[1].get(key)) and got[1][key] == 0.0
                for key in got[0] if key != "params")
            swapped = mistakes.swapped_groups(model, got, solution(model, 0.1))
            raise Mismatch(tr("{call}: the first group decays with weight_decay, the second with 0.0", call=call),
                           (0.1, 0.0), (got[0].get("weight_decay"), got[1].get("weight_decay")),
                           mistake="other_key" if other_key else "swapped_groups" if swapped else None)
        if tied and _count(decay, shared) and _count(no_decay, shared):
            raise Mismatch(tr("{call}: the shared matrix is in both groups", call=call), tr("in one group"), tr("in both"),
                           mistake="in_both_groups")
        if max(_count(decay, shared), _count(no_decay, shared)) > 1:
            raise Mismatch(tr("{call}: the shared matrix appears more than once", call=call), tr("once"),
                           tr("{count} times", count=max(_count(decay, shared), _count(no_decay, shared))),
                           mistake="listed_twice")
        expected = solution(model, 0.1)
        names = {id(p): name for name, p in model.named_parameters()}
        want = [sorted(names[id(p)] for p in g["params"]) for g in expected]
        have = [sorted(names.get(id(p), "<not a parameter of the model>") for p in g) for g in (decay, no_decay)]
        if have == want:
            continue
        if _count(decay, model.positions.weight) and (not tied or _count(decay, shared)):
            raise Mismatch(tr("{call}: the decay group holds other Parameters", call=call), want[0], have[0],
                           mistake="dim_rule")
        if tied and _count(decay, shared):
            raise Mismatch(tr("{call}: the shared matrix is decayed", call=call), want[0], have[0],
                           mistake="shared_decayed")
        if any(p.dim() == 1 for p in decay):
            raise Mismatch(tr("{call}: the decay group holds vectors", call=call), want[0], have[0],
                           mistake="decayed_vectors")
        if not tied and _count(no_decay, model.head.weight) and torch.equal(model.head.weight, shared):
            raise Mismatch(tr("{call}: the head's weight is not decayed", call=call), want[0], have[0],
                           mistake="compared_values")
        if not tied and have == [sorted(set(want[0]) - {"head.weight"}), sorted([*want[1], "head.weight"])]:
            raise Mismatch(tr("{call}: the head's weight is not decayed", call=call), want[0], have[0],
                           mistake="head_left_undecayed")
        if have == mistakes.top_level_groups(model, names):
            raise Mismatch(tr("{call}: the groups hold other Parameters than expected (by name)", call=call),
                           where=_difference(want, have), mistake="top_level_only")
        raise Mismatch(tr("{call}: the groups hold other Parameters than expected (by name)", call=call),
                       where=_difference(want, have),
                       mistake="in_neither_group" if mistakes.in_neither_group(model, decay, no_decay) else None)
    return len(cases)


# -- exercise 2: load a checkpoint that holds the shared matrix once -------------------------------------------
def _missing_head(error: BaseException) -> str | None:
    text = str(error)
    if "head.weight" in text and "Missing" in text:
        return "missing_head_key"
    shapes = re.search(r"size mismatch for head\.weight: copying a param with shape torch\.Size\(\[(\d+), (\d+)\]\) from "
                       r"checkpoint, the shape in current model is torch\.Size\(\[(\d+), (\d+)\]\)", text)
    if shapes and shapes.group(1, 2) == shapes.group(4, 3) and shapes.group(1) != shapes.group(2):
        return "transposed_head"
    return None


@exercise(solutions.load_shared_checkpoint,
          hints=[N_("The file holds every key of the state dict but one: the head's, because save_model keeps one name "
                 "for a matrix two names share. load_state_dict copies values into the model's own Parameters; "
                 "it needs a value for every key the model has."),
                 N_("Give the missing key the stored matrix (the head's values are the embedding's), then load "
                 "strictly. A tied model copies into its one Parameter; an untied one fills two.")],
          mistakes={"missing_head_key": N_("load_state_dict (strict, the default) refuses a checkpoint without "
                    "\"head.weight\": the model has that key (tied or not). Supply it — its values are the stored "
                    "embedding matrix."),
                    "head_left_random": N_("the untied model's head kept its random initial values: loading with "
                    "strict=False skipped the missing key silently. Its values are the stored embedding matrix."),
                    "tied_the_untied": N_("the untied model came back tied (its head is now its embedding Parameter): "
                    "the task is to load values, not to change the model's architecture."),
                    "broke_the_tie": N_("the tied model came back untied: assigning new Parameters (or tensors) to the "
                    "embedding replaces the object that the head still holds. Copy values into the model's "
                    "existing Parameters (load_state_dict does)."),
                    "transposed_head": N_("you gave head.weight the transposed matrix: nn.Linear stores its weight as "
                    "(out_features, in_features) = (V, d), the shape of the embedding table, so the head's value is "
                    "the stored embedding matrix as it is."),
                    "returned_load_result": N_("you returned what load_state_dict returns (its report of missing and "
                    "unexpected keys). It loads in place, into the model's own Parameters: return the model "
                    "itself.")},
          on_error=_missing_head)
def load_shared_checkpoint(answer, solution):
    stored = checkpoint()
    cases = 0
    for tie in (True, False):
        what = tr("a fresh tied TinyGPT (V=50, d=8, 2 blocks)") if tie else tr("a fresh untied TinyGPT (V=50, d=8, 2 blocks)")
        with seeded(2):
            model = TinyGPT(50, 8, 2, 2, 4, tie=tie)
        head_before = model.head.weight.detach().clone()
        got = answer(model, {key: value.clone() for key, value in stored.items()})
        call = tr("load_shared_checkpoint(model, tensors) with {case}", case=what)
        if got is not model:
            raise Mismatch(tr("{call} must return the model it was given (loaded in place)", call=call),
                           tr("the same model object"), type(got).__name__,
                           mistake="returned_load_result" if hasattr(got, "missing_keys")
                           and hasattr(got, "unexpected_keys") else None)
        head, embedding = model.head.weight, model.embedding.weight
        if tie and head is not embedding:
            raise Mismatch(tr("{call}: the tied model is no longer tied", call=call), tr("head is embedding"),
                           tr("two Parameters"), mistake="broke_the_tie")
        if not tie and head is embedding:
            raise Mismatch(tr("{call}: the untied model came back tied", call=call), tr("two Parameters"), tr("one"),
                           mistake="tied_the_untied")
        if not tie and torch.equal(head.detach(), head_before):
            raise Mismatch(tr("{call}: the head was not loaded", call=call), tr("the stored matrix"),
                           tr("its random initial values"), mistake="head_left_random")
        for key, value in stored.items():
            now = model.state_dict()[key]
            if not torch.equal(now, value):
                raise Mismatch(tr("{call}: {key} does not hold the stored values", call=call, key=key),
                               tr("equal to the file"), tr("different"))
        if not torch.equal(head.detach(), stored["embedding.weight"]):
            raise Mismatch(tr("{call}: head.weight does not hold the stored matrix", call=call),
                           tr("equal to embedding.weight"), tr("different"))
        if not tie and head.untyped_storage().data_ptr() == embedding.untyped_storage().data_ptr():
            raise Mismatch(tr("{call}: the untied model's head and embedding read one memory", call=call),
                           tr("two storages"), tr("one"))
        cases += 1
    return cases


# -- exercise 3: the widest tied model within the untied budget -------------------------------------------------
def _size(vocab_size, d, n_layers, n_heads, context, tie) -> int:
    with torch.device("meta"):
        model = TinyGPT(vocab_size, d, n_layers, n_heads, context, tie=tie)
    return sum(p.numel() for p in model.parameters())


# The last two are tight enough that leaving out the position table (or, in the fifth, the final LayerNorm)
# changes the answer.
WIDTH_CASES = [(1000, 32, 2, 2, 16), (2000, 64, 2, 4, 32), (500, 24, 4, 3, 8), (30, 16, 3, 4, 8),
               (314, 32, 1, 1, 256), (125, 16, 2, 2, 32)]


def _size_without_positions(vocab_size, d, n_layers, n_heads, context, tie) -> int:
    """A count that leaves out the position table."""
    return _size(vocab_size, d, n_layers, n_heads, context, tie) - context * d


def _widest(vocab_size, d_model, n_layers, n_heads, context, step, count=_size, strict=False) -> int:
    budget = count(vocab_size, d_model, n_layers, n_heads, context, False)
    d = step
    while True:
        size = count(vocab_size, d + step, n_layers, n_heads, context, True)
        if size > budget or (strict and size == budget):
            return d
        d += step


@exercise(solutions.widest_tied,
          hints=[N_("Count both models the way parameters() counts them (the shared matrix once). The budget is the "
                 "untied model at width d_model; the tied model may be wider, as long as it does not exceed it."),
                 N_("Write the parameter count as a function of d (tied or not) — or build the models on the meta "
                 "device and count — then try d = n_heads, 2·n_heads, … and keep the last one within budget.")],
          mistakes={"counted_tie_twice": N_("your width is d_model itself: your count makes the tied model as large as "
                    "the untied one, so no width is freed. Either the tied matrix was counted twice (as state_dict() "
                    "lists it; parameters() counts it once), or the budget was the tied model's own size (the budget "
                    "is the untied model's)."),
                    "ignored_heads": N_("your width does not split evenly into the heads (d must be a multiple of "
                    "n_heads, or the attention cannot reshape it)."),
                    "over_budget": N_("your width is one step too wide: its tied model has more parameters than the "
                    "untied budget. (A count that leaves out a small part of the model, such as the final "
                    "LayerNorm's 2·d numbers, or adds to the untied budget a part TinyGPT does not have, such as a "
                    "head bias, ends here too.)"),
                    "doubled": N_("twice the width is not what V·d buys: widening also grows every block (its matrices "
                    "grow with d², not d), so the budget runs out sooner."),
                    "no_positions": N_("your count leaves out the position table (context × d numbers): it grows "
                    "with d like everything else, so without it the tied model looks smaller than it is and your "
                    "width is too wide."),
                    "step_of_head_size": N_("you stepped the width by the head size (d_model // n_heads) instead of by "
                    "n_heads: the widths that split evenly into n_heads heads are the multiples of n_heads, so you "
                    "skip most of them and stop below the widest one."),
                    "attention_only_block": N_("your count of a block holds its attention only (qkv and the output "
                    "projection, 4·d² + 4·d, with or without its LayerNorm): the MLP (d → 4·d → d, 8·d² + 5·d with "
                    "its biases) and both LayerNorms are in every block too, 12·d² + 13·d in all."),
                    "mlp_as_wide_as_the_model": N_("your count gives the MLP a hidden layer of d units: TinyGPT's MLP "
                    "widens to 4·d (d → 4·d → d, 8·d² + 5·d numbers with its biases), so a block is 12·d² + 13·d."),
                    "one_block": N_("you counted one block, whatever n_layers is: every one of the n_layers blocks "
                    "has its own 12·d² + 13·d parameters, and all of them grow with the width.")})
def widest_tied(answer, solution):
    for vocab_size, d_model, n_layers, n_heads, context in WIDTH_CASES:
        args = (vocab_size, d_model, n_layers, n_heads, context)
        call = f"widest_tied{args}"
        expected = solution(*args)
        assert expected == _widest(*args, step=n_heads), "reference solution and model count disagree"
        wrong = {"counted_tie_twice": d_model, "over_budget": expected + n_heads, "doubled": 2 * d_model}
        one = _widest(*args, step=1)
        if one != expected:
            wrong["ignored_heads"] = one
        without = _widest(*args, step=n_heads, count=_size_without_positions)
        if without != expected and without not in wrong.values():
            wrong["no_positions"] = without
        got = answer(*args)
        expect_type(got, int, call)
        for key, model in mistakes.WIDTH_MISTAKES.items():  # a count of its own, if the answer gives it everywhere
            if got != expected and got == model(*args) and mistakes.always_gives(answer, WIDTH_CASES, model):
                raise Mismatch(tr("{what}: wrong value", what=call), expected, got, mistake=key)
        if got == d_model != expected and answer(*WIDTH_CASES[1]) != WIDTH_CASES[1][1]:
            del wrong["counted_tie_twice"]  # d_model here for another reason (e.g. a step of the head size)
        if got != expected and got not in wrong.values() and got == _widest(*args, step=d_model // n_heads):
            if all(answer(*case) == _widest(*case, step=case[1] // case[3]) for case in WIDTH_CASES):
                raise Mismatch(tr("{what}: wrong value", what=call), expected, got, mistake="step_of_head_size")
        expect_equal(got, expected, call, wrong=wrong)
    return len(WIDTH_CASES)
