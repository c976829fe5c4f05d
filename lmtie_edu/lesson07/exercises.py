"""Checks for the lesson 07 exercises."""

import inspect
from collections.abc import Callable

import torch
import torch.nn.functional as F
from torch import nn

from lmtie_edu.kit.exercises import Mismatch, Shortcut, exercise, expect_equal, expect_type, hint
from lmtie_edu.shared.models import TinyLM
from lmtie_edu.shared.seeding import seeded

from . import solutions
from .checkpoints import count_unique_elements, torch_checkpoint

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
        raise Shortcut(f"{where}.{helper} (the lesson's own version of this exercise)")


# -- exercise 1: which Parameters will the optimiser never update? ----------------------------------
def _optimiser_cases():
    """(description, model, optimiser) triples: every way the optimiser can miss a Parameter."""
    with seeded(0):  # the learner's random state is left alone
        models = [TinyLM(10, 4, tie=tie) for tie in (True, False, True, False, False, False)]
    cases = []
    model = models[0]
    cases.append(("tied, then the optimiser built", model, torch.optim.SGD(model.parameters(), lr=0.1)))
    model = models[1]
    optimiser = torch.optim.SGD(model.parameters(), lr=0.1)
    shared = nn.Parameter(model.embedding.weight.detach().clone())
    model.embedding.weight = model.head.weight = shared
    cases.append(("optimiser built, then a new shared Parameter tied in", model, optimiser))
    model = models[2]
    optimiser = torch.optim.SGD(model.parameters(), lr=0.1)
    model.head.weight = nn.Parameter(model.head.weight.detach().clone())
    cases.append(("optimiser built, then the head untied", model, optimiser))
    model = models[3]
    cases.append(("optimiser given only model.body.parameters()", model,
                  torch.optim.SGD(model.body.parameters(), lr=0.1)))
    model = models[4]
    copies = [nn.Parameter(p.detach().clone()) for p in model.parameters()]
    cases.append(("optimiser given equal-valued copies of every Parameter", model, torch.optim.SGD(copies, lr=0.1)))
    model = models[5]
    optimiser = torch.optim.SGD(model.parameters(), lr=0.1)
    model.head.weight = nn.Parameter(model.head.weight.data)  # a new object over the same memory
    cases.append(("optimiser built, then the head re-wrapped in a new Parameter over its own memory",
                  model, optimiser))
    return cases


def _missing(model, optimiser, same) -> list[str]:
    """Names of the model's Parameters for which no Parameter of the optimiser is ``same``."""
    held = [p for group in optimiser.param_groups for p in group["params"]]
    return sorted(name for name, p in model.named_parameters() if not any(same(p, q) for q in held))


def _same_values(p, q) -> bool:
    return p.shape == q.shape and torch.equal(p, q)


def _same_memory(p, q) -> bool:
    return p.untyped_storage().data_ptr() == q.untyped_storage().data_ptr()


def _compared_tensors_with_in(error: BaseException) -> str | None:
    text = str(error)
    return "tensor_in_list" if "ambiguous" in text or "must match the size" in text else None


@exercise(solutions.not_in_optimiser,
          hints=["An optimiser remembers the Parameter objects it was given, in its parameter groups. The "
                 "Parameter a module uses now may be another object than the one the optimiser holds, even "
                 "with equal values or the same memory.",
                 "Go through the model's named parameters and ask, for each, whether that very object "
                 "(identity, not equality) is in any of the optimiser's groups; keep the names of those that "
                 "are not, sorted."],
          mistakes={"compared_values": "you compared values: an optimiser holding an equal-valued copy (or the "
                    "old Parameter a new tie was cloned from) looks as if it held the model's Parameter, but "
                    "it updates the copy. Compare the objects themselves.",
                    "compared_memory": "you compared memory (data_ptr() or the storage): a Parameter re-wrapped "
                    "over the same memory is a new object that the optimiser does not hold, so its gradient "
                    "is never applied. Compare the objects themselves.",
                    "tensor_in_list": "asking whether a tensor is in a list of tensors compares it with each "
                    "element using ==, which gives a tensor of booleans (or fails on different shapes), not "
                    "one truth value. Compare objects by identity (or by their id())."},
          on_error=_compared_tensors_with_in)
def not_in_optimiser(answer, solution):
    _refuse_helper(answer, "in_optimiser", "pitfalls")
    cases = _optimiser_cases()
    for what, model, optimiser in cases:
        got = answer(model, optimiser)
        call = f"not_in_optimiser(model, optimiser) with {what}"
        expect_type(got, list, call)
        if not all(isinstance(name, str) for name in got):
            raise Mismatch(f"{call} must return a list of names (strings)", "list of str",
                           sorted({type(name).__name__ for name in got}))
        expect_equal(sorted(got), solution(model, optimiser), call,
                     # memory first: where both match (an object re-wrapped over its memory), values were
                     # right in an earlier case, so the answer compares memory
                     wrong={"compared_memory": _missing(model, optimiser, _same_memory),
                            "compared_values": _missing(model, optimiser, _same_values)})
    return len(cases)


# -- exercise 2: count a checkpoint's numbers, each element of memory once --------------------------
def _models():
    """(description, model) pairs covering every way two matrices can look tied."""
    with seeded(0):  # the learner's random state is left alone
        tied, untied, copied, aliased, retied = (TinyLM(10, 4, tie=tie) for tie in (True, False, False, False, False))
    with torch.no_grad():
        copied.head.weight.copy_(copied.embedding.weight)
    aliased.head.weight.data = aliased.embedding.weight.data  # one storage, still two Parameters
    shared = nn.Parameter(retied.embedding.weight.detach().clone())
    retied.embedding.weight = retied.head.weight = shared
    return [("a model tied with tie()", tied), ("an untied model", untied),
            ("a model whose head values were copied from the embedding", copied),
            ("a model with head.weight.data = embedding.weight.data", aliased),
            ("a model with one new Parameter put into both modules", retied)]


def _state_dicts():
    """(description, state dict): models' state dicts, a reloaded tie, and views into one buffer."""
    cases = [(f"the state_dict() of {what}", model.state_dict()) for what, model in _models()]
    cases.append(("a tied model's state dict after torch.save + torch.load",
                  torch_checkpoint(_models()[0][1].state_dict())[1]))
    with seeded(0):
        fused, flat = torch.randn(8, 4), torch.randn(24)
    cases.append(("a fused query/key matrix saved as its two halves (views of one tensor)",
                  {"attention.query.weight": fused[:4], "attention.key.weight": fused[4:]}))
    tied_view = flat[:16].view(4, 4)
    cases.append(("one flat buffer saved next to views into it (a tied 4x4 matrix under two names, and a bias)",
                  {"flat_buffer": flat, "embedding.weight": tied_view, "head.weight": tied_view,
                   "body.bias": flat[16:]}))
    return cases


def _once_per(key) -> Callable[[dict], int]:
    """A wrong count: each tensor's numel() added once per distinct ``key(tensor)``."""
    def count(state_dict) -> int:
        firsts = {}
        for tensor in state_dict.values():
            firsts.setdefault(key(tensor), tensor.numel())
        return sum(firsts.values())
    return count


_WRONG_COUNTS = {
    "counted_tie_twice": lambda state_dict: sum(t.numel() for t in state_dict.values()),
    "same_storage_once": _once_per(lambda t: t.untyped_storage().data_ptr()),
    "same_start_once": _once_per(lambda t: t.data_ptr()),
}


@exercise(solutions.count_checkpoint_parameters,
          hints=["Several keys can read the same memory: a tied matrix under two names, or views into one "
                 "buffer (its two halves, or the buffer and its parts). Count elements of memory — not "
                 "tensors, and not storages.",
                 "Describe each element by the storage it lives in and its position there. Each tensor here "
                 "is contiguous: it reads numel() consecutive positions of its storage, starting at its "
                 "storage_offset(). Collect those positions per storage, in sets, and count them."],
          mistakes={"counted_tie_twice": "you counted a tied matrix twice: its two keys read one storage, so "
                    "its numbers exist once in memory (and once in a file written by torch.save).",
                    "same_storage_once": "you counted each storage once, by the first tensor found in it; but "
                    "different tensors can be different parts of one storage (the two halves of a fused "
                    "matrix), and a storage holds all of them.",
                    "same_start_once": "you compared where tensors start (data_ptr()): a tensor that starts "
                    "inside memory already counted adds nothing new, and two tensors that start at the same "
                    "address can cover different amounts of memory (a buffer and its first part)."})
def count_checkpoint_parameters(answer, solution):
    _refuse_helper(answer, "count_unique_elements", "checkpoints")
    cases = _state_dicts()
    for what, state in cases:
        expected = solution(state)
        assert expected == count_unique_elements(state), "reference solution and independent count disagree"
        call = f"count_checkpoint_parameters({what})"
        got = answer(dict(state))
        expect_type(got, int, call)
        expect_equal(got, expected, call, wrong={key: wrong(state) for key, wrong in _WRONG_COUNTS.items()})
    return len(cases)


# -- exercise 3: untie for fine-tuning, and keep training the new head with the tied matrix's settings -
def _tied_model_and_optimiser():
    """A tied TinyLM and an AdamW whose groups set their own learning rate and weight decay (not the defaults)."""
    with seeded(0):  # the learner's random state is left alone
        model = TinyLM(10, 4, tie=True)
    matrices = [p for p in model.parameters() if p.dim() >= 2]
    vectors = [p for p in model.parameters() if p.dim() < 2]
    optimiser = torch.optim.AdamW([{"params": matrices, "lr": 0.02, "weight_decay": 0.1},
                                   {"params": vectors, "lr": 0.02, "weight_decay": 0.0}], lr=1e-3)
    return model, optimiser


def _groups_holding(parameter, optimiser) -> list[dict]:
    return [g for g in optimiser.param_groups for p in g["params"] if p is parameter]


def _settings(group: dict) -> dict:
    return {key: value for key, value in group.items() if key != "params"}


@exercise(solutions.untie_and_register,
          hints=["Untying means a new Parameter for the head, with the same values but memory of its own. The "
                 "optimiser only updates the Parameter objects it holds, so it must be told about the new one.",
                 "Find the parameter group that holds the tied matrix, and give the new head a group with the "
                 "same settings (learning rate, weight decay, …), or put it into that group. A group added "
                 "without settings takes the optimiser's defaults."],
          mistakes={"still_shared": "the head is a new Parameter but it reads the tied matrix's memory (it was "
                    "made without a copy), so every update of either matrix changes both: they are still "
                    "shared.",
                    "not_registered": "the new head is in none of the optimiser's parameter groups: it gets a "
                    "gradient at every step that no step applies, so it never trains.",
                    "default_settings": "the new head is in a group whose settings differ from those of the "
                    "tied matrix's group (a group added without settings takes the optimiser's defaults): it "
                    "would train with another learning rate or weight decay than the matrix it came from."})
def untie_and_register(answer, solution):
    model, optimiser = _tied_model_and_optimiser()
    tied = model.embedding.weight
    before = tied.detach().clone()
    answer(model, optimiser)
    head, embedding = model.head.weight, model.embedding.weight
    if embedding is not tied:
        raise Mismatch("the embedding must keep its Parameter (the optimiser holds it): untie the head",
                       "the embedding's original Parameter", "a different Parameter")
    if not isinstance(head, nn.Parameter) or head is embedding:
        raise Mismatch("after your function the head is still the embedding's Parameter",
                       "two Parameters", "one" if head is embedding else type(head).__name__)
    if head.untyped_storage().data_ptr() == embedding.untyped_storage().data_ptr():
        raise Mismatch("the head and the embedding still read the same memory", "two storages", "one",
                       mistake="still_shared")
    if head.shape != before.shape or not torch.equal(head.detach(), before) or not torch.equal(embedding.detach(), before):
        raise Mismatch("untying must keep the values: both matrices should still equal the tied matrix",
                       "equal to the tied matrix", "changed")
    groups = _groups_holding(head, optimiser)
    if not groups:
        raise Mismatch("the new head is not in the optimiser", "in one group", "in none", mistake="not_registered")
    if len(groups) > 1:
        raise Mismatch("the new head is in more than one parameter group", "in one group", f"in {len(groups)}")
    expected = _settings(_groups_holding(embedding, optimiser)[0])
    if _settings(groups[0]) != expected:
        got = {key: groups[0].get(key) for key in ("lr", "weight_decay")}
        raise Mismatch("the new head's group has other settings than the tied matrix's group",
                       {key: expected[key] for key in ("lr", "weight_decay")}, got, mistake="default_settings")
    F.cross_entropy(model(torch.tensor([[1, 2], [3, 4], [5, 6]])), torch.tensor([3, 5, 7])).backward()
    optimiser.step()
    if torch.equal(head.detach(), before) or torch.equal(head.detach(), embedding.detach()):
        raise Mismatch("after one optimiser step the new head did not move on its own: does it get a gradient?",
                       "head updated, different from the embedding", "unchanged or equal")
    return 1
