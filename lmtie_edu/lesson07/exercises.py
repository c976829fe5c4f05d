"""Checks for the lesson 07 exercises."""

import inspect

import torch
import torch.nn.functional as F
from torch import nn

from lmtie_edu.kit.exercises import Mismatch, Shortcut, exercise, expect_equal, expect_type, hint
from lmtie_edu.shared.language import N_, tr

from . import mistakes, solutions
from .checkpoints import count_unique_elements
from .exercise_cases import optimiser_cases, state_dicts, tied_models_and_optimisers

__all__ = ["count_checkpoint_parameters", "hint", "not_in_optimiser", "untie_and_register"]  # the lesson calls ex.hint("name")


def _refuse_helper(answer, helper: str, where: str) -> None:
    """The exercise asks the learner to write what the lesson's ``helper`` does: refuse code that calls it."""
    def names(code):
        yield from code.co_names
        for constant in code.co_consts:
            if inspect.iscode(constant):
                yield from names(constant)

    code = getattr(getattr(answer, "function", None), "__code__", None)
    if code is not None and helper in set(names(code)):
        raise Shortcut(tr("{where}.{helper} (the lesson's own version of this exercise)", where=where, helper=helper))


# -- exercise 1: which Parameters will the optimiser never update? ----------------------------------
def _looked_at(model, optimiser) -> tuple:
    """What a detector must leave as it found it: the model's Parameters, the optimiser's groups and settings."""
    return ([(name, p) for name, p in model.named_parameters(remove_duplicate=False)],
            [(list(group["params"]), {k: v for k, v in group.items() if k != "params"})
             for group in optimiser.param_groups])


def _expect_untouched(before: tuple, after: tuple, call: str) -> None:
    (parameters, groups), (parameters_now, groups_now) = before, after
    pairs = zip(parameters, parameters_now, strict=True) if len(parameters) == len(parameters_now) else None
    if pairs is None or any(name != name_now or p is not p_now for (name, p), (name_now, p_now) in pairs):
        raise Mismatch(tr("{call}: your function changed the model's Parameters; it should only look at them",
                          call=call), tr("the model's Parameter objects as given"), tr("other Parameter objects"))
    held = [[id(p) for p in params] for params, _ in groups]
    held_now = [[id(p) for p in params] for params, _ in groups_now]
    if held != held_now or [s for _, s in groups] != [s for _, s in groups_now]:
        added = sum(map(len, held_now)) > sum(map(len, held))
        raise Mismatch(tr("{call}: your function changed the optimiser's parameter groups; it should only report "
                          "the missing names and leave the optimiser as it was", call=call)
                       + (tr(" (adding the missing Parameters hides from its caller what it reports)") if added else ""),
                       tr("{groups} group(s) holding {count} Parameter(s), unchanged", groups=len(groups),
                          count=sum(map(len, held))),
                       tr("{groups} group(s) holding {count} Parameter(s)", groups=len(groups_now),
                          count=sum(map(len, held_now)))
                       + ("" if held != held_now else tr(", with changed settings")))


def _compared_tensors_with_in(error: BaseException) -> str | None:
    text = str(error)
    return "tensor_in_list" if "ambiguous" in text or "must match the size" in text else None


@exercise(solutions.not_in_optimiser,
          hints=[N_("An optimiser remembers the Parameter objects it was given, in its parameter groups. The "
                 "Parameter a module uses now may be another object than the one the optimiser holds, even "
                 "with equal values or the same memory."),
                 N_("Go through the model's named parameters and ask, for each, whether that very object "
                 "(identity, not equality) is in any of the optimiser's groups; keep the names of those that "
                 "are not, sorted.")],
          mistakes={"compared_values": N_("you compared values: an optimiser holding an equal-valued copy (or the "
                    "old Parameter a new tie was cloned from) looks as if it held the model's Parameter, but "
                    "it updates the copy. Compare the objects themselves."),
                    "compared_memory": N_("you compared memory (data_ptr() or the storage): a Parameter re-wrapped "
                    "over the same memory is a new object that the optimiser does not hold, so its gradient "
                    "is never applied. Compare the objects themselves."),
                    "tensor_in_list": N_("asking whether a tensor is in a list of tensors compares it with each "
                    "element using ==, which gives a tensor of booleans (or fails on different shapes), not "
                    "one truth value. Compare objects by identity (or by their id())."),
                    "unsorted": N_("your names are the right ones, but not in sorted order: the exercise asks "
                    "for them sorted (model.named_parameters() lists them in the order the modules were made). "
                    "Return sorted(...)."),
                    "first_group_only": N_("you looked only in the optimiser's first parameter group "
                    "(param_groups[0]); an optimiser can hold its Parameters in several groups (weight decay "
                    "for matrices, none for vectors, as nanoGPT builds it), and a Parameter in any group is "
                    "updated. Look through every group."),
                    "inverted": N_("you returned the names of the Parameters the optimiser holds — the ones it "
                    "will update. The exercise asks for the others: the model's Parameters that are in none of "
                    "its groups."),
                    "last_group_only": N_("you looked only in the optimiser's last parameter group "
                    "(param_groups[-1]); an optimiser can hold its Parameters in several groups (weight decay "
                    "for matrices, none for vectors, as nanoGPT builds it), and a Parameter in any group is "
                    "updated. Look through every group."),
                    "compared_shapes": N_("you compared shapes: a Parameter counts as held whenever the optimiser "
                    "holds any Parameter of its shape (an untied head has the embedding's shape, an equal-valued "
                    "copy has its original's). Compare the objects themselves."),
                    "names_zipped_with_state_dict": N_("you paired the state dict's keys with model.parameters(): "
                    "state_dict() lists a tied matrix under both its names (and holds buffers), parameters() gives "
                    "each Parameter once, so the names and the Parameters slip out of step. Use "
                    "model.named_parameters(), which gives each name with its own Parameter.")},
          on_error=_compared_tensors_with_in, computed_by=("lmtie_edu.lesson07.pitfalls.in_optimiser",))
def not_in_optimiser(answer, solution):
    _refuse_helper(answer, "in_optimiser", "pitfalls")
    cases, references = optimiser_cases(), optimiser_cases()  # equal, separate: the answer may change its own
    for (what, model, optimiser), (_, model_r, optimiser_r) in zip(cases, references, strict=True):
        call = tr("not_in_optimiser(model, optimiser) with {case}", case=tr(what))
        expected = solution(model_r, optimiser_r)
        before = _looked_at(model, optimiser)
        got = answer(model, optimiser)
        _expect_untouched(before, _looked_at(model, optimiser), call)
        expect_type(got, list, call)
        if not all(isinstance(name, str) for name in got):
            raise Mismatch(tr("{call} must return a list of names (strings)", call=call), "list of str",
                           sorted({type(name).__name__ for name in got}))
        if got != expected and sorted(got) == expected:    # the right names, not in the asked-for order
            raise Mismatch(tr("{call}: wrong order", call=call), expected, got, mistake="unsorted")
        if got != expected:  # a mistake is named only when the answer gives its names in every case
            for key, wrong_of in mistakes.CONSISTENT_MISTAKES.items():
                if got == wrong_of(model_r, optimiser_r) and mistakes.always_gives(answer, (
                        ((m, o), (m_r, o_r)) for (_, m, o), (_, m_r, o_r) in zip(optimiser_cases(), optimiser_cases(),
                                                                                 strict=True)), wrong_of):
                    raise Mismatch(tr("{what}: wrong value", what=call), expected, got, mistake=key)
        expect_equal(got, expected, call)
    return len(cases)


# -- exercise 2: count a checkpoint's numbers, each element of memory once --------------------------
@exercise(solutions.count_checkpoint_parameters,
          hints=[N_("Several keys can read the same memory: a tied matrix under two names, or views into one "
                 "buffer (its two halves, or the buffer and its parts). Count elements of memory — not "
                 "tensors, and not storages."),
                 N_("Describe each element by the storage it lives in and its position there. Each tensor here "
                 "is contiguous: it reads numel() consecutive positions of its storage, starting at its "
                 "storage_offset(). Collect those positions per storage, in sets, and count them.")],
          mistakes={"counted_tie_twice": N_("you counted a tied matrix twice: its two keys read one storage, so "
                    "its numbers exist once in memory (and once in a file written by torch.save)."),
                    "same_storage_once": N_("you counted one tensor per storage (the first found, or the largest); "
                    "but different tensors can be different parts of one storage (two slices of a matrix, the two "
                    "halves of a fused matrix), and each part holds numbers of its own."),
                    "same_start_once": N_("you compared where tensors start (data_ptr()): a tensor that starts "
                    "inside memory already counted adds nothing new, and two tensors that start at the same "
                    "address can cover different amounts of memory (a buffer and its first part)."),
                    "whole_storage": N_("you counted the full length of each storage; but a tensor can read only "
                    "part of its storage (a slice: the first 2 rows of a 10x4 matrix read 8 of its storage's "
                    "40 elements), and the elements no key reads are not numbers of the state dict. Count the positions the "
                    "tensors read."),
                    "bytes_as_elements": N_("you mixed bytes and elements: data_ptr() is an address in bytes, but "
                    "numel() counts elements of element_size() bytes each (4 for float32), so data_ptr() to "
                    "data_ptr() + numel() is not the memory a tensor reads (a view 4 elements into a buffer "
                    "starts 16 bytes in). Use storage_offset(), which counts elements, or count bytes with "
                    "numel() * element_size()."),
                    "positions_without_storage": N_("you collected the positions the tensors read in one set for "
                    "all storages: position 0 of one storage and position 0 of another are different memory, "
                    "yet your set counts them once. Keep the positions per storage (keyed by the storage's "
                    "address) and add up the sizes of those sets."),
                    "skipped_head_key": N_("you left out the key head.weight whatever the state dict holds: an "
                    "untied head has numbers of its own, and a tie can sit under other names. Find shared memory "
                    "from the tensors themselves (their storages and positions), not from a key's name."),
                    "counted_distinct_values": N_("you counted distinct values: equal numbers in different memory "
                    "(a head copied from the embedding) are still stored twice, and two parameters can share a "
                    "value by chance. Count elements of memory, not values."),
                    "same_view_once": N_("you counted each view once (by its storage, its start and its shape), so "
                    "views that overlap were counted whole each: a bias and a matrix cut from one buffer, next to "
                    "the buffer itself, are the same memory. Count the positions each tensor reads, per storage, "
                    "in sets."),
                    "same_shape_once": N_("you counted each shape once: two tensors of one shape can be different "
                    "memory (an untied head has the embedding's shape), and a shape says nothing about shared "
                    "memory. Count the positions each tensor reads, per storage."),
                    "counted_bytes": N_("your count is 4 times the number of elements: you counted bytes (nbytes(), "
                    "or numel() * element_size(), 4 bytes for each float32). The exercise counts numbers, "
                    "elements of memory.")},
          computed_by=("lmtie_edu.lesson07.checkpoints.count_unique_elements",))
def count_checkpoint_parameters(answer, solution):
    _refuse_helper(answer, "count_unique_elements", "checkpoints")
    cases = state_dicts()
    for what, state in cases:
        expected = solution(state)  # (and the known wrong counts) before the answer sees the tensors
        assert expected == count_unique_elements(state), "reference solution and independent count disagree"
        wrong = {key: count(state) for key, count in mistakes.WRONG_COUNTS.items()}
        call = f"count_checkpoint_parameters({tr(what)})"
        got = answer(dict(state))
        expect_type(got, int, call)
        if got != expected and got not in wrong.values():
            for key, count in mistakes.CONSISTENT_COUNTS.items():
                if got == count(state) and mistakes.always_gives(answer, (((dict(s),), (s,)) for _, s in state_dicts()), count):
                    raise Mismatch(tr("{what}: wrong value", what=call), expected, got, mistake=key)
        expect_equal(got, expected, call, wrong=wrong)
    return len(cases)


# -- exercise 3: untie for fine-tuning, and keep training the new head with the tied matrix's settings -
def _groups_holding(parameter, optimiser) -> list[dict]:
    return [g for g in optimiser.param_groups for p in g["params"] if p is parameter]


def _settings(group: dict) -> dict:
    return {key: value for key, value in group.items() if key != "params"}


@exercise(solutions.untie_and_register,
          hints=[N_("Untying means a new Parameter for the head, with the same values but memory of its own. The "
                 "optimiser only updates the Parameter objects it holds, so it must be told about the new one."),
                 N_("Find the parameter group that holds the tied matrix, and give the new head a group with the "
                 "same settings (learning rate, weight decay, …), or put it into that group. A group added "
                 "without settings takes the optimiser's defaults.")],
          mistakes={"still_shared": N_("the head is a new Parameter but it reads the tied matrix's memory (it was "
                    "made without a copy), so every update of either matrix changes both: they are still "
                    "shared."),
                    "not_registered": N_("the new head is in none of the optimiser's parameter groups: it gets a "
                    "gradient at every step that no step applies, so it never trains."),
                    "default_settings": N_("the new head is in a group whose settings differ from those of the "
                    "tied matrix's group (another existing group, or a group added without settings, which takes "
                    "the optimiser's defaults): it would train with another learning rate or weight decay than "
                    "the matrix it came from."),
                    "group_with_old_params": N_("you added a parameter group holding Parameters the optimiser "
                    "already has (a Parameter may be in one group only), so add_param_group refuses it. Give the "
                    "new group the new head alone, with the settings of the tied matrix's group."),
                    "transposed_head": N_("you gave the head the transposed matrix. nn.Linear stores its weight as "
                    "(out_features, in_features) = (V, d), the shape of the embedding's weight: the tied head is "
                    "E itself, so its copy is not transposed."),
                    "replaced_data": N_("you replaced the .data of the tied Parameter: the head and the embedding "
                    "are still one Parameter object (now over new memory), so they are still tied. Give the head "
                    "a new nn.Parameter of its own.")},
          on_error=lambda error: "group_with_old_params" if "appear in more than one parameter group" in str(error)
          else None)
def untie_and_register(answer, solution):
    cases = tied_models_and_optimisers()
    for what, model, optimiser in cases:
        try:
            _check_untied(answer, model, optimiser)
        except Mismatch as wrong:
            wrong.what = tr("{problem} (with {case})", problem=wrong.what, case=tr(what))
            raise
    return len(cases)


def _check_untied(answer, model, optimiser) -> None:
    tied = model.embedding.weight
    before = tied.detach().clone()
    expected = _settings(_groups_holding(tied, optimiser)[0])  # a copy, taken before the answer runs
    memory = tied.untyped_storage().data_ptr()
    answer(model, optimiser)
    head, embedding = model.head.weight, model.embedding.weight
    if embedding is not tied:
        raise Mismatch(tr("the embedding must keep its Parameter (the optimiser holds it): untie the head"),
                       tr("the embedding's original Parameter"), tr("a different Parameter"))
    if not isinstance(head, nn.Parameter) or head is embedding:
        replaced = head is embedding and embedding.untyped_storage().data_ptr() != memory
        raise Mismatch(tr("after your function the head is still the embedding's Parameter"),
                       tr("two Parameters"), tr("one") if head is embedding else type(head).__name__,
                       mistake="replaced_data" if replaced else None)
    if head.untyped_storage().data_ptr() == embedding.untyped_storage().data_ptr():
        raise Mismatch(tr("the head and the embedding still read the same memory"), tr("two storages"), tr("one"),
                       mistake="still_shared")
    if head.shape != before.shape or not torch.equal(head.detach(), before) or not torch.equal(embedding.detach(), before):
        transposed = head.shape == before.t().shape and torch.equal(head.detach(), before.t()) and torch.equal(
            embedding.detach(), before)
        raise Mismatch(tr("untying must keep the values: both matrices should still equal the tied matrix"),
                       tr("equal to the tied matrix"), tr("changed"), mistake="transposed_head" if transposed else None)
    groups = _groups_holding(head, optimiser)
    if not groups:
        raise Mismatch(tr("the new head is not in the optimiser"), tr("in one group"), tr("in none"),
                       mistake="not_registered")
    if len(groups) > 1:
        raise Mismatch(tr("the new head is in more than one parameter group"), tr("in one group"),
                       tr("in {count}", count=len(groups)))
    kept = _groups_holding(embedding, optimiser)
    if len(kept) != 1 or _settings(kept[0]) != expected:
        raise Mismatch(tr("the embedding must stay in its group, with that group's settings unchanged"),
                       {key: expected[key] for key in ("lr", "weight_decay")},
                       {key: kept[0].get(key) for key in ("lr", "weight_decay")} if len(kept) == 1
                       else tr("in {count} groups", count=len(kept)))
    if _settings(groups[0]) != expected:
        got = {key: groups[0].get(key) for key in ("lr", "weight_decay")}
        raise Mismatch(tr("the new head's group has other settings than the tied matrix's group"),
                       {key: expected[key] for key in ("lr", "weight_decay")}, got, mistake="default_settings")
    F.cross_entropy(model(torch.tensor([[1, 2], [3, 4], [5, 6]])), torch.tensor([3, 5, 7])).backward()
    optimiser.step()
    if torch.equal(head.detach(), before) or torch.equal(head.detach(), embedding.detach()):
        raise Mismatch(tr("after one optimiser step the new head did not move on its own: does it get a gradient?"),
                       tr("head updated, different from the embedding"), tr("unchanged or equal"))
