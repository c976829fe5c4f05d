"""What each known mistake of the lesson 07 exercises gives on a case, so that the checks can recognise it
(``exercises`` names a mistake when the answer's value is the one computed here)."""

from collections.abc import Callable

import torch

from lmtie_edu.kit.feedback import LearnerCrash

from .checkpoints import count_unique_elements


def missing(model, optimiser, same, groups=None) -> list[str]:
    """Names of the model's Parameters for which no Parameter of the optimiser (of its first ``groups``
    groups, if given) is ``same``."""
    held = [p for group in optimiser.param_groups[:groups] for p in group["params"]]
    return sorted(name for name, p in model.named_parameters() if not any(same(p, q) for q in held))


def same_object(p, q) -> bool:
    return p is q


def same_values(p, q) -> bool:
    return p.shape == q.shape and torch.equal(p, q)


def same_memory(p, q) -> bool:
    return p.untyped_storage().data_ptr() == q.untyped_storage().data_ptr()


def held_names(model, optimiser) -> list[str]:
    """The inverted answer: the names of the Parameters the optimiser does hold."""
    held = {id(p) for group in optimiser.param_groups for p in group["params"]}
    return sorted(name for name, p in model.named_parameters() if id(p) in held)


def missing_from_last_group(model, optimiser) -> list[str]:
    held = {id(p) for p in optimiser.param_groups[-1]["params"]}
    return sorted(name for name, p in model.named_parameters() if id(p) not in held)


def same_shape(p, q) -> bool:
    return p.shape == q.shape


def names_zipped_with_state_dict(model, optimiser) -> list[str]:
    """The state dict's keys paired with model.parameters(): a tied matrix's second key shifts the names."""
    held = {id(p) for group in optimiser.param_groups for p in group["params"]}
    return sorted(name for name, p in zip(model.state_dict(), model.parameters(), strict=False) if id(p) not in held)


# mistakes named only when the answer gives their wrong value in every case (one case alone could be chance)
CONSISTENT_MISTAKES = {
    "compared_memory": lambda model, optimiser: missing(model, optimiser, same_memory),
    "compared_values": lambda model, optimiser: missing(model, optimiser, same_values),
    "first_group_only": lambda model, optimiser: missing(model, optimiser, same_object, groups=1),
    "inverted": held_names, "last_group_only": missing_from_last_group,
    "compared_shapes": lambda model, optimiser: missing(model, optimiser, same_shape),
    "names_zipped_with_state_dict": names_zipped_with_state_dict,
}


def always_gives(answer, cases, wrong_of) -> bool:
    """Does the answer return ``wrong_of(*case)`` on every one of ``cases`` (fresh copies)? A crash: no."""
    try:
        return all(answer(*case) == wrong_of(*reference) for case, reference in cases)
    except LearnerCrash:
        return False


def once_per(key) -> Callable[[dict], int]:
    """A wrong count: each tensor's numel() added once per distinct ``key(tensor)``."""
    def count(state_dict) -> int:
        firsts = {}
        for tensor in state_dict.values():
            firsts.setdefault(key(tensor), tensor.numel())
        return sum(firsts.values())
    return count


WRONG_COUNTS = {
    "counted_tie_twice": lambda state_dict: sum(t.numel() for t in state_dict.values()),
    "same_storage_once": once_per(lambda t: t.untyped_storage().data_ptr()),
    "same_start_once": once_per(lambda t: t.data_ptr()),
    "whole_storage": lambda state_dict: sum({t.untyped_storage().data_ptr(): t.untyped_storage().nbytes()
                                             // t.element_size() for t in state_dict.values()}.values()),
    "bytes_as_elements": lambda state_dict: len(set().union(*(range(t.data_ptr(), t.data_ptr() + t.numel())
                                                              for t in state_dict.values()))),
}


def positions_without_storage(state_dict) -> int:
    return len(set().union(*(range(t.storage_offset(), t.storage_offset() + t.numel()) for t in state_dict.values())))


CONSISTENT_COUNTS = {
    "positions_without_storage": positions_without_storage,
    "skipped_head_key": lambda state_dict: sum(t.numel() for key, t in state_dict.items() if key != "head.weight"),
    "same_view_once": once_per(lambda t: (t.untyped_storage().data_ptr(), t.storage_offset(), tuple(t.shape))),
    "same_shape_once": once_per(lambda t: tuple(t.shape)),
    "counted_bytes": lambda state_dict: count_unique_elements(state_dict) * 4,  # every case is float32
    "counted_distinct_values": lambda state_dict: int(torch.cat([t.detach().flatten().double()
                                                                 for t in state_dict.values()]).unique().numel()),
}
