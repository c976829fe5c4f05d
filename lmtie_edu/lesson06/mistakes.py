"""What the known mistakes of the lesson 06 exercises give on a case, so that the checks can recognise them
(``exercises`` names a mistake when the answer's value is the one computed here)."""

import math

import torch

from lmtie_edu.kit.feedback import LearnerCrash


def always_gives(answer, cases, model, same) -> bool:
    """Does the answer return ``model(*case)`` on every one of ``cases`` (``same(got, value)``)? A crash: no.
    One case alone could be chance; every case is the mistake."""
    try:
        return all(same(answer(*fresh), model(*case)) for fresh, case in cases)
    except LearnerCrash:
        return False


# -- tied_width: the widest tied model for a count that is not TinyLM's -----------------------------------------------
def _widest(V, d, count) -> int:
    budget, width = count(d, False), d
    while count(width + 1, True) <= budget:
        width += 1
    return width


def _count(V, c, H, *, hidden=None, positions=False, biases=True, second_layer=True):
    def count(d, tie):
        h = H if hidden is None else hidden(d)
        return ((1 if tie else 2) * V * d + c * d * h + (h if biases else 0) + (positions and c * d)
                + second_layer * (h * d + (d if biases else 0)))
    return count


WIDTH_MISTAKES = {  # named only when the answer gives the value in every case
    "hidden_grows_with_width": lambda V, d, c, H: _widest(V, d, _count(V, c, H, hidden=lambda width: 4 * width)),
    "position_table": lambda V, d, c, H: _widest(V, d, _count(V, c, H, positions=True)),
    "second_layer_forgotten": lambda V, d, c, H: _widest(V, d, _count(V, c, H, second_layer=False)),
    "multiple_of_8": lambda V, d, c, H: _widest(V, d, _count(V, c, H)) // 8 * 8,
    "parameters_saved": lambda V, d, c, H: V * d,
}


# -- combined_perplexity ----------------------------------------------------------------------------------------------
PERPLEXITY_MISTAKES = {  # named only when the answer gives the value in every case
    "unk_added_on_top": lambda w, u, s: math.exp(math.log(w) + s * math.log(u)),
    "unk_term_dropped": lambda w, u, s: math.exp((1 - s) * math.log(w)),
    "word_term_dropped": lambda w, u, s: math.exp(s * math.log(u)),
    "word_perplexity_only": lambda w, u, s: float(w),
    "harmonic_mean": lambda w, u, s: 1 / ((1 - s) / w + s / u),
    "words_share_for_both": lambda w, u, s: math.exp((1 - s) * (math.log(w) + math.log(u))),
}


# -- gradient_step_counts ---------------------------------------------------------------------------------------------
def per_step(batches, vocab_size, ids_of):
    """Per row, the number of steps in which ``ids_of(inputs, targets)`` contains it at least once."""
    counts = torch.zeros(vocab_size, dtype=torch.long)
    for inputs, targets in batches:
        counts += torch.bincount(ids_of(inputs, targets).flatten(), minlength=vocab_size) > 0
    return counts


def gradient_mistakes(batches, vocab_size, tie):
    """What each mistake named on one case returns on these batches: key -> (input_counts, output_counts)."""
    steps = torch.full((vocab_size,), len(batches))
    read = per_step(batches, vocab_size, lambda inputs, targets: inputs)
    if not tie:
        occurrences = sum(torch.bincount(inputs.flatten(), minlength=vocab_size) for inputs, _ in batches)
        positions = sum((inputs.unsqueeze(-1) == torch.arange(vocab_size)).any(dim=0).sum(dim=0) for inputs, _ in batches)
        return {"output_only_targets": (read, per_step(batches, vocab_size, lambda inputs, targets: targets)),
                "counted_occurrences": (occurrences, steps), "counted_positions": (positions, steps),
                "first_example_only": (per_step(batches, vocab_size, lambda inputs, targets: inputs[0]), steps),
                "pair_swapped": (steps, read),
                "output_batch_size": (read, torch.full((vocab_size,), len(batches[0][0])))}
    return {"tied_as_untied": (read, steps), "tied_summed": (read + steps, read + steps), "tied_reads_only": (read, read)}


def _untied_only(inputs_of):
    """A mistake of the untied input counts: the tied counts right (every step), the untied inputs ``inputs_of``."""
    def model(batches, vocab_size, tie):
        steps = torch.full((vocab_size,), len(batches))
        return (steps, steps) if tie else (inputs_of(batches, vocab_size), steps)
    return model


def _tied_union(batches, vocab_size, tie):
    steps = torch.full((vocab_size,), len(batches))
    if not tie:
        return per_step(batches, vocab_size, lambda inputs, targets: inputs), steps
    both = per_step(batches, vocab_size, lambda inputs, targets: torch.cat([inputs.flatten(), targets.flatten()]))
    return both, both


COUNT_MISTAKES = {  # named only when the answer gives the pair in every case
    "input_from_targets": _untied_only(lambda batches, V: per_step(batches, V, lambda inputs, targets: targets)),
    "marked_not_counted": _untied_only(lambda batches, V: (per_step(batches, V, lambda inputs, targets: inputs) > 0).long()),
    "inputs_and_targets": _untied_only(lambda batches, V: per_step(
        batches, V, lambda inputs, targets: torch.cat([inputs.flatten(), targets.flatten()]))),
    "last_context_word_only": _untied_only(lambda batches, V: per_step(batches, V, lambda inputs, targets: inputs[:, -1])),
    "tied_union_of_reads_and_targets": _tied_union,
}
